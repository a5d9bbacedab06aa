package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// ErrDetached reports a node that is no longer in the page.
var ErrDetached = errors.New("node is no longer in the page")

// releaseTimeout bounds the release of a page object, which runs after the
// call that used it, whose deadline may be spent.
const releaseTimeout = time.Second

// Raw protocol commands. The typed cdproto ones are strict about enum values
// and drop zero fields that some commands need, so these go as raw JSON.
var (
	cmdResolveNode      = cdp.Command[map[string]any, resolveNodeResult]{Method: "DOM.resolveNode"}
	cmdCallFunctionOn   = cdp.Command[map[string]any, scriptResult]{Method: "Runtime.callFunctionOn"}
	cmdReleaseObject    = cdp.Command[map[string]any, json.RawMessage]{Method: "Runtime.releaseObject"}
	cmdEvaluate         = cdp.Command[map[string]any, scriptResult]{Method: "Runtime.evaluate"}
	cmdPartialAXTree    = cdp.Command[map[string]any, partialAXTree]{Method: "Accessibility.getPartialAXTree"}
	cmdDispatchMouse    = cdp.Command[map[string]any, json.RawMessage]{Method: "Input.dispatchMouseEvent"}
	cmdInsertText       = cdp.Command[map[string]any, json.RawMessage]{Method: "Input.insertText"}
	cmdDispatchKeyEvent = cdp.Command[map[string]any, json.RawMessage]{Method: "Input.dispatchKeyEvent"}
	cmdGetLayoutMetrics = cdp.Command[map[string]any, layoutMetrics]{Method: "Page.getLayoutMetrics"}
)

type resolveNodeResult struct {
	Object struct {
		ObjectID string `json:"objectId"`
	} `json:"object"`
}

// scriptResult is the result of Runtime.evaluate and Runtime.callFunctionOn.
type scriptResult struct {
	Result struct {
		Type     string          `json:"type"`
		Value    json.RawMessage `json:"value"`
		ObjectID string          `json:"objectId"`
	} `json:"result"`
	ExceptionDetails *struct {
		Text      string `json:"text"`
		Exception *struct {
			Description string `json:"description"`
		} `json:"exception"`
	} `json:"exceptionDetails"`
}

func (r scriptResult) err() error {
	if r.ExceptionDetails == nil {
		return nil
	}
	if e := r.ExceptionDetails.Exception; e != nil && e.Description != "" {
		return fmt.Errorf("script: %s", e.Description)
	}
	return fmt.Errorf("script: %s", r.ExceptionDetails.Text)
}

// decode reports a script's exception as an error, or decodes its JSON
// result into out (which may be nil).
func (r scriptResult) decode(out any) error {
	if err := r.err(); err != nil {
		return err
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// pageObject is an object of the page that scripts run on, as their this,
// until it is released. It belongs to one document: calls on it fail once
// that document is gone.
type pageObject struct {
	t  *Tab
	id string
	// gesture makes calls count as a user gesture, as the input they stand
	// for would; the server's own watching must not give the page a user
	// activation it would not otherwise have.
	gesture bool
}

// node returns the DOM node as a page object, or ErrDetached when it is
// gone. Calls on it count as user gestures.
func (t *Tab) node(ctx context.Context, backendNodeID int64) (*pageObject, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	obj, err := chromedp.Call(c, cmdResolveNode, map[string]any{"backendNodeId": backendNodeID})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDetached, err)
	}
	return &pageObject{t: t, id: obj.Object.ObjectID, gesture: true}, nil
}

// window returns the window of the main frame's current document.
func (t *Tab) window(ctx context.Context) (*pageObject, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	res, err := chromedp.Call(c, cmdEvaluate, map[string]any{"expression": "globalThis"})
	if err != nil {
		return nil, err
	}
	if err := res.err(); err != nil {
		return nil, err
	}
	return &pageObject{t: t, id: res.Result.ObjectID}, nil
}

