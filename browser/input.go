package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/chromedp"
)

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
func (t *Tab) Type(ctx context.Context, backendNodeID int64, text string, clear bool) (string, error) {
	var hadContent bool
	if err := t.callOn(ctx, backendNodeID, focusAndSelectJS, &hadContent, clear); err != nil {
		return "", fmt.Errorf("focus: %w", err)
	}
	// Keys go to the process of the node's frame, where the focus is.
	c, cancel, _, _, err := t.nodeSession(ctx, backendNodeID)
	if err != nil {
		return "", fmt.Errorf("type: %w", err)
	}
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

// MaskText draws a field's text as discs, the way a password field's is, so
// that screenshots never show a secret typed into a field of another kind.
// It changes how the field looks, not its value.
func (t *Tab) MaskText(ctx context.Context, backendNodeID int64) error {
	if err := t.callOn(ctx, backendNodeID, maskTextJS, nil); err != nil {
		return fmt.Errorf("mask text: %w", err)
	}
	return nil
}
