package browser_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestTodoMVCWholePageListeners: TodoMVC in its own markup, with every
// listener on the whole page (the document per event type as React 15
// does, $(document).on as jQuery does, the body as Ember's dispatcher
// does). Each todo's text, and nothing else of the page, is an element
// that says it answers a double click; the toggle-all label (for=), the
// filters, the count and the footer's text are not made elements by it. A person's double
// click at the box the snapshot gives opens the todo's edit field, and
// typing and Enter rename it.
func TestTodoMVCWholePageListeners(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	todos := []string{"Buy milk", "Walk the dog", "Call the bank"}
	both := []string{snapshot.GestureDoubleClick, snapshot.GestureRightClick}
	for _, tt := range []struct {
		page string
		// gestures are what each todo says it answers: all the page
		// listens for on the whole page (React and Ember listen for every
		// event type, the jQuery app binds dblclick alone).
		gestures []string
	}{
		{"/widgets/todomvc-react15", both},
		{"/widgets/todomvc-jquery", []string{snapshot.GestureDoubleClick}},
		{"/widgets/todomvc-ember", both},
	} {
		t.Run(strings.TrimPrefix(tt.page, "/widgets/"), func(t *testing.T) {
			tab := browsertest.Tab(t)
			navigate(t, tab, site+tt.page)
			s, _, _ := snapshot.Build(captureOf(t, tab, browser.CaptureOptions{}), snapshot.Options{}, 1)
			var gestured []string
			for _, e := range s.Elements {
				if len(e.Gestures) > 0 {
					gestured = append(gestured, e.Name)
					if !slices.Equal(e.Gestures, tt.gestures) {
						t.Errorf("%s %q answers %v, want %v", e.Role, e.Name, e.Gestures, tt.gestures)
					}
				}
			}
			if !slices.Equal(gestured, todos) {
				t.Fatalf("elements that say a gesture: %q, want the todos %q\n%s", gestured, todos, s.Render())
			}
			e, _ := s.Find("generic", "Walk the dog")
			x, y := e.BBox.X+e.BBox.Width/2, e.BBox.Y+e.BBox.Height/2
			person(t, tab, browser.PersonInput{Type: "mouseMoved", X: x, Y: y})
			for n := 1; n <= 2; n++ {
				person(t, tab, browser.PersonInput{Type: "mousePressed", X: x, Y: y, Button: "left", ClickCount: n})
				person(t, tab, browser.PersonInput{Type: "mouseReleased", X: x, Y: y, Button: "left", ClickCount: n})
			}
			var editing string
			if !waitUntil(t, 20*time.Millisecond, func() bool {
				if err := tab.Evaluate(testCtx(t), `(document.activeElement && document.activeElement.matches('li.editing .edit')) ? document.activeElement.value : ''`, &editing); err != nil {
					t.Fatal(err)
				}
				return editing != ""
			}) {
				t.Fatalf("a double click on %q opened no edit field", "Walk the dog")
			}
			for _, r := range " now" {
				person(t, tab, browser.PersonInput{Type: "keyDown", Key: string(r), Text: string(r)})
				person(t, tab, browser.PersonInput{Type: "keyUp", Key: string(r)})
			}
			person(t, tab, browser.PersonInput{Type: "keyDown", Key: "Enter", Code: "Enter", Text: "\r", KeyCode: 13})
			person(t, tab, browser.PersonInput{Type: "keyUp", Key: "Enter", Code: "Enter", KeyCode: 13})
			var labels string
			want := "Buy milk|Walk the dog now|Call the bank"
			if !waitUntil(t, 20*time.Millisecond, func() bool {
				if err := tab.Evaluate(testCtx(t), `[].map.call(document.querySelectorAll('.todo-list label'), l => l.textContent).join('|') + (document.querySelector('li.editing') ? ' (editing)' : '')`, &labels); err != nil {
					t.Fatal(err)
				}
				return labels == want
			}) {
				t.Fatalf("after the edit the todos are %q, want %q", labels, want)
			}
		})
	}
}

// wholePage listens for double clicks on the document, as an analytics
// script does, above a page of paragraphs, headings, cards that repeat,
// a whole-page wrapper's text, a table header and 100 list rows.
const wholePage = `<!doctype html><html><head><title>Whole page</title>
<style>*{transition:none!important} .card{height:400px}</style></head><body><div id="app">
<h1>Heading text</h1><p>Paragraph text</p><p class="x">Classed paragraph one</p><p class="x">Classed paragraph two</p>
<section class="card"><h2>Card heading one</h2><div>Card body one</div></section>
<section class="card"><h2>Card heading two</h2><div>Card body two</div></section>
<table><tr><th>Header cell</th></tr><tr><td>Table cell</td></tr></table>
<ul id="rows"></ul></div>
<script>
var ul = document.getElementById('rows');
for (var i = 1; i <= 100; i++) { var li = document.createElement('li'); li.innerHTML = '<span>Row ' + i + '</span>'; ul.appendChild(li); }
document.addEventListener('dblclick', function () {});
</script></body></html>`

// TestWholePageListenerBudget: a double click listened for on the whole
// page makes elements of at most 40 rows' texts, in document order, and a
// note counts the rest; paragraphs (classed alike or not), headings,
// layout blocks that repeat and a table's header stay text. A listener on
// the page's only wrapper counts as the whole page's.
func TestWholePageListenerBudget(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	for path, target := range map[string]string{"/document": "document", "/wrapper": "document.getElementById('app')"} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, strings.Replace(wholePage, "document.addEventListener('dblclick'", target+".addEventListener('dblclick'", 1))
		})
	}
	base := browsertest.Serve(t, mux)
	for _, path := range []string{"/document", "/wrapper"} {
		t.Run(path[1:], func(t *testing.T) {
			tab := browsertest.Tab(t)
			navigate(t, tab, base+path)
			s, _, _ := snapshot.Build(captureOf(t, tab, browser.CaptureOptions{}), snapshot.Options{}, 1)
			var gestured []string
			for _, e := range s.Elements {
				if len(e.Gestures) > 0 {
					gestured = append(gestured, e.Name)
				}
			}
			want := []string{"Table cell"}
			for i := 1; i <= 39; i++ {
				want = append(want, fmt.Sprintf("Row %d", i))
			}
			if !slices.Equal(gestured, want) {
				t.Errorf("elements that say a gesture: %q, want %q\n%s", gestured, want, s.Render())
			}
			if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.HasPrefix(n, "61 more rows' texts answer double-click") }) {
				t.Errorf("no note counts the 61 rows left out: %q", s.Notes)
			}
		})
	}
}
