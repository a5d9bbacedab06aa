package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Click presses and releases the left mouse button at x, y (main-viewport
// CSS pixels) after moving the pointer there, as a person's mouse does.
func (t *Context) Click(ctx context.Context, x, y float64) error {
	if err := t.Hover(ctx, x, y); err != nil {
		return fmt.Errorf("click at %.0f,%.0f: %w", x, y, err)
	}
	return t.press(ctx, x, y)
}

// press presses and releases the left mouse button at x, y, where the
// pointer is.
func (t *Context) press(ctx context.Context, x, y float64) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	for _, ev := range []map[string]any{
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
func (t *Context) Wheel(ctx context.Context, x, y, dx, dy float64) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	// The pointer moves there first, as a person's does: without it, a
	// wheel over a cross-site frame just after a click elsewhere at times
	// scrolled the page instead of the box under the pointer.
	_, err := chromedp.Call(c, cmdDispatchMouse, map[string]any{"type": "mouseMoved", "x": x, "y": y, "button": "none"})
	if err == nil {
		// Raw params: the typed ones omit a zero deltaX, which Chromium
		// rejects.
		_, err = chromedp.Call(c, cmdDispatchMouse, map[string]any{
			"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy,
		})
	}
	if err != nil {
		return fmt.Errorf("wheel at %.0f,%.0f by %.0f,%.0f: %w", x, y, dx, dy, err)
	}
	return nil
}

// Type focuses a text field (input, textarea or contenteditable), replaces
// its content when clear is set, and types text with real input events, so
// that frameworks see every keystroke; a change event follows. It returns the
// field's value afterwards.
func (t *Context) Type(ctx context.Context, backendNodeID int64, text string, clear bool) (string, error) {
	typed, err := t.typeText(ctx, backendNodeID, text, clear, false, false)
	return typed.Value, err
}

// Typed is what typing into a field left.
type Typed struct {
	// Value is the field's value after its change event.
	Value string
	// Shown is how many elements of the field's document, outside it,
	// showed the text typed as their whole text just before the change
	// event (ShowsText counts them again).
	Shown int
}

// TypeText is Type, or with keys TypeKeys, and says how many elements
// showed the text typed before the field's change event: a page that
// takes the value on change (it adds a todo and empties the field) is
// told from one that dropped it by what it shows afterwards (ShowsText).
func (t *Context) TypeText(ctx context.Context, backendNodeID int64, text string, clear, keys bool) (Typed, error) {
	return t.typeText(ctx, backendNodeID, text, clear, keys, true)
}

// ShowsText counts the elements of the document of the field
// backendNodeID, outside it, that a person sees showing text as their
// whole text (compared as a fill's value is: letters and digits,
// lower-cased).
func (t *Context) ShowsText(ctx context.Context, backendNodeID int64, text string) (int, error) {
	var n int
	if err := t.callOn(ctx, nodeOf(backendNodeID), shownTextJS, &n, text); err != nil {
		return 0, fmt.Errorf("find the text typed on the page: %w", err)
	}
	return n, nil
}

// typeText is Type; with keys, text is typed key by key (typeKeys). With
// countShown, the script that sends the change event first counts the
// elements showing the text (Typed.Shown), in the same call.
func (t *Context) typeText(ctx context.Context, backendNodeID int64, text string, clear, keys, countShown bool) (Typed, error) {
	node := nodeOf(backendNodeID)
	var ready struct {
		Had     bool   `json:"had"`
		Moved   string `json:"moved"`
		Changed bool   `json:"changed"`
	}
	if err := t.callOn(ctx, node, focusAndSelectJS, &ready, clear); err != nil {
		return Typed{}, fmt.Errorf("focus: %w", err)
	}
	switch {
	case ready.Moved != "":
		return Typed{}, &ChangedError{Input: "type", Now: fmt.Sprintf("as the field took focus, the page moved the focus to %s", ready.Moved)}
	case ready.Changed:
		return Typed{}, &ChangedError{Input: "type", Now: "as the field took focus, the page changed it (its content, type or name)"}
	}
	// Keys go to the process of the node's frame, where the focus is.
	r, err := t.route(ctx, node)
	if err != nil {
		return Typed{}, fmt.Errorf("type: %w", err)
	}
	defer r.cancel()
	c := r.ctx
	// A handler may move the focus later than the focus event (a timer):
	// the text must go where it was judged to go.
	if err := t.stillFocused(ctx, node, true, "before typing"); err != nil {
		return Typed{}, err
	}
	if text == "" && ready.Had {
		for _, typ := range []string{"rawKeyDown", "keyUp"} {
			if _, err := chromedp.Call(c, cmdDispatchKeyEvent, map[string]any{
				"type": typ, "key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46,
			}); err != nil {
				return Typed{}, fmt.Errorf("clear: %w", err)
			}
		}
	}
	if text != "" && keys {
		if err := t.typeKeys(ctx, c, node, text); err != nil {
			return Typed{}, fmt.Errorf("type: %w", err)
		}
	} else if text != "" {
		if _, err := chromedp.Call(c, cmdInsertText, map[string]any{"text": text}); err != nil {
			return Typed{}, fmt.Errorf("type: %w", err)
		}
	}
	var end struct {
		Value    string `json:"value"`
		Withheld bool   `json:"withheld"`
		Shown    int    `json:"shown"`
	}
	change := fireChangeJS
	if countShown {
		change = countAndFireChangeJS
	}
	if err := t.callOn(ctx, node, change, &end, text, clear); err != nil {
		return Typed{}, fmt.Errorf("change: %w", err)
	}
	if end.Withheld {
		t.log.Debug("type: the field does not hold the text typed; no change event sent")
	}
	return Typed{Value: end.Value, Shown: end.Shown}, nil
}

// SetValue sets the value of an input that has no text to type into (date,
// time, number, range, color), firing input and change. It returns the value
// the input holds afterwards; the input may refuse a malformed value and hold
// "".
func (t *Context) SetValue(ctx context.Context, backendNodeID int64, value string) (string, error) {
	var got string
	if err := t.callOn(ctx, nodeOf(backendNodeID), setValueJS, &got, value); err != nil {
		return "", fmt.Errorf("set value: %w", err)
	}
	return got, nil
}

// MaskText draws a field's text as discs, the way a password field's is, so
// that screenshots never show a secret typed into a field of another kind.
// It changes how the field looks, not its value.
func (t *Context) MaskText(ctx context.Context, backendNodeID int64) error {
	if err := t.callOn(ctx, nodeOf(backendNodeID), maskTextJS, nil); err != nil {
		return fmt.Errorf("mask text: %w", err)
	}
	return nil
}

// Hover moves the mouse pointer to x, y with no button down, so that the
// page sees mouseover, mouseenter and :hover as for a person's pointer.
func (t *Context) Hover(ctx context.Context, x, y float64) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, cmdDispatchMouse, map[string]any{"type": "mouseMoved", "x": x, "y": y, "button": "none"}); err != nil {
		return fmt.Errorf("hover at %.0f,%.0f: %w", x, y, err)
	}
	return nil
}