// call runs the JavaScript function fn with the object as this and args as
// its arguments, awaiting a promise, and decodes its JSON result into out
// (which may be nil).
func (o *pageObject) call(ctx context.Context, fn string, out any, args ...any) error {
	c, cancel := o.t.cdp(ctx)
	defer cancel()
	callArgs := make([]map[string]any, len(args))
	for i, a := range args {
		callArgs[i] = map[string]any{"value": a}
	}
	params := map[string]any{
		"objectId":            o.id,
		"functionDeclaration": fn,
		"arguments":           callArgs,
		"returnByValue":       true,
		"awaitPromise":        true,
	}
	if o.gesture {
		params["userGesture"] = true
	}
	res, err := chromedp.Call(c, cmdCallFunctionOn, params)
	if err != nil {
		return err
	}
	return res.decode(out)
}

// release lets the page forget the object. It has its own short deadline,
// since ctx's may be spent.
func (o *pageObject) release(ctx context.Context) {
	c, cancel := o.t.cdp(context.WithoutCancel(ctx))
	defer cancel()
	c, cancelRelease := context.WithTimeout(c, releaseTimeout)
	defer cancelRelease()
	_, _ = chromedp.Call(c, cmdReleaseObject, map[string]any{"objectId": o.id})
}

// callOn runs the JavaScript function fn with the node as this and args as
// its arguments, and decodes its JSON result into out (which may be nil).
func (t *Tab) callOn(ctx context.Context, backendNodeID int64, fn string, out any, args ...any) error {
	n, err := t.node(ctx, backendNodeID)
	if err != nil {
		return err
	}
	defer n.release(ctx)
	return n.call(ctx, fn, out, args...)
}

// callPage runs the JavaScript function fn with the main frame's window as
// this and args as its arguments, and decodes its JSON result into out
// (which may be nil).
func (t *Tab) callPage(ctx context.Context, fn string, out any, args ...any) error {
	w, err := t.window(ctx)
	if err != nil {
		return err
	}
	defer w.release(ctx)
	return w.call(ctx, fn, out, args...)
}

// Evaluate runs a JavaScript expression in the main frame, awaiting a
// promise, and decodes its JSON result into out (which may be nil).
func (t *Tab) Evaluate(ctx context.Context, expr string, out any) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	res, err := chromedp.Call(c, cmdEvaluate, map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	})
	if err != nil {
		return err
	}
	return res.decode(out)
}

// Inspection is what the check before an action found out about a node, in
// one look: whether it is still there and the same, whether it can be acted
// on, and where to act.
type Inspection struct {
	// AXRole and AXName are the node's role and accessible name now.
	AXRole string
	AXName string
	// DocumentURL is the URL of the document that holds the node.
	DocumentURL string
	Tag         string
	InputType   string
	Editable    bool
	Disabled    bool
	ReadOnly    bool
	Scrollable  bool
	// Visible is false when the node has no box to act on.
	Visible bool
	// X and Y are the click point in main-viewport CSS pixels.
	X, Y float64
	// Covered names what a hit test at the click point landed on, when that
	// is not the node or inside it; empty otherwise.
	Covered string
}

// inspectResult is what inspectJS reports.
type inspectResult struct {
	Connected   bool    `json:"connected"`
	DocumentURL string  `json:"documentURL"`
	Tag         string  `json:"tag"`
	InputType   string  `json:"inputType"`
	Editable    bool    `json:"editable"`
	Disabled    bool    `json:"disabled"`
	ReadOnly    bool    `json:"readOnly"`
	Scrollable  bool    `json:"scrollable"`
	Visible     bool    `json:"visible"`
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	Covered     string  `json:"covered"`
}

type axValue struct {
	Value json.RawMessage `json:"value"`
}

func (v *axValue) String() string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return string(v.Value)
}

type partialAXTree struct {
	Nodes []struct {
		Ignored          bool     `json:"ignored"`
		Role             *axValue `json:"role"`
		Name             *axValue `json:"name"`
		BackendDOMNodeID int64    `json:"backendDOMNodeId"`
	} `json:"nodes"`
}

