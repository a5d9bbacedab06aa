package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestGesturesExposed: over stdio, what a person double-clicks or
// right-clicks has a ref in the agent's snapshot, and the line a model
// reads says the gesture: a todo edited by double click whether its row
// listens (Vue, Svelte), its list does (jQuery, Backbone) or the app's root
// does (React 17+); files that answer a right click, and drafts a double
// click, on a page whose window, document, <html> and <body> listen for
// both, which makes nothing else an element. A click by such a ref reaches
// the element (its check against the page passes) and, being no double
// click, changes nothing.
func TestGesturesExposed(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	todos := []string{
		`generic "Buy milk" (fallback name) double-click`,
		`generic "Walk the dog" (fallback name) double-click`,
		`generic "Call the bank" (fallback name) double-click`,
	}
	tests := []struct {
		page string
		// lines are what element lines say, after the ref.
		lines []string
		// more is how many more element lines may say a gesture: the
		// table's cells, as many as the viewport shows.
		more int
		// plain is text that stays page text, on no element line.
		plain []string
		// click is the generic element clicked by ref, and edit what the
		// page's status line says once a double click, not a plain one,
		// reached it.
		click, edit string
	}{
		{"/widgets/todos-vue", todos, 0, []string{"items left", "No edit yet"}, "Buy milk", "Editing"},
		{"/widgets/todos-jquery", todos, 0, []string{"items left", "No edit yet"}, "Walk the dog", "Editing"},
		{"/widgets/todos-react", []string{
			`generic "Buy milk" (fallback name) double-click right-click`,
			`generic "Walk the dog" (fallback name) double-click right-click`,
			`generic "Call the bank" (fallback name) double-click right-click`,
		}, 0, []string{"items left", "No edit yet"}, "Call the bank", "Editing"},
		{"/widgets/files", []string{
			`listitem "report.pdf 120 KB" (fallback name) right-click`,
			`listitem "photo.jpg 2.4 MB" (fallback name) right-click`,
			`generic "notes.txt" (fallback name) double-click right-click`,
			`generic "3 KB" (fallback name) double-click right-click`,
			`generic "Quarterly plan" (fallback name) double-click`,
			`generic "Spring newsletter" (fallback name) double-click`,
			`generic "Board minutes" (fallback name) double-click`,
			`listitem "Ada shared report.pdf" (fallback name) double-click right-click`,
			`listitem "Grace commented on photo.jpg" (fallback name) double-click right-click`,
			`listitem "Alan renamed notes.txt" (fallback name) double-click right-click`,
		}, 4, []string{"Owner", "No action yet", "Right-click a file"}, "Spring newsletter", "Opened draft"},
		// TodoMVC's own markup, listening on the whole page: each todo's
		// text, and no other text, says it answers a double click.
		{"/widgets/todomvc-react15", todoMVC(" right-click"), 0, []string{"Double-click to edit", "items left", "Clear completed"}, "Buy milk", ""},
		{"/widgets/todomvc-jquery", todoMVC(""), 0, []string{"Double-click to edit", "items left", "Clear completed"}, "Walk the dog", ""},
		{"/widgets/todomvc-ember", todoMVC(" right-click"), 0, []string{"Double-click to edit", "items left", "Clear completed"}, "Call the bank", ""},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.page, "/widgets/"), func(t *testing.T) {
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+tt.page, "--profile", "none")
			res, _ := call(t, c, toolapi.GetSnapshot, nil)
			text := textOf(t, res)
			elements, _, _ := strings.Cut(text, "\ntext:\n")
			gestured := 0
			for line := range strings.SplitSeq(elements, "\n") {
				line = strings.TrimSpace(line)
				if strings.HasSuffix(line, " double-click") || strings.HasSuffix(line, " right-click") {
					gestured++
				}
				for _, p := range tt.plain {
					if strings.HasPrefix(line, "@e") && strings.Contains(line, p) && !strings.Contains(line, " button ") {
						t.Errorf("%q is on an element line, want page text only: %s", p, line)
					}
				}
			}
			for _, want := range tt.lines {
				if !strings.Contains(elements, " "+want+"\n") {
					t.Errorf("no element line says %s in\n%s", want, text)
				}
			}
			if gestured < len(tt.lines) || gestured > len(tt.lines)+tt.more {
				t.Errorf("%d element lines say a gesture, want %d to %d:\n%s", gestured, len(tt.lines), len(tt.lines)+tt.more, text)
			}
			s := getSnapshot(t, c)
			r, after := act(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "generic", tt.click)})
			if !r.Success {
				t.Fatalf("click on generic %q: error %v, %s", tt.click, r.Error, r.Message)
			}
			if tt.edit != "" && strings.Contains(after.Text, tt.edit) {
				t.Errorf("a plain click on %q changed the page:\n%s", tt.click, after.Render())
			}
		})
	}
}

// todoMVC are the element lines of TodoMVC's three todos, each answering a
// double click and then more (" right-click" where the page listens for
// every event type).
func todoMVC(more string) []string {
	var out []string
	for _, name := range []string{"Buy milk", "Walk the dog", "Call the bank"} {
		out = append(out, `generic "`+name+`" (fallback name) double-click`+more)
	}
	return out
}
