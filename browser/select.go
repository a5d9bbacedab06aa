package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// ErrNoOption reports a select value that matches no option.
var ErrNoOption = errors.New("no such option")

// ErrOneOption reports a list of values for a select or listbox that takes
// one option only.
var ErrOneOption = errors.New("takes one option, not a list")

// popupWait bounds the wait for a combobox's popup to show its options, and
// lateWait the wait for a page to show the effect of a click on an option
// when it did not at once.
const (
	popupWait = 5 * time.Second
	lateWait  = time.Second
)

// Selection is an option a Select chose, or PickOptions would choose.
type Selection struct {
	Value string `json:"value"`
	Text  string `json:"text"`
}

// optionResult is what selectOptionJS reports.
type optionResult struct {
	OK       bool        `json:"ok"`
	Kind     string      `json:"kind"`
	Single   bool        `json:"single"`
	Disabled bool        `json:"disabled"`
	Missing  string      `json:"missing"`
	Options  []string    `json:"options"`
	Picked   []Selection `json:"picked"`
	// Selected is what is selected once a choice ran: read back, since
	// the page's handlers may change it.
	Selected []Selection `json:"selected"`
	// Combo is set for a combobox, which must show its choice afterwards.
	Combo bool `json:"combo"`
	// Changed says a choice was not made: once the select had focus, the
	// values matched other options than the approved ones (Picked).
	Changed bool `json:"changed"`
}

// cmdDescribeNode tells the backend node id of a page object.
var cmdDescribeNode = cdp.Command[map[string]any, describeNodeResult]{Method: "DOM.describeNode"}

type describeNodeResult struct {
	Node struct {
		BackendNodeID int64 `json:"backendNodeId"`
	} `json:"node"`
}

// The kinds of widget selectOptionJS tells apart, besides "list": options a
// person clicks.
const (
	kindNative = "native" // a <select>, chosen by script
	kindClosed = "closed" // a combobox whose popup is not open
)

// PickOptions says which options Select would choose for values, in the
// page's order, without choosing: what a person approves before the select
// runs. With list, values is a list, which only a select or listbox that
// takes several accepts (else ErrOneOption); they become exactly its
// selected options. A value matching no option is ErrNoOption, naming the
// options there are. For a combobox whose popup is closed, its options do not
// exist yet: each value stands for the option that shows that text.
func (t *Context) PickOptions(ctx context.Context, backendNodeID int64, values []string, list bool) ([]Selection, error) {
	node := nodeOf(backendNodeID)
	r, err := t.options(ctx, node, values, list, "pick")
	if err != nil {
		return nil, err
	}
	if r.Kind == kindClosed {
		picked := make([]Selection, len(values))
		for i, v := range values {
			picked[i] = Selection{Text: v}
		}
		return picked, nil
	}
	return r.Picked, nil
}