// Inspect checks a node before an action: the accessibility tree's role and
// name for it now and, in the same moment, its document, state, box and what
// a hit test at its click point lands on. With scroll, a node outside the
// viewport is scrolled into view first. It returns ErrDetached when the node
// is gone.
func (t *Tab) Inspect(ctx context.Context, backendNodeID int64, scroll bool) (*Inspection, error) {
	type axAnswer struct {
		role, name string
		err        error
	}
	axc := make(chan axAnswer, 1)
	go func() {
		c, cancel := t.cdp(ctx)
		defer cancel()
		tree, err := chromedp.Call(c, cmdPartialAXTree, map[string]any{"backendNodeId": backendNodeID, "fetchRelatives": false})
		if err != nil {
			axc <- axAnswer{err: err}
			return
		}
		for _, n := range tree.Nodes {
			if n.BackendDOMNodeID == backendNodeID {
				axc <- axAnswer{role: n.Role.String(), name: n.Name.String()}
				return
			}
		}
		axc <- axAnswer{}
	}()
	var r inspectResult
	err := t.callOn(ctx, backendNodeID, inspectJS, &r, scroll)
	ax := <-axc
	if err != nil {
		return nil, fmt.Errorf("inspect node %d: %w", backendNodeID, err)
	}
	if !r.Connected {
		return nil, fmt.Errorf("inspect node %d: %w", backendNodeID, ErrDetached)
	}
	if ax.err != nil {
		return nil, fmt.Errorf("inspect node %d: accessibility: %w", backendNodeID, ax.err)
	}
	return &Inspection{
		AXRole: ax.role, AXName: ax.name,
		DocumentURL: r.DocumentURL, Tag: r.Tag, InputType: r.InputType, Editable: r.Editable,
		Disabled: r.Disabled, ReadOnly: r.ReadOnly, Scrollable: r.Scrollable,
		Visible: r.Visible, X: r.X, Y: r.Y, Covered: r.Covered,
	}, nil
}

// Click presses and releases the left mouse button at x, y (main-viewport
// CSS pixels) after moving the pointer there, as a person's mouse does.
func (t *Tab) Click(ctx context.Context, x, y float64) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	for _, ev := range []map[string]any{
		{"type": "mouseMoved", "x": x, "y": y, "button": "none"},
		{"type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1},
		{"type": "mouseReleased", "x": x, "y": y, "button": "left", "buttons": 0, "clickCount": 1},
	} {
		if _, err := chromedp.Call(c, cmdDispatchMouse, ev); err != nil {
			return fmt.Errorf("click at %.0f,%.0f: %s: %w", x, y, ev["type"], err)
		}
	}
	return nil
}

// Wheel turns the mouse wheel by dx, dy CSS pixels with the pointer at x, y,
// so the page or the scrollable element under the pointer scrolls and
// scroll listeners (lazy loading) fire as they would for a person.
func (t *Tab) Wheel(ctx context.Context, x, y, dx, dy float64) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	// Raw params: the typed ones omit a zero deltaX, which Chromium rejects.
	_, err := chromedp.Call(c, cmdDispatchMouse, map[string]any{
		"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy,
	})
	if err != nil {
		return fmt.Errorf("wheel at %.0f,%.0f by %.0f,%.0f: %w", x, y, dx, dy, err)
	}
	return nil
}

// Type focuses a text field (input, textarea or contenteditable), replaces
// its content when clear is set, and types text with real input events, so
// that frameworks see every keystroke; a change event follows. It returns the
// field's value afterwards.
func (t *Tab) Type(ctx context.Context, backendNodeID int64, text string, clear bool) (string, error) {
	var hadContent bool
	if err := t.callOn(ctx, backendNodeID, focusAndSelectJS, &hadContent, clear); err != nil {
		return "", fmt.Errorf("focus: %w", err)
	}
	c, cancel := t.cdp(ctx)
	defer cancel()
	if text == "" && hadContent {
		for _, typ := range []string{"rawKeyDown", "keyUp"} {
			if _, err := chromedp.Call(c, cmdDispatchKeyEvent, map[string]any{
				"type": typ, "key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46,
			}); err != nil {
				return "", fmt.Errorf("clear: %w", err)
			}
		}
	}
	if text != "" {
		if _, err := chromedp.Call(c, cmdInsertText, map[string]any{"text": text}); err != nil {
			return "", fmt.Errorf("type: %w", err)
		}
	}
	var value string
	if err := t.callOn(ctx, backendNodeID, fireChangeJS, &value); err != nil {
		return "", fmt.Errorf("change: %w", err)
	}
	return value, nil
}

// SetValue sets the value of an input that has no text to type into (date,
// time, number, range, color), firing input and change. It returns the value
// the input holds afterwards; the input may refuse a malformed value and hold
// "".
func (t *Tab) SetValue(ctx context.Context, backendNodeID int64, value string) (string, error) {
	var got string
	if err := t.callOn(ctx, backendNodeID, setValueJS, &got, value); err != nil {
		return "", fmt.Errorf("set value: %w", err)
	}
	return got, nil
}

