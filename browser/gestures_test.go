package browser_test

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// gesturePage listens for double and right clicks every way a page can:
// addEventListener, an on- attribute, an on- property, inside open and
// closed shadow roots, on a list, a <div> list and GWT's list of rows whose
// classes alternate, for their rows, and on a tree for its items, in a
// frame of its own process and in a cross-site one; and on the window, the
// document, <html> and <body>, which stand for no element. Then it breaks
// its own built-ins and claims listeners it does not have.
const gesturePage = `<!doctype html><html><head><title>Gestures</title>
<style>*{transition:none!important} iframe{width:300px;height:60px;border:0}</style></head><body>
<p><span id="own">Own listener</span> <span ondblclick="void 0">Attribute listener</span> <span id="prop">Property listener</span>
<span ondblclick="void 0"><b>Nested listener</b></span> <span id="plain">No listener</span> <span data-on="dblclick" class="editable" ondblclick-x="1">Forged listener</span></p>
<div id="host"></div><div id="closed"></div>
<ul id="deleg"><li><span>Delegated row one</span></li><li><span>Delegated row two</span></li></ul>
<div id="divlist"><div class="item"><b>Div row one</b></div><div class="item"><b>Div row two</b></div></div>
<ul role="tree" id="tree"><li role="treeitem" aria-expanded="false">Folder one</li><li role="treeitem">Folder two</li></ul>
<div id="cells"><div class="even" __idx="0">Cell row one</div><div class="odd" __idx="1">Cell row two</div></div>
<iframe src="/inner?text=Same-site+frame+listener"></iframe>
<iframe src="%s/inner?text=Cross-site+frame+listener"></iframe>
<script>
const noop = () => {};
document.getElementById('own').addEventListener('dblclick', noop);
document.getElementById('prop').ondblclick = noop;
for (const [id, mode] of [['host', 'open'], ['closed', 'closed']]) {
  const root = document.getElementById(id).attachShadow({mode});
  root.innerHTML = '<span>' + (mode === 'open' ? 'Shadow listener' : 'Closed shadow listener') + '</span>';
  root.querySelector('span').addEventListener('contextmenu', noop);
}
document.getElementById('deleg').addEventListener('dblclick', noop);
document.getElementById('divlist').addEventListener('contextmenu', noop);
document.getElementById('cells').ondblclick = noop;
document.getElementById('tree').addEventListener('dblclick', noop);
for (const t of [window, document, document.documentElement, document.body]) {
  t.addEventListener('dblclick', noop);
  t.addEventListener('contextmenu', noop, true);
}
EventTarget.prototype.addEventListener = noop;
Object.defineProperty(Document.prototype, 'nodeType', {get: () => 1});
document.getElementById('plain').addEventListener('dblclick', noop);
</script></body></html>`