// Select chooses the options for values (see PickOptions) and returns
// what took effect: the options selected afterwards, read back from the
// page, which its own handlers (input, change) may have made other than
// what was picked; for a combobox, the option whose text it shows.
// A native <select> is chosen by script, firing input and change as a
// person's choice does, with no pointer: pages often hide it under a styled
// proxy. A listbox's options are clicked with the mouse, each one whose
// selected state must change; a combobox is clicked open first, and the
// option of its popup showing the text is clicked, after which the combobox
// must show that text.
//
// approved is what PickOptions said, and a person may have approved: the
// values must still pick exactly those options when the choice is made,
// else nothing is chosen and the error is a *ChangedError naming what they
// pick now. A native select is focused, and its options matched again, in
// the same script turn as the choice, so no handler runs between the look
// and the choice; a listbox's or popup's options are matched again just
// before the first click. nil checks nothing.
func (t *Context) Select(ctx context.Context, backendNodeID int64, values []string, list bool, approved []Selection) ([]Selection, error) {
	node := nodeOf(backendNodeID)
	r, err := t.choose(ctx, node, values, list, approved)
	if err != nil {
		return nil, err
	}
	if r.Changed || (approved != nil && r.Kind != kindClosed && !sameOptions(approved, r.Picked)) {
		return nil, &ChangedError{Input: "select", Options: orNone(r.Picked), Missing: r.Missing}
	}
	if r.Kind == kindNative {
		if err := t.leaveStandIn(ctx, node); err != nil {
			t.log.Debug("select: the stand-in was not looked after", "err", err)
		}
		return orNone(r.Selected), nil
	}
	if r.Kind == kindClosed {
		if err := t.clickNode(ctx, node, "the combobox"); err != nil {
			return nil, err
		}
		if err := t.waitPopup(ctx, node); err != nil {
			return nil, err
		}
		if r, err = t.options(ctx, node, values, list, "pick"); err != nil {
			// Leave the page as it was: a popup opened for nothing closes.
			return nil, errors.Join(err, t.escape(ctx))
		}
		if approved != nil && !sameOptions(approved, r.Picked) {
			// The popup shows other options for the text than approved.
			return nil, errors.Join(&ChangedError{Input: "select", Options: orNone(r.Picked)}, t.escape(ctx))
		}
	}
	if err := t.clickOptions(ctx, node, values, list); err != nil {
		return nil, err
	}
	if r.Combo && len(r.Picked) == 1 {
		var shows struct {
			OK    bool   `json:"ok"`
			Shown string `json:"shown"`
		}
		if err := t.callOn(ctx, node, selectOptionJS, &shows, []string{r.Picked[0].Text}, false, "shows", waitLimit(ctx, lateWait)); err != nil {
			return nil, fmt.Errorf("select %q: read the combobox: %w", values, err)
		}
		if !shows.OK {
			return nil, fmt.Errorf("select %q: clicked the option, but the combobox shows %q", r.Picked[0].Text, shows.Shown)
		}
	}
	if r.Combo {
		return r.Picked, nil
	}
	var now optionResult
	if err := t.callOn(ctx, node, selectOptionJS, &now, []string{}, list, "selected", 0); err != nil {
		return nil, fmt.Errorf("select %q: read back the selected options: %w", values, err)
	}
	if !now.OK {
		// Its options say nothing of being selected: the clicks are all
		// there is to go by.
		return r.Picked, nil
	}
	return orNone(now.Selected), nil
}

// orNone is s, or an empty list for none: no option selected is an answer.
func orNone(s []Selection) []Selection {
	if s == nil {
		return []Selection{}
	}
	return s
}

// choose runs selectOptionJS's choice, which for a native select makes
// it once it has checked it against approved.
func (t *Context) choose(ctx context.Context, node nodeID, values []string, list bool, approved []Selection) (optionResult, error) {
	var r optionResult
	if values == nil {
		values = []string{}
	}
	args := []any{values, list, "choose", 0}
	if approved != nil {
		// Passed only when there is something to check: nil and empty
		// both reach the page as an empty list.
		args = append(args, approved)
	}
	if err := t.callOn(ctx, node, selectOptionJS, &r, args...); err != nil {
		return r, fmt.Errorf("select %q: %w", values, err)
	}
	if r.Changed {
		return r, nil
	}
	return r, optionsProblem(r, values)
}

// options runs selectOptionJS in mode on the node and turns what it found
// into errors.
func (t *Context) options(ctx context.Context, node nodeID, values []string, list bool, mode string) (optionResult, error) {
	var r optionResult
	if values == nil {
		values = []string{}
	}
	if err := t.callOn(ctx, node, selectOptionJS, &r, values, list, mode, 0); err != nil {
		return r, fmt.Errorf("select %q: %w", values, err)
	}
	return r, optionsProblem(r, values)
}

// optionsProblem is the error of what selectOptionJS found for values, or
// nil when it found them all.
func optionsProblem(r optionResult, values []string) error {
	switch {
	case r.Single:
		return fmt.Errorf("select %q: it %w", values, ErrOneOption)
	case r.Disabled:
		return fmt.Errorf("select %q: option %q is disabled: %w", values, r.Options[0], ErrNoOption)
	case !r.OK:
		return fmt.Errorf("select %q: %q: %w; the options are %q", values, r.Missing, ErrNoOption, r.Options)
	}
	return nil
}

