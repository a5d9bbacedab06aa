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
		// plain is text that stays page text, on no element line.
		plain []string
		// click is the generic element clicked by ref, and edit what the
		// page's status line says once a double click, not a plain one,
		// reached it.
		click, edit string
	}{
		{"/widgets/todos-vue", todos, []string{"items left", "No edit yet"}, "Buy milk", "Editing"},
		{"/widgets/todos-jquery", todos, []string{"items left", "No edit yet"}, "Walk the dog", "Editing"},
		{"/widgets/todos-react", []string{
			`generic "Buy milk" (fallback name) double-click right-click`,
			`generic "Walk the dog" (fallback name) double-click right-click`,
			`generic "Call the bank" (fallback name) double-click right-click`,
		}, []string{"items left", "No edit yet"}, "Call the bank", "Editing"},
		{"/widgets/files", []string{
			`listitem "report.pdf 120 KB" (fallback name) right-click`,
			`listitem "photo.jpg 2.4 MB" (fallback name) right-click`,
			`generic "Quarterly plan" (fallback name) double-click`,
			`generic "Spring newsletter" (fallback name) double-click`,
			`generic "Board minutes" (fallback name) double-click`,
		}, []string{"notes.txt", "Ada shared report.pdf", "Grace commented on photo.jpg", "Owner", "Grace", "No action yet", "Right-click a file"}, "Spring newsletter", "Opened draft"},
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
					if strings.HasPrefix(line, "@e") && strings.Contains(line, p) {
						t.Errorf("%q is on an element line, want page text only: %s", p, line)
					}
				}
			}
			for _, want := range tt.lines {
				if !strings.Contains(elements, " "+want+"\n") {
					t.Errorf("no element line says %s in\n%s", want, text)
				}
			}
			if gestured != len(tt.lines) {
				t.Errorf("%d element lines say a gesture, want %d:\n%s", gestured, len(tt.lines), text)
			}
			s := getSnapshot(t, c)
			r, after := act(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "generic", tt.click)})
			if !r.Success {
				t.Fatalf("click on generic %q: error %v, %s", tt.click, r.Error, r.Message)
			}
			if strings.Contains(after.Text, tt.edit) {
				t.Errorf("a plain click on %q changed the page:\n%s", tt.click, after.Render())
			}
		})
	}
}
