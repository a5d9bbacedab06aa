package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
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
	// Time is when the compositor drew it.
	Time time.Time
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
func (t *Context) StartScreencast(ctx context.Context) (<-chan Frame, error) {
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

// SetScreencastPace sets the least time between two frames of the tab's
// screencast: a recording needs a few frames a second, and each frame
// costs the browser an encoding; a person watching live wants 0, every
// frame the compositor draws.
func (t *Context) SetScreencastPace(d time.Duration) { t.castPace.Store(int64(d)) }

// castPage streams p's frames into out until ctx ends, p goes away or the
// tab's pages change (changed closes).
func (t *Context) castPage(ctx context.Context, p *tabPage, changed <-chan struct{}, out chan Frame) error {
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
		fr := Frame{JPEG: f.Data, Width: f.Metadata.DeviceWidth, Height: f.Metadata.DeviceHeight, URL: p.currentURL(), Time: time.Now()}
		if ts := float64(f.Metadata.Timestamp); ts > 0 {
			fr.Time = time.UnixMicro(int64(ts * 1e6))
		}
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
	var acked time.Time
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
			// Chromium draws and encodes the next frame only once this
			// one is acknowledged: the pace holds it back.
			if wait := time.Duration(t.castPace.Load()) - time.Since(acked); wait > 0 {
				select {
				case <-c.Done():
					continue
				case <-time.After(wait):
				}
			}
			acked = time.Now()
			if err := call(cmdScreencastFrameAck, map[string]any{"sessionId": id}); err != nil && c.Err() == nil {
				return fmt.Errorf("acknowledge a screencast frame: %w", err)
			}
		}
	}
}

// PersonInput is one mouse, wheel or key event of a person who took over
// the tab (capture.PersonInput, which the console validates too).
type PersonInput = capture.PersonInput

// ErrBadInput reports a PersonInput that is not a known, well-formed event.
var ErrBadInput = capture.ErrBadInput

// DispatchPersonInput sends a person's event to the current page as the
// browser's own input, routed as the agent's is: the mouse at page
// coordinates goes through the page, whose compositor hands it to the frame
// under the pointer, cross-site frames included; keys go to the page, which
// routes them to the focused frame.
func (t *Context) DispatchPersonInput(ctx context.Context, ev PersonInput) error {
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