// ErrNoOption reports a select value that matches no option.
var ErrNoOption = errors.New("no such option")

// Selection is the option a Select picked.
type Selection struct {
	Value string
	Text  string
}

// Select picks the option of a select (or listbox) whose value or visible
// text is value. When none matches, the error wraps ErrNoOption and names the
// options there are.
func (t *Tab) Select(ctx context.Context, backendNodeID int64, value string) (Selection, error) {
	var r struct {
		OK       bool     `json:"ok"`
		Disabled bool     `json:"disabled"`
		Value    string   `json:"value"`
		Text     string   `json:"text"`
		Options  []string `json:"options"`
	}
	if err := t.callOn(ctx, backendNodeID, selectOptionJS, &r, value); err != nil {
		return Selection{}, fmt.Errorf("select %q: %w", value, err)
	}
	if r.Disabled {
		return Selection{}, fmt.Errorf("select %q: option %q is disabled: %w", value, r.Options[0], ErrNoOption)
	}
	if !r.OK {
		return Selection{}, fmt.Errorf("select %q: %w; the options are %q", value, ErrNoOption, r.Options)
	}
	return Selection{Value: r.Value, Text: r.Text}, nil
}

type layoutMetrics struct {
	CSSVisualViewport struct {
		PageX        float64 `json:"pageX"`
		PageY        float64 `json:"pageY"`
		ClientWidth  float64 `json:"clientWidth"`
		ClientHeight float64 `json:"clientHeight"`
	} `json:"cssVisualViewport"`
}

// ScrollIntoView brings the node into the viewport.
func (t *Tab) ScrollIntoView(ctx context.Context, backendNodeID int64) error {
	if err := t.callOn(ctx, backendNodeID, scrollElementJS, nil, ""); err != nil {
		return fmt.Errorf("scroll into view: %w", err)
	}
	return nil
}

// ScrollElementTo scrolls a scrollable node's content to its top or bottom.
func (t *Tab) ScrollElementTo(ctx context.Context, backendNodeID int64, edge string) error {
	if err := t.callOn(ctx, backendNodeID, scrollElementJS, nil, edge); err != nil {
		return fmt.Errorf("scroll element to %s: %w", edge, err)
	}
	return nil
}

// ScrollPageTo scrolls the page to its top or bottom edge, firing scroll
// events as any scroll does.
func (t *Tab) ScrollPageTo(ctx context.Context, edge string) error {
	if err := t.callPage(ctx, scrollPageJS, nil, edge); err != nil {
		return fmt.Errorf("scroll page to %s: %w", edge, err)
	}
	return nil
}

// Viewport returns the visible part of the page now.
func (t *Tab) Viewport(ctx context.Context) (capture.Viewport, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	m, err := chromedp.Call(c, cmdGetLayoutMetrics, map[string]any{})
	if err != nil {
		return capture.Viewport{}, fmt.Errorf("layout metrics: %w", err)
	}
	v := m.CSSVisualViewport
	return capture.Viewport{Width: v.ClientWidth, Height: v.ClientHeight, ScrollX: v.PageX, ScrollY: v.PageY}, nil
}

// The quiet watch counts a document's DOM changes and scrolls from the
// moment it is armed. Reading it reports -1 when the document that was armed
// is gone, which means a navigation replaced it.

// WaitQuiet waits until the page's DOM has had no change for the quiet
// window, at most for limit.
func (t *Tab) WaitQuiet(ctx context.Context, quiet, limit time.Duration) error {
	if _, err := t.quiet(ctx, quiet, limit, true); err != nil {
		return fmt.Errorf("wait for the page to settle: %w", err)
	}
	return nil
}

// armQuiet arms the quiet watch in the current document.
func (t *Tab) armQuiet(ctx context.Context) error {
	return t.callPage(ctx, armQuietWatchJS, nil)
}

// firstChange waits, for at most limit, for the first change since the watch
// was armed, and returns the count of changes then.
func (t *Tab) firstChange(ctx context.Context, limit time.Duration) (int, error) {
	var changes int
	err := t.callPage(ctx, waitFirstChangeJS, &changes, limit.Milliseconds())
	return changes, err
}

