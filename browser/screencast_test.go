package browser_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// A person's input, from the live view, reaches the page as the browser's
// own: a click at page coordinates focuses the field under it, keys type
// into it; and the screencast shows the page.
func TestPersonInputReachesThePage(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := tab.Navigate(ctx, browsertest.Site(t)+"/hostile/takeover-login"); err != nil {
		t.Fatal(err)
	}
	cctx, stop := context.WithCancel(ctx)
	frames, err := tab.StartScreencast(cctx)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-frames:
		if len(f.JPEG) < 3 || f.JPEG[0] != 0xff || f.JPEG[1] != 0xd8 || f.Width <= 0 || f.Height <= 0 {
			t.Errorf("frame: %d bytes, %vx%v", len(f.JPEG), f.Width, f.Height)
		}
	case <-ctx.Done():
		t.Fatal("no screencast frame")
	}
	for _, ev := range []browser.PersonInput{
		{Type: "mouseMoved", X: 240, Y: 140},
		{Type: "mousePressed", X: 240, Y: 140, Button: "left", ClickCount: 1},
		{Type: "mouseReleased", X: 240, Y: 140, Button: "left", ClickCount: 1},
		{Type: "keyDown", Key: "H", Code: "KeyH", Text: "H", KeyCode: 72, Modifiers: 8},
		{Type: "keyUp", Key: "H", Code: "KeyH", KeyCode: 72, Modifiers: 8},
		{Type: "keyDown", Key: "i", Code: "KeyI", Text: "i", KeyCode: 73},
		{Type: "keyUp", Key: "i", Code: "KeyI", KeyCode: 73},
		// A shortcut types nothing.
		{Type: "keyDown", Key: "a", Code: "KeyA", Text: "a", KeyCode: 65, Modifiers: 2},
		{Type: "keyUp", Key: "a", Code: "KeyA", KeyCode: 65, Modifiers: 2},
	} {
		if err := tab.DispatchPersonInput(ctx, ev); err != nil {
			t.Fatalf("%+v: %v", ev, err)
		}
	}
	var got string
	if err := tab.Evaluate(ctx, `document.getElementById("user").value`, &got); err != nil {
		t.Fatal(err)
	}
	if got != "Hi" {
		t.Errorf("the field holds %q, want Hi", got)
	}
	stop()
	for range frames { // the channel closes once the screencast stops
	}
	// Bad input never reaches the browser.
	if err := tab.DispatchPersonInput(ctx, browser.PersonInput{Type: "mouseMoved", X: math.Inf(1)}); !errors.Is(err, browser.ErrBadInput) {
		t.Errorf("an infinite coordinate: %v", err)
	}
	if err := tab.DispatchPersonInput(ctx, browser.PersonInput{Type: "char", Key: "a"}); !errors.Is(err, browser.ErrBadInput) {
		t.Errorf("an unknown type: %v", err)
	}
}
