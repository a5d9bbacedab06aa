package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/toolapi"
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

// A call waiting for its pace when a person takes over is stopped: the
// takeover returns once the call no longer touches the browser, the call
// answers that a person has the browser and did nothing, and the page
// heard no click.
func TestTakeoverStopsACallWaitingForItsPace(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/hostile/takeover-pace", Config{MaxActionsPerMinute: 1})
	waiting := make(chan struct{}, 1)
	h.s.polite.sleep = func(ctx context.Context, d time.Duration) error {
		waiting <- struct{}{}
		<-ctx.Done()
		return context.Cause(ctx)
	}
	next := func() string {
		e, ok := h.snap(true).Find("button", "Next photo")
		if !ok {
			t.Fatal("no Next photo button")
		}
		return e.Ref
	}
	if r := h.act(toolapi.Click, map[string]any{"ref": next()}); !r.Success {
		t.Fatalf("the first click: %v %s", r.Error, r.Message)
	}
	ref := next()
	done := make(chan toolapi.ActionResult, 1)
	go func() { done <- h.act(toolapi.Click, map[string]any{"ref": ref}) }()
	<-waiting
	h.s.TakeOver()
	h.s.wheel.mu.Lock()
	running := h.s.wheel.running
	h.s.wheel.mu.Unlock()
	if running != nil {
		t.Error("TakeOver returned while the agent's call was still in flight")
	}
	r := <-done
	if r.Success || r.Error == nil || *r.Error != toolapi.ActionFailed || !strings.Contains(r.Message, "A person has the browser") || !strings.Contains(r.Message, "Nothing was done") {
		t.Errorf("the stopped call: error %v, %q; want action_failed: a person has the browser, nothing was done", r.Error, r.Message)
	}
	h.s.HandBack("")
	if s := h.snap(true); !strings.Contains(s.Text, "Photo clicks: 1 ") {
		t.Errorf("the page heard a click while a person had the browser:\n%s", s.Text)
	}
}