// quiet waits for the quiet window, at most for limit, arming the watch first
// when arm is set, and returns how many changes it saw since it was armed.
func (t *Tab) quiet(ctx context.Context, quiet, limit time.Duration, arm bool) (int, error) {
	// Arming and waiting run on one window, so that a document that goes away
	// between them fails the wait, as one that goes away during it does.
	w, err := t.window(ctx)
	if err != nil {
		return 0, err
	}
	defer w.release(ctx)
	if arm {
		if err := w.call(ctx, armQuietWatchJS, nil); err != nil {
			return 0, err
		}
	}
	var changes int
	err = w.call(ctx, waitQuietJS, &changes, quiet.Milliseconds(), limit.Milliseconds())
	return changes, err
}

var (
	evFrameStartedLoading = cdp.Event[json.RawMessage]{Method: "Page.frameStartedLoading"}
	evFrameStoppedLoading = cdp.Event[json.RawMessage]{Method: "Page.frameStoppedLoading"}
	evDialogOpening       = cdp.Event[dialogOpening]{Method: "Page.javascriptDialogOpening"}
	cmdHandleDialog       = cdp.Command[map[string]any, json.RawMessage]{Method: "Page.handleJavaScriptDialog"}
)

// dialogOpening is the payload of Page.javascriptDialogOpening, with the
// dialog type as a plain string.
type dialogOpening struct {
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"defaultPrompt"`
}

// navigationReport bounds how long after a document goes away its
// replacement's first loading event may take to arrive.
const navigationReport = 500 * time.Millisecond

// Outcome is what followed an action.
type Outcome struct {
	// Waited is how long the wait after the action took.
	Waited time.Duration
	// Alerts holds the messages of alerts the page showed; each was
	// accepted, since an alert asks nothing.
	Alerts []string
	// Dialog is a confirm, prompt or beforeunload dialog the action opened
	// and left for the agent to answer.
	Dialog *capture.Dialog
	// Capture is the page captured while it settled in place, with no
	// change from the start of the capture to the end of the quiet window
	// (only when Wait.Capture asked for it); nil when the page changed
	// meanwhile or the action navigated.
	Capture *capture.Page
}

// Wait says how Settle waits after an action.
type Wait struct {
	// Quiet is how long the page must go without a DOM change or a scroll
	// to count as settled in place; Limit caps the action and the wait.
	Quiet, Limit time.Duration
	// Capture, when set, has the result's capture taken while the page
	// settles in place, kept only if nothing changed from its start to the
	// end of the quiet window (Outcome.Capture).
	Capture *CaptureOptions
	// FirstChange makes that capture wait, for at most the quiet window,
	// for the action's first change: a scroll lands a frame after its input.
	FirstChange bool
}

// Settle runs act and then waits, within w.Limit, for what it started: when
// a frame started loading, until every frame that started has stopped
// loading; otherwise until the page has been quiet for w.Quiet. An alert that
// opens meanwhile is accepted and reported; a confirm, prompt or beforeunload
// dialog ends the wait and is left open for the agent. An act error is
// returned as it is; a wait past the limit returns an error wrapping
// context.DeadlineExceeded.
func (t *Tab) Settle(ctx context.Context, act func(context.Context) error, w Wait) (Outcome, error) {
	if w.Capture == nil {
		return t.settle(ctx, act, w.Limit, func(ctx context.Context, remaining time.Duration) (*capture.Page, error) {
			return nil, t.WaitQuiet(ctx, w.Quiet, remaining)
		})
	}
	return t.settle(ctx, act, w.Limit, func(ctx context.Context, remaining time.Duration) (*capture.Page, error) {
		start := time.Now()
		if err := t.armQuiet(ctx); err != nil {
			return nil, fmt.Errorf("wait for the page to settle: %w", err)
		}
		before := 0
		if w.FirstChange {
			var err error
			if before, err = t.firstChange(ctx, w.Quiet); err != nil {
				return nil, fmt.Errorf("wait for the page to change: %w", err)
			}
		}
		c, cerr := t.Capture(ctx, *w.Capture)
		after, err := t.quiet(ctx, w.Quiet, remaining-time.Since(start), false)
		if err != nil {
			return nil, fmt.Errorf("wait for the page to settle: %w", err)
		}
		if cerr != nil || before < 0 || after != before {
			return nil, nil // changed while captured: the caller captures anew
		}
		return c, nil
	})
}

// settle runs act and follows what it started; inPlace waits for a page
// that changed in place (no load) to settle, within the time remaining.
func (t *Tab) settle(ctx context.Context, act func(context.Context) error, limit time.Duration,
	inPlace func(ctx context.Context, remaining time.Duration) (*capture.Page, error)) (Outcome, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	started := make(chan struct{}, 64)
	stopped := make(chan struct{}, 64)
	dialogs := make(chan capture.Dialog, 8)
	forward := func(ev cdp.Event[json.RawMessage], to chan<- struct{}) {
		seq := chromedp.Events(c, ev)
		go func() {
			for _, err := range seq {
				if err != nil {
					return
				}
				select {
				case to <- struct{}{}:
				default:
				}
			}
		}()
	}
	forward(evFrameStartedLoading, started)
	forward(evFrameStoppedLoading, stopped)
	dseq := chromedp.Events(c, evDialogOpening)
	go func() {
		for d, err := range dseq {
			if err != nil {
				return
			}
			dialogs <- capture.Dialog{Type: d.Type, Message: d.Message, DefaultPrompt: d.DefaultPrompt}
		}
	}()

	var out Outcome
	// onDialog answers an alert and reports whether a dialog now waits for
	// the agent.
	onDialog := func(d capture.Dialog) bool {
		if d.Type != "alert" {
			out.Dialog = &d
			return true
		}
		out.Alerts = append(out.Alerts, d.Message)
		_, _ = chromedp.Call(c, cmdHandleDialog, map[string]any{"accept": true})
		return false
	}

	// The action runs beside the watch: an alert blocks the input event
	// that opened it until it is answered.
	actDone := make(chan error, 1)
	actCtx, actCancel := context.WithCancel(ctx)
	defer actCancel()
	go func() { actDone <- act(actCtx) }()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()

	// One loop follows the action through its phases: acting, then either
	// loading (a frame started loading: wait until every frame that started
	// has stopped) or settling in place (a quiet-DOM watch in the page). A
	// navigation reported before the input is acknowledged is counted while
	// acting; one that begins during the quiet watch ends the watch, and the
	// loop follows the load.
	begin := time.Now()
	acting, loading := true, 0
	// The in-place phase ends with the settle, whichever way it ends.
	phaseCtx, phaseCancel := context.WithCancel(ctx)
	defer phaseCancel()
	type inPlaceResult struct {
		capture *capture.Page
		err     error
	}
	var quietDone chan inPlaceResult
	var navGrace <-chan time.Time
	finish := func(err error) (Outcome, error) {
		out.Waited = time.Since(begin)
		return out, err
	}
	for {
		select {
		case err := <-actDone:
			if err != nil {
				return out, err
			}
			acting, begin = false, time.Now()
			if loading == 0 {
				quietDone = make(chan inPlaceResult, 1)
				remaining := limit - time.Since(begin)
				go func() {
					qctx, qcancel := context.WithTimeout(phaseCtx, remaining)
					defer qcancel()
					c, err := inPlace(qctx, remaining)
					quietDone <- inPlaceResult{c, err}
				}()
			}
		case <-started:
			loading++
		case <-stopped:
			if loading > 0 {
				loading--
			}
			if !acting && loading == 0 {
				return finish(nil)
			}
		case res := <-quietDone:
			quietDone = nil
			err := res.err
			switch {
			case loading > 0:
				continue // a navigation began: follow its load
			case err == nil:
				out.Capture = res.capture
				return finish(nil)
			case errors.Is(err, context.DeadlineExceeded) || time.Since(begin) >= limit:
				return finish(fmt.Errorf("the page did not settle within %s: %w", limit, context.DeadlineExceeded))
			}
			// The watch ended with its document: a navigation replaced it,
			// and its first loading event may still be on the way.
			navGrace = time.After(navigationReport)
		case <-navGrace:
			// The document went away but nothing loads: what replaced it
			// is there already.
			return finish(nil)
		case d := <-dialogs:
			if onDialog(d) {
				return finish(nil)
			}
		case <-deadline.C:
			what := "the page did not finish loading"
			switch {
			case acting:
				what = "the action did not finish"
			case loading == 0:
				what = "the page did not settle"
			}
			return finish(fmt.Errorf("%s within %s: %w", what, limit, context.DeadlineExceeded))
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}
