package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
)

// The whole mouse: a click with another button, several presses in a row
// (a double click), or keys held. Each press is its own input, judged and
// confirmed as a click is (deliver.go): the pointer goes there, the
// element must still be under it, and a record hears whether the press
// reached it; a double click's second press is looked at anew before it
// goes. See docs/architecture.md, "One tool call".

// Mouse is how a click uses the mouse, as a person's hand does.
type Mouse struct {
	// Button is "left" (or ""), "middle" or "right".
	Button string
	// Count is how many presses in a row, 1 (or 0) to 3: the page sees
	// click, click, dblclick for 2, the event's detail counting up.
	Count int
	// Modifiers are the keys held, each one of "Alt", "Control", "Meta"
	// and "Shift".
	Modifiers []string
}

// buttonBits are the buttons' bits of Input.dispatchMouseEvent; the keys'
// are modifierBits (keys.go).
var buttonBits = map[string]int{"left": 1, "right": 2, "middle": 4}

// errBadMouse reports a Mouse the browser cannot send.
var errBadMouse = errors.New("not a mouse input")

// check reports a button, count or key the browser cannot send.
func (m Mouse) check() error {
	if _, ok := buttonBits[m.button()]; !ok {
		return fmt.Errorf("button %q: %w", m.Button, errBadMouse)
	}
	if m.Count < 0 || m.Count > 3 {
		return fmt.Errorf("%d presses: %w", m.Count, errBadMouse)
	}
	for _, k := range m.Modifiers {
		if _, ok := modifierBits[k]; !ok {
			return fmt.Errorf("key %q: %w", k, errBadMouse)
		}
	}
	return nil
}

func (m Mouse) button() string {
	if m.Button == "" {
		return "left"
	}
	return m.Button
}

func (m Mouse) count() int { return max(m.Count, 1) }

func (m Mouse) modifiers() int64 {
	var bits int64
	for _, k := range m.Modifiers {
		bits |= modifierBits[k]
	}
	return bits
}

// press names press n of the click, as a message says it: "click",
// "right click", "second click".
func (m Mouse) press(n int) string {
	name := "click"
	if b := m.button(); b != "left" {
		name = b + " click"
	}
	if n > 1 {
		name = []string{"", "", "second ", "third "}[n] + name
	}
	return name
}

// clickEvents says which events end a press of kind (press names it): the
// one that says it reached its element (click; contextmenu for the right
// button, which opens the menu on the press; auxclick for the middle), and
// the last one of the press, until which what reaches anything else is
// stopped (a double click's dblclick, the right button's auxclick). Input
// other than a click has none.
func clickEvents(kind string) (end, last string) {
	switch {
	case strings.HasSuffix(kind, "right click"):
		return "contextmenu", "auxclick"
	case strings.HasSuffix(kind, "middle click"):
		return "auxclick", "auxclick"
	case strings.HasPrefix(kind, "second "):
		return "click", "dblclick"
	case strings.HasSuffix(kind, "click"):
		return "click", "click"
	}
	return "", ""
}

// pressButton presses and releases button of m at x, y, where the pointer
// is, as press n of the click: the event's click count says which, so the
// page sees a double click's second click with detail 2 and its dblclick.
func (t *Context) pressButton(ctx context.Context, x, y float64, m Mouse, n int) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	b, mods := m.button(), m.modifiers()
	for _, ev := range []map[string]any{
		{"type": "mousePressed", "x": x, "y": y, "button": b, "buttons": buttonBits[b], "clickCount": n, "modifiers": mods},
		{"type": "mouseReleased", "x": x, "y": y, "button": b, "buttons": 0, "clickCount": n, "modifiers": mods},
	} {
		if _, err := chromedp.Call(c, cmdDispatchMouse, ev); err != nil {
			return fmt.Errorf("%s at %.0f,%.0f: %s: %w", m.press(n), x, y, ev["type"], err)
		}
	}
	return nil
}

// ClickElementWith is ClickElement with the mouse m: each press of it is
// sent, judged and confirmed as a click is, the first tried once more
// where the node is then if it missed. Before every press after the first,
// again (when set) says whether the node is still what was approved (what
// the first press did may have changed it); its error stops the click
// there. A later press that misses is a DeliveryError saying how many
// reached the node: sending it again would make another gesture.
func (t *Context) ClickElementWith(ctx context.Context, backendNodeID int64, x, y float64, m Mouse, again func(context.Context) error) error {
	if err := m.check(); err != nil {
		return err
	}
	node := nodeOf(backendNodeID)
	for n := 1; n <= m.count(); n++ {
		if n > 1 && again != nil {
			if err := again(ctx); err != nil {
				return err
			}
		}
		tries := 2
		if n > 1 {
			tries = 1
		}
		var err error
		x, y, err = t.deliverTries(ctx, node, m.press(n), x, y, tries, t.clickOnWith(node, m, n))
		if err != nil {
			return pressedBefore(err, n)
		}
	}
	return nil
}

// ClickAtWith is ClickAt with the mouse m, press by press as
// ClickElementWith: a press after the first goes only when the same
// element is still judged at the same point, and again agrees.
func (t *Context) ClickAtWith(ctx context.Context, at PointTarget, m Mouse, again func(context.Context) error) error {
	if err := m.check(); err != nil {
		return err
	}
	for n := 1; n <= m.count(); n++ {
		if n > 1 {
			now, err := t.ElementAt(ctx, at.At.X, at.At.Y)
			if err != nil && !errors.Is(err, ErrNothingAt) {
				return fmt.Errorf("%s at %s: %w", m.press(n), at.At, err)
			}
			if now != at {
				return pressedBefore(&DeliveryError{Input: m.press(n), Received: "what is at the point now (not pressed)"}, n)
			}
			if again != nil {
				if err := again(ctx); err != nil {
					return err
				}
			}
		}
		tries := 2
		if n > 1 {
			tries = 1
		}
		if err := t.deliverAtTries(ctx, at, m.press(n), tries, t.clickOnWith(nodeOf(at.Node), m, n)); err != nil {
			return pressedBefore(err, n)
		}
	}
	return nil
}

// pressedBefore notes on a DeliveryError of press n how many presses
// before it reached the element.
func pressedBefore(err error, n int) error {
	var d *DeliveryError
	if errors.As(err, &d) {
		d.Pressed = n - 1
	}
	return err
}
