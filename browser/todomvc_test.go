package browser_test

import (
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
