package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Frame is one picture of the screencast of a tab's current page.
type Frame struct {
	// JPEG is the picture.
	JPEG []byte
	// Width and Height are the page's viewport in CSS pixels, the space a
	// person's input is given in (PersonInput.X, Y).
	Width, Height float64
	// URL is the page's URL when the frame was taken.
	URL string
}

var (
	cmdStartScreencast    = cdp.Command[map[string]any, struct{}]{Method: "Page.startScreencast"}
	cmdStopScreencast     = cdp.Command[map[string]any, struct{}]{Method: "Page.stopScreencast"}
	cmdScreencastFrameAck = cdp.Command[map[string]any, struct{}]{Method: "Page.screencastFrameAck"}
)

// StartScreencast streams pictures of the tab's current page until ctx
// ends or the tab closes, when the channel closes. It follows the current page: a popup that
// becomes current, or a page reopened after a crash, is shown from then on.
// A receiver that falls behind misses frames, never delays the page: only
// the newest picture waits in the channel.
func (t *Tab) StartScreencast(ctx context.Context) (<-chan Frame, error) {
	if _, _, err := t.b.current(); err != nil {
		return nil, fmt.Errorf("start the screencast: %w", err)
	}
	out := make(chan Frame, 1)
	go func() {
		defer close(out)
		for ctx.Err() == nil {
			t.mu.Lock()
			closed := t.closed
			t.mu.Unlock()
			if closed {
				return
			}
			p, _, changed := t.pagesState()
			if err := t.castPage(ctx, p, changed, out); err != nil && ctx.Err() == nil {
				t.log.Debug("screencast of a page ended", "err", err)
				// The page crashed or closed: wait for its successor
				// rather than spin.
				select {
				case <-ctx.Done():
				case <-changed:
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
	}()
	return out, nil
}

// castPage streams p's frames into out until ctx ends, p goes away or the
// tab's pages change (changed closes).
func (t *Tab) castPage(ctx context.Context, p *tabPage, changed <-chan struct{}, out chan Frame) error {
	c, cancel := context.WithCancel(p.live)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	acks := make(chan int64, 8)
	err := chromedp.Listen(c, func(ev any) {
		f, ok := ev.(*page.EventScreencastFrame)
		if !ok {
			return
		}
		// Listen's fn must not call the browser: the ack is sent by the
		// loop below. A frame whose ack does not fit is acked late, never
		// dropped unacked, or Chromium stops sending.
		select {
		case acks <- f.SessionID:
		default:
			go func() {
				select {
				case acks <- f.SessionID:
				case <-c.Done():
				}
			}()
		}
		// cdproto decodes the base64 of Data already.
		if len(f.Data) == 0 || f.Metadata == nil {
			return
		}
		fr := Frame{JPEG: f.Data, Width: f.Metadata.DeviceWidth, Height: f.Metadata.DeviceHeight, URL: p.currentURL()}
		// Keep only the newest frame waiting.
		select {
		case <-out:
		default:
		}
		select {
		case out <- fr:
		default:
		}
	})
	if err != nil {
		return fmt.Errorf("listen to the screencast: %w", err)
	}
	call := func(cmd cdp.Command[map[string]any, struct{}], params map[string]any) error {
		cc, ccancel := within(context.Background(), c, defaultCallTimeout)
		defer ccancel()
		_, err := chromedp.Call(cc, cmd, params)
		return err
	}
	w, h := t.b.opts.ViewportWidth, t.b.opts.ViewportHeight
	if err := call(cmdStartScreencast, map[string]any{
		"format": "jpeg", "quality": 70, "maxWidth": w, "maxHeight": h, "everyNthFrame": 1,
	}); err != nil {
		return fmt.Errorf("start the screencast: %w", err)
	}
	defer func() {
		// The page may be gone; stopping is best effort, on a context of
		// its own since c has ended.
		sc, scancel := within(context.Background(), p.live, releaseTimeout)
		defer scancel()
		_, _ = chromedp.Call(sc, cmdStopScreencast, map[string]any{})
	}()
	for {
		select {
		case <-c.Done():
			if ctx.Err() != nil {
				return nil
			}
			return context.Cause(p.live)
		case <-changed:
			return nil
		case id := <-acks:
			if err := call(cmdScreencastFrameAck, map[string]any{"sessionId": id}); err != nil && c.Err() == nil {
				return fmt.Errorf("acknowledge a screencast frame: %w", err)
			}
		}
	}
}

// PersonInput is one mouse, wheel or key event of a person who took over
// the tab, from a live view of its page. Mouse coordinates are the page's
// viewport CSS pixels (Frame.Width, Frame.Height).
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

// DispatchPersonInput sends a person's event to the current page as the
// browser's own input, routed as the agent's is: the mouse at page
// coordinates goes through the page, whose compositor hands it to the frame
// under the pointer, cross-site frames included; keys go to the page, which
// routes them to the focused frame.
func (t *Tab) DispatchPersonInput(ctx context.Context, ev PersonInput) error {
	if err := ev.Validate(); err != nil {
		return err
	}
	c, cancel := t.cdp(ctx)
	defer cancel()
	var err error
	switch ev.Type {
	case "keyDown", "keyUp":
		typ := ev.Type
		params := map[string]any{
			"key": ev.Key, "code": ev.Code, "modifiers": ev.Modifiers,
			"windowsVirtualKeyCode": ev.KeyCode, "nativeVirtualKeyCode": ev.KeyCode,
		}
		if typ == "keyDown" {
			typ = "rawKeyDown"
			// A character types only without Ctrl, Alt or Meta, which make
			// the key a shortcut.
			if ev.Text != "" && ev.Modifiers&7 == 0 {
				typ = "keyDown"
				params["text"], params["unmodifiedText"] = ev.Text, ev.Text
			}
		}
		params["type"] = typ
		_, err = chromedp.Call(c, cmdDispatchKeyEvent, params)
	default:
		button := ev.Button
		if button == "" {
			button = "none"
		}
		params := map[string]any{
			"type": ev.Type, "x": ev.X, "y": ev.Y, "button": button,
			"clickCount": ev.ClickCount, "modifiers": ev.Modifiers,
		}
		if ev.Type == "mousePressed" {
			params["buttons"] = map[string]int{"left": 1, "right": 2, "middle": 4}[button]
		}
		if ev.Type == "mouseWheel" {
			params["deltaX"], params["deltaY"] = ev.DeltaX, ev.DeltaY
		}
		_, err = chromedp.Call(c, cmdDispatchMouse, params)
	}
	if err != nil {
		return fmt.Errorf("a person's %s: %w", ev.Type, err)
	}
	return nil
}
