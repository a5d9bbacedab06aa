package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
)

// takeoverFrame waits for a frame on ch, failing the test after a minute.
func takeoverFrame(t *testing.T, ch <-chan browser.Frame) browser.Frame {
	t.Helper()
	select {
	case f, ok := <-ch:
		if !ok {
			t.Fatal("the live view's channel closed")
		}
		return f
	case <-time.After(time.Minute):
		t.Fatal("no frame")
	}
	return browser.Frame{}
}

// Two live views of one session share its screencast: both see the page,
// a second one gets the newest frame at once even on a still page, and one
// leaving does not stop the other.
func TestTakeoverViewersShareTheScreencast(t *testing.T) {
	t.Parallel()
	h := open(t, "/hostile/takeover-login")
	ctx := t.Context()
	aCtx, aLeave := context.WithCancel(ctx)
	a, err := h.s.Screencast(aCtx)
	if err != nil {
		t.Fatal(err)
	}
	takeoverFrame(t, a)
	b, err := h.s.Screencast(ctx)
	if err != nil {
		t.Fatal(err)
	}
	takeoverFrame(t, b) // the newest frame, though nothing changed
	aLeave()
	for range a { // closes once a leaves
	}
	h.s.TakeOver()
	for _, ev := range []browser.PersonInput{
		{Type: "mousePressed", X: 240, Y: 140, Button: "left", ClickCount: 1},
		{Type: "mouseReleased", X: 240, Y: 140, Button: "left", ClickCount: 1},
		{Type: "keyDown", Key: "x", Code: "KeyX", Text: "x", KeyCode: 88},
		{Type: "keyUp", Key: "x", Code: "KeyX", KeyCode: 88},
	} {
		if err := h.s.PersonInput(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	takeoverFrame(t, b) // the typing shows
	h.s.HandBack("typed x")
	if err := h.s.PersonInput(ctx, browser.PersonInput{Type: "keyDown", Key: "y", Text: "y"}); err != ErrNotTaken {
		t.Errorf("input after the hand-back: %v, want ErrNotTaken", err)
	}
	s := h.snap(true)
	if note := strings.Join(s.Notes, "\n"); !strings.Contains(note, "handed it back: typed x.") {
		t.Errorf("notes: %q", s.Notes)
	}
}
