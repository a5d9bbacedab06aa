package browser_test

import (
	"fmt"
	"net/http"
	"time"

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

// TestGestureScopes: without pierce, listeners are still found in every
// tree scope the page owns, however deep: a shadow root in a shadow root, a
// closed one in an open one, a same-origin frame inside a shadow root and a
// shadow root inside that frame; beside inputs, whose user-agent shadow
// trees hold none of the page's listeners.
func TestGestureScopes(t *testing.T) {
	t.Parallel()
	const page = `<!doctype html><body><input value="x"><textarea>y</textarea><details><summary>s</summary>d</details>
<div id="outer"></div><script>
const noop = () => {};
const outer = document.getElementById('outer').attachShadow({mode: 'open'});
outer.innerHTML = '<span>one</span><div></div><div></div><input>';
outer.querySelector('span').addEventListener('dblclick', noop);
const inner = outer.querySelectorAll('div')[0].attachShadow({mode: 'open'});
inner.innerHTML = '<span>two</span>';
inner.querySelector('span').addEventListener('contextmenu', noop);
const closed = outer.querySelectorAll('div')[1].attachShadow({mode: 'closed'});
closed.innerHTML = '<span>three</span><iframe srcdoc="<b>four</b><p id=h></p>"></iframe>';
closed.querySelector('span').addEventListener('dblclick', noop);
const f = closed.querySelector('iframe');
f.addEventListener('load', () => {
  const d = f.contentDocument;
  d.querySelector('b').addEventListener('dblclick', noop);
  const r = d.getElementById('h').attachShadow({mode: 'closed'});
  r.innerHTML = '<i>five</i>';
  r.querySelector('i').addEventListener('contextmenu', noop);
  document.title = 'ready';
});
</script></body>`
	mux := http.NewServeMux()
	mux.HandleFunc("/p", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	})
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Serve(t, mux)+"/p")
	var title string
	for range 100 {
		if err := tab.Evaluate(testCtx(t), "document.title", &title); err != nil || title == "ready" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if title != "ready" {
		t.Fatalf("the frame did not load (title %q)", title)
	}
	c := captureOf(t, tab, browser.CaptureOptions{})
	if len(c.Gestures) != 5 {
		t.Errorf("%d gesture listeners captured, want 5 (one per scope): %v", len(c.Gestures), c.Gestures)
	}
}
