package browser_test

import (
	"testing"

	"github.com/chromedp/cdproto/runtime"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestCaptureKeepsRendererAlive: captures between key presses on a
// jQuery-UI-like slider, with the slider's value read after each press as
// browser_fill does, leave the page alive. Asking DOMDebugger for the
// listeners with pierce crashed this renderer on the third or fourth
// capture; a page must not be able to crash it through what a capture asks.
func TestCaptureKeepsRendererAlive(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/widgets3/slider")
	s, table, _ := snapshot.Build(captureOf(t, tab, browser.CaptureOptions{}), snapshot.Options{}, 1)
	var handles []int64
	for _, e := range s.Elements {
		if e.Role == "slider" {
			handles = append(handles, table[e.Ref].BackendNodeID)
		}
	}
	if len(handles) != 2 {
		t.Fatalf("%d sliders, want 2:\n%s", len(handles), s.Render())
	}
	if err := tab.Evaluate(testCtx(t), "window.__alive = 'same page'", nil); err != nil {
		t.Fatal(err)
	}
	for round, st := range []struct {
		handle int64
		key    string
	}{{handles[0], "ArrowLeft"}, {handles[1], "ArrowRight"}, {handles[0], "ArrowRight"}, {handles[0], "ArrowRight"}, {handles[1], "ArrowLeft"}, {handles[0], "PageDown"}} {
		if err := tab.Focus(testCtx(t), st.handle); err != nil {
			t.Fatalf("round %d: focus: %v", round, err)
		}
		chord, err := browser.ParseKey(st.key)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			if err := tab.Press(testCtx(t), chord); err != nil {
				t.Fatalf("round %d: press %d: %v", round, i, err)
			}
			if _, err := tab.SliderValue(testCtx(t), st.handle); err != nil {
				t.Fatalf("round %d: read after press %d: %v", round, i, err)
			}
		}
		captureOf(t, tab, browser.CaptureOptions{})
		r, err := browser.CallForTest(testCtx(t), tab, runtime.Evaluate, runtime.EvaluateParams{Expression: "window.__alive"})
		if err != nil || r.Result == nil || string(r.Result.Value) != `"same page"` {
			t.Fatalf("round %d: the page did not survive the captures (renderer crashed and reloaded): %v", round, err)
		}
	}
}
