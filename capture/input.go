package capture

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// PersonInput is one mouse, wheel or key event of a person who took over
// the browser, from a live view of its page: data only, checked by Validate
// before anything sends it. Mouse coordinates are the page's viewport CSS
// pixels.
type PersonInput struct {
	// Type is mouseMoved, mousePressed, mouseReleased, mouseWheel,
	// keyDown or keyUp.
	Type string `json:"type"`
	// X, Y: where the pointer is, for mouse and wheel events.
	X float64 `json:"x"`
	Y float64 `json:"y"`
	// Button is none, left, middle or right; ClickCount 0 to 3.
	Button     string `json:"button,omitempty"`
	ClickCount int    `json:"clickCount,omitempty"`
	// DeltaX, DeltaY: how far a wheel turns.
	DeltaX float64 `json:"deltaX,omitempty"`
	DeltaY float64 `json:"deltaY,omitempty"`
	// Key and Code are the DOM KeyboardEvent's key and code; Text is what a
	// key types (one character, or empty); KeyCode its Windows key code.
	Key     string `json:"key,omitempty"`
	Code    string `json:"code,omitempty"`
	Text    string `json:"text,omitempty"`
	KeyCode int    `json:"keyCode,omitempty"`
	// Modifiers: Alt 1, Ctrl 2, Meta 4, Shift 8.
	Modifiers int `json:"modifiers,omitempty"`
}

// ErrBadInput reports a PersonInput that is not a known, well-formed event.
var ErrBadInput = errors.New("bad input event")

// maxCoord bounds coordinates and wheel deltas: far beyond any viewport,
// well within what the protocol takes.
const maxCoord = 100_000

// Validate checks that ev is a known event with its values in range.
func (ev PersonInput) Validate() error {
	bad := func(why string) error { return fmt.Errorf("%w: %s", ErrBadInput, why) }
	inRange := func(v, lo, hi float64) bool { return !math.IsNaN(v) && v >= lo && v <= hi }
	if ev.Modifiers < 0 || ev.Modifiers > 15 {
		return bad("modifiers must be 0 to 15")
	}
	switch ev.Type {
	case "mouseMoved", "mousePressed", "mouseReleased", "mouseWheel":
		if !inRange(ev.X, 0, maxCoord) || !inRange(ev.Y, 0, maxCoord) {
			return bad("x and y must be within the page")
		}
		switch ev.Button {
		case "", "none", "left", "middle", "right":
		default:
			return bad("button must be none, left, middle or right")
		}
		if ev.ClickCount < 0 || ev.ClickCount > 3 {
			return bad("clickCount must be 0 to 3")
		}
		if !inRange(ev.DeltaX, -maxCoord, maxCoord) || !inRange(ev.DeltaY, -maxCoord, maxCoord) {
			return bad("deltaX and deltaY out of range")
		}
		if ev.Key != "" || ev.Code != "" || ev.Text != "" || ev.KeyCode != 0 {
			return bad("a mouse event carries no key")
		}
	case "keyDown", "keyUp":
		if ev.Key == "" || len(ev.Key) > 32 || !utf8.ValidString(ev.Key) {
			return bad("key must be a DOM key name")
		}
		if len(ev.Code) > 32 || !utf8.ValidString(ev.Code) {
			return bad("code too long")
		}
		if utf8.RuneCountInString(ev.Text) > 1 || !utf8.ValidString(ev.Text) {
			return bad("text must be one character at most")
		}
		if r, _ := utf8.DecodeRuneInString(ev.Text); ev.Text != "" && r < 0x20 && r != '\r' && r != '\t' {
			return bad("text must be printable")
		}
		if ev.KeyCode < 0 || ev.KeyCode > 255 {
			return bad("keyCode must be 0 to 255")
		}
		if ev.X != 0 || ev.Y != 0 || ev.Button != "" || ev.ClickCount != 0 || ev.DeltaX != 0 || ev.DeltaY != 0 {
			return bad("a key event carries no pointer")
		}
	default:
		return bad("unknown event type " + fmt.Sprintf("%.20q", ev.Type))
	}
	return nil
}