// clickOptions clicks, one at a time, the option a person would click next
// to reach the choice, until none is left: one click for a single choice;
// for several, each option whose selected state is wrong. An option that
// needs a second click did not toggle (or its click undid another's), which
// is an error rather than a loop.
func (t *Context) clickOptions(ctx context.Context, node nodeID, values []string, list bool) error {
	clicked, waited := make(map[nodeID]bool), make(map[nodeID]bool)
	for {
		option, err := t.optionNode(ctx, node, values, list)
		if err != nil || option == (nodeID{}) {
			return err
		}
		if clicked[option] && !waited[option] {
			// The page may answer the click late: look again after
			// its next change.
			waited[option] = true
			if err := t.callOn(ctx, node, selectOptionJS, nil, values, list, "change", waitLimit(ctx, lateWait)); err != nil {
				return fmt.Errorf("select %q: wait for the listbox: %w", values, err)
			}
			continue
		}
		if clicked[option] {
			return fmt.Errorf("select %q: a click on an option does not toggle it alone; the listbox is not as the values say", values)
		}
		if err := t.clickGuarded(ctx, option); err != nil {
			return err
		}
		if !list {
			return nil
		}
		clicked[option] = true
	}
}

// optionNode returns the backend node id of the option to click next, or the zero nodeID.
func (t *Context) optionNode(ctx context.Context, node nodeID, values []string, list bool) (nodeID, error) {
	n, err := t.node(ctx, node)
	if err != nil {
		return nodeID{}, err
	}
	defer n.release(ctx)
	id, err := n.element(ctx, selectOptionJS, values, list, "next", 0)
	if err != nil {
		return nodeID{}, fmt.Errorf("select %q: find the option to click: %w", values, err)
	}
	return id, nil
}

// clickNode clicks the middle of a node with the mouse, once it is scrolled
// into view, visible and not covered.
func (t *Context) clickNode(ctx context.Context, node nodeID, what string) error {
	in, err := t.inspect(ctx, node, true, true)
	if err != nil {
		return fmt.Errorf("click %s: %w", what, err)
	}
	switch {
	case !in.Visible:
		return fmt.Errorf("click %s %q: it has no visible box", what, in.AXName)
	case in.Covered != "":
		return fmt.Errorf("click %s %q: it is covered by %s", what, in.AXName, in.Covered)
	}
	return t.deliver(ctx, node, "click", in.X, in.Y, t.Click)
}

// waitPopup waits for the combobox's popup to show its options.
func (t *Context) waitPopup(ctx context.Context, node nodeID) error {
	var open bool
	limit := waitLimit(ctx, popupWait)
	if err := t.callOn(ctx, node, selectOptionJS, &open, []string{}, false, "wait", limit); err != nil {
		return fmt.Errorf("wait for the combobox's options: %w", err)
	}
	if !open {
		return fmt.Errorf("clicked the combobox, but no options showed within %d ms", limit)
	}
	return nil
}

// waitLimit is how many milliseconds a page script may wait: at most limit,
// and less when ctx ends sooner.
func waitLimit(ctx context.Context, limit time.Duration) int64 {
	if d, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(d))
	}
	return max(limit.Milliseconds(), 0)
}

// escape presses Escape, which closes an open popup.
func (t *Context) escape(ctx context.Context) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	for _, typ := range []string{"rawKeyDown", "keyUp"} {
		if _, err := chromedp.Call(c, cmdDispatchKeyEvent, map[string]any{
			"type": typ, "key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27,
		}); err != nil {
			return fmt.Errorf("press Escape to close the popup: %w", err)
		}
	}
	return nil
}

// element runs the JavaScript function fn with the object as this, as call
// does, for a function that returns an element or null, and returns that
// element, or the zero nodeID for null.
func (o *pageObject) element(ctx context.Context, fn string, args ...any) (nodeID, error) {
	c, cancel := o.cdp(ctx)
	defer cancel()
	callArgs := argValues(args)
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
		"objectId": o.id, "functionDeclaration": fn, "arguments": callArgs, "userGesture": true,
	})
	if err != nil {
		return nodeID{}, err
	}
	if err := res.err(); err != nil {
		return nodeID{}, err
	}
	if res.Result.ObjectID == "" {
		return nodeID{}, nil
	}
	el := &pageObject{t: o.t, id: res.Result.ObjectID, frame: o.frame}
	defer el.release(ctx)
	d, err := chromedp.Call(c, cmdDescribeNode, map[string]any{"objectId": el.id})
	if err != nil {
		return nodeID{}, fmt.Errorf("describe the element: %w", err)
	}
	return o.nodeOf(d.Node.BackendNodeID), nil
}