// TestCaptureGestures: a capture lists the nodes the browser reports
// listening for a double or a right click, whatever way the page added the
// listener and in whichever frame, and the snapshot makes each an element
// that says its gesture; a listener on the window, the document, <html> or
// <body>, a listener the page only claims, and one it failed to add make
// none. A judged capture does not ask.
func TestCaptureGestures(t *testing.T) {
	t.Parallel()
	var base string
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, gesturePage, strings.Replace(base, "127.0.0.1", "localhost", 1))
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><body><b id="x">%s</b><script>document.getElementById('x').addEventListener('dblclick', () => {});</script>`,
			strings.ReplaceAll(r.URL.Query().Get("text"), "<", ""))
	})
	base = browsertest.Serve(t, mux)
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/page")

	c := captureOf(t, tab, browser.CaptureOptions{})
	if len(c.RemoteDOM) != 1 {
		t.Fatalf("%d out-of-process frames captured, want 1 (the cross-site one)", len(c.RemoteDOM))
	}
	s, table, _ := snapshot.Build(c, snapshot.Options{}, 1)
	double, right := []string{snapshot.GestureDoubleClick}, []string{snapshot.GestureRightClick}
	for _, w := range []struct {
		role, name string
		gestures   []string
	}{
		{"generic", "Own listener", double}, {"generic", "Attribute listener", double}, {"generic", "Property listener", double}, {"generic", "Nested listener", double},
		{"generic", "Shadow listener", right}, {"generic", "Closed shadow listener", right},
		{"generic", "Delegated row one", double}, {"generic", "Delegated row two", double},
		{"generic", "Div row one", right}, {"generic", "Div row two", right},
		{"generic", "Cell row one", double}, {"generic", "Cell row two", double},
		{"generic", "Same-site frame listener", double}, {"generic", "Cross-site frame listener", double},
		{"treeitem", "Folder one", double}, {"treeitem", "Folder two", double},
	} {
		e, ok := s.Find(w.role, w.name)
		if !ok {
			t.Errorf("no %s %q in\n%s", w.role, w.name, s.Render())
			continue
		}
		if !slices.Equal(e.Gestures, w.gestures) {
			t.Errorf("%q answers %v, want %v", w.name, e.Gestures, w.gestures)
		}
		if table[e.Ref].BackendNodeID == 0 {
			t.Errorf("%q has no node", w.name)
		}
	}
	n := 0
	for _, e := range s.Elements {
		if len(e.Gestures) > 0 {
			n++
		}
		if e.Name == "No listener" || e.Name == "Forged listener" {
			t.Errorf("%s %q is an element: no listener of its own was added", e.Role, e.Name)
		}
	}
	if n != 16 {
		t.Errorf("%d elements say a gesture, want 16:\n%s", n, s.Render())
	}
	if j := captureOf(t, tab, browser.CaptureOptions{Judged: true}); len(j.Gestures) != 0 {
		t.Errorf("a judged capture lists %d gesture listeners, want none", len(j.Gestures))
	}
}

// BenchmarkGestureListeners times what a capture adds to ask for the
// gesture listeners (describing the tree scopes, then each scope's
// listeners without pierce) beside the accessibility tree of the same page
// in the same loop, so that both see the same load: gesture-ms against
// ax-ms.
func BenchmarkGestureListeners(b *testing.B) {
	ax := cdp.Command[accessibility.GetFullAXTreeParams, browser.RawForTest]{Method: accessibility.CommandGetFullAXTree}
	onBenchPages(b, func(b *testing.B, tab *browser.Context) {
		var axTime, gestTime time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := browser.CallForTest(b.Context(), tab, ax, accessibility.GetFullAXTreeParams{}); err != nil {
				b.Fatal(err)
			}
			axEnd := time.Now()
			// The renderer's main thread may still be busy with the tree;
			// the listeners' time starts once it answers again.
			if _, err := browser.CallForTest(b.Context(), tab, runtime.Evaluate, runtime.EvaluateParams{Expression: "0"}); err != nil {
				b.Fatal(err)
			}
			mid := time.Now()
			if _, err := browser.GestureListenersForTest(b.Context(), tab); err != nil {
				b.Fatal(err)
			}
			gestTime += time.Since(mid)
			axTime += axEnd.Sub(start)
		}
		n := float64(b.N)
		b.ReportMetric(float64(axTime.Microseconds())/n/1000, "ax-ms")
		b.ReportMetric(float64(gestTime.Microseconds())/n/1000, "gesture-ms")
		b.ReportMetric(float64(gestTime)/float64(axTime), "ratio")
	})
}

// TestGesturesAnswer: a person's double or right click at the box the
// snapshot gives an element that says the gesture does what the page
// promises: the todo of each framework style opens for editing and Enter
// saves it; a file's own menu opens and its item runs; a draft opens.
func TestGesturesAnswer(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	type step struct {
		role, name, gesture string
		want                string
	}
	for _, tt := range []struct {
		page  string
		steps []step
	}{
		{"/widgets/todos-vue", []step{{"generic", "Walk the dog", snapshot.GestureDoubleClick, `Saved "Walk the dog" as "Walk the dog!"`}}},
		{"/widgets/todos-jquery", []step{{"generic", "Buy milk", snapshot.GestureDoubleClick, `Saved "Buy milk" as "Buy milk!"`}}},
		{"/widgets/todos-react", []step{{"generic", "Call the bank", snapshot.GestureDoubleClick, `Saved "Call the bank" as "Call the bank!"`}}},
		{"/widgets/files", []step{
			{"listitem", "photo.jpg", snapshot.GestureRightClick, "Menu for photo.jpg"},
			{"menuitem", "Download", "", "Downloaded photo.jpg"},
			{"generic", "Board minutes", snapshot.GestureDoubleClick, "Opened draft Board minutes"},
		}},
	} {
		t.Run(strings.TrimPrefix(tt.page, "/widgets/"), func(t *testing.T) {
			tab := browsertest.Tab(t)
			navigate(t, tab, site+tt.page)
			for _, st := range tt.steps {
				s, _, _ := snapshot.Build(captureOf(t, tab, browser.CaptureOptions{}), snapshot.Options{}, 1)
				e, ok := s.Find(st.role, st.name)
				if !ok {
					t.Fatalf("no %s %q in\n%s", st.role, st.name, s.Render())
				}
				if st.gesture != "" && !slices.Contains(e.Gestures, st.gesture) {
					t.Fatalf("%s %q answers %v, want %s", st.role, st.name, e.Gestures, st.gesture)
				}
				x, y := e.BBox.X+e.BBox.Width/2, e.BBox.Y+e.BBox.Height/2
				button, clicks := "left", 1
				switch st.gesture {
				case snapshot.GestureDoubleClick:
					clicks = 2
				case snapshot.GestureRightClick:
					button = "right"
				}
				person(t, tab, browser.PersonInput{Type: "mouseMoved", X: x, Y: y})
				for n := 1; n <= clicks; n++ {
					person(t, tab, browser.PersonInput{Type: "mousePressed", X: x, Y: y, Button: button, ClickCount: n})
					person(t, tab, browser.PersonInput{Type: "mouseReleased", X: x, Y: y, Button: button, ClickCount: n})
				}
				if strings.HasPrefix(st.want, "Saved") {
					// The edit field has the focus: a person types and saves.
					person(t, tab, browser.PersonInput{Type: "keyDown", Key: "End", Code: "End", KeyCode: 35})
					person(t, tab, browser.PersonInput{Type: "keyUp", Key: "End", Code: "End", KeyCode: 35})
					person(t, tab, browser.PersonInput{Type: "keyDown", Key: "!", Code: "Digit1", Text: "!", KeyCode: 49})
					person(t, tab, browser.PersonInput{Type: "keyUp", Key: "!", Code: "Digit1", KeyCode: 49})
					person(t, tab, browser.PersonInput{Type: "keyDown", Key: "Enter", Code: "Enter", Text: "\r", KeyCode: 13})
					person(t, tab, browser.PersonInput{Type: "keyUp", Key: "Enter", Code: "Enter", KeyCode: 13})
				}
				var log string
				if !waitUntil(t, 20*time.Millisecond, func() bool {
					if err := tab.Evaluate(testCtx(t), `document.getElementById('log').textContent`, &log); err != nil {
						t.Fatal(err)
					}
					return log == st.want
				}) {
					t.Fatalf("after a %s on %s %q the page says %q, want %q", cmp.Or(st.gesture, "click"), st.role, st.name, log, st.want)
				}
			}
		})
	}
}

// person sends one input event as a person's.
func person(t *testing.T, tab *browser.Context, ev browser.PersonInput) {
	t.Helper()
	if err := tab.DispatchPersonInput(testCtx(t), ev); err != nil {
		t.Fatal(err)
	}
}