// dragSteps is how many pointer moves a drag makes between its ends at
// least: pointer based sortable lists need several moves past their
// threshold to follow. A longer drag moves at most dragStride pixels at a
// time, up to maxDragSteps moves, as a person's hand passes each item of a
// list on the way (a sortable list moves one item per move, as the pointer
// passes its midpoint).
const (
	dragSteps    = 10
	dragStride   = 6
	maxDragSteps = 80
)

// dragNotice bounds how long Drag waits for Chromium to say that the page
// started an HTML5 drag after the first move, once the page has handled
// that move.
const dragNotice = 100 * time.Millisecond

var (
	cmdSetInterceptDrags = cdp.Command[map[string]any, json.RawMessage]{Method: "Input.setInterceptDrags"}
	cmdDispatchDrag      = cdp.Command[map[string]any, json.RawMessage]{Method: "Input.dispatchDragEvent"}
	evDragIntercepted    = cdp.Event[struct {
		Data json.RawMessage `json:"data"`
	}]{Method: "Input.dragIntercepted"}
)

// Drag presses the left button at from, moves the pointer in steps to to and
// releases it there. A page that starts an HTML5 drag (draggable) gets the
// drag's events (dragenter, dragover, drop) at to, as a person's drag
// would give it; one that follows the pointer (a sortable list on pointer or
// mouse events) gets every move.
func (t *Context) Drag(ctx context.Context, fromX, fromY, toX, toY float64) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	mouse := func(typ string, x, y float64, buttons int) error {
		ev := map[string]any{"type": typ, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1}
		if typ == "mouseMoved" {
			ev["clickCount"] = 0
		}
		if _, err := chromedp.Call(c, cmdDispatchMouse, ev); err != nil {
			return fmt.Errorf("drag: %s at %.0f,%.0f: %w", typ, x, y, err)
		}
		return nil
	}
	// An HTML5 drag does not run in a page without a window system: Chromium
	// hands it over instead (Input.dragIntercepted), and the drag's events
	// are dispatched to the page from here.
	intercepted, stop, err := intercept(ctx, t, cmdSetInterceptDrags, evDragIntercepted)
	if err != nil {
		return fmt.Errorf("drag: intercept: %w", err)
	}
	defer stop()
	if err := mouse("mouseMoved", fromX, fromY, 0); err != nil {
		return err
	}
	if err := mouse("mousePressed", fromX, fromY, 1); err != nil {
		return err
	}
	steps := min(maxDragSteps, max(dragSteps, int(math.Hypot(toX-fromX, toY-fromY)/dragStride)))
	at := func(i int) (float64, float64) {
		f := float64(i) / float64(steps)
		return fromX + (toX-fromX)*f, fromY + (toY-fromY)*f
	}
	x, y := at(1)
	if err := mouse("mouseMoved", x, y, 1); err != nil {
		return err
	}
	// The page has handled the move once a script has run after it; a
	// drag it started has been reported by then or very soon after.
	if err := t.Evaluate(ctx, "new Promise(r => setTimeout(r, 0))", nil); err != nil {
		return fmt.Errorf("drag: %w", err)
	}
	var data json.RawMessage
	select {
	case ev := <-intercepted:
		data = ev.Data
	case <-time.After(dragNotice):
	}
	if data == nil {
		for i := 2; i <= steps; i++ {
			x, y := at(i)
			if err := mouse("mouseMoved", x, y, 1); err != nil {
				return err
			}
		}
		return mouse("mouseReleased", toX, toY, 0)
	}
	drag := func(typ string, x, y float64) error {
		if _, err := chromedp.Call(c, cmdDispatchDrag, map[string]any{"type": typ, "x": x, "y": y, "data": data}); err != nil {
			return fmt.Errorf("drag: %s at %.0f,%.0f: %w", typ, x, y, err)
		}
		return nil
	}
	if err := drag("dragEnter", x, y); err != nil {
		return err
	}
	for i := 2; i <= steps; i++ {
		x, y := at(i)
		if err := drag("dragOver", x, y); err != nil {
			return err
		}
	}
	if err := drag("drop", toX, toY); err != nil {
		return err
	}
	return mouse("mouseReleased", toX, toY, 0)
}
