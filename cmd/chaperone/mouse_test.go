package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
)

// mouseStep is one thing a person does with the mouse on a widget page:
// browser_click on the element found by role and name, with the mouse's
// arguments, and the text the page shows after it.
type mouseStep struct {
	role, name string
	args       map[string]any
	want       string
}

// mouseAct runs st and returns the result's snapshot.
func mouseAct(t *testing.T, c *client.Client, s *snapshot.Snapshot, st mouseStep) *snapshot.Snapshot {
	t.Helper()
	args := map[string]any{"ref": browsertest.Ref(t, s, st.role, st.name)}
	for k, v := range st.args {
		args[k] = v
	}
	r, after := act(t, c, toolapi.Click, args)
	if !r.Success {
		t.Fatalf("click %v on %s %q: error %v, %s\n%s", st.args, st.role, st.name, *r.Error, r.Message, s.Render())
	}
	if !strings.Contains(after.Text, st.want) {
		t.Fatalf("after click %v on %s %q the page text lacks %q:\n%s", st.args, st.role, st.name, st.want, after.Render())
	}
	return after
}

// TestMouseWidgets (issue 31, the whole mouse): over stdio, a double click
// edits a task, a right click opens a page's own context menu whose items
// are then elements to click, and Control (or Meta, or "Ctrl") and Shift
// clicks extend a selection of rows, as a person's mouse does.
func TestMouseWidgets(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	tests := []struct {
		page  string
		steps []mouseStep
	}{
		{"/widgets/tasks", []mouseStep{
			{"button", "Buy milk", nil, "Selected Buy milk"},
			{"button", "Buy milk", map[string]any{"count": 2}, "Editing Buy milk"},
		}},
		{"/widgets/filemenu", []mouseStep{
			{"listitem", "notes.txt", map[string]any{"button": "right"}, "Menu for notes.txt"},
			{"menuitem", "Open", nil, "Opened notes.txt"},
			{"listitem", "budget.xlsx", map[string]any{"button": "right"}, "Menu for budget.xlsx"},
			{"menuitem", "Delete", nil, "Deleted budget.xlsx"},
		}},
		{"/widgets/rowselect", []mouseStep{
			{"option", "Alpha", nil, "Selected: Alpha"},
			{"option", "Charlie", map[string]any{"modifiers": []string{"Control"}}, "Selected: Alpha, Charlie"},
			{"option", "Echo", map[string]any{"modifiers": []string{"Shift"}}, "Selected: Charlie, Delta, Echo"},
			{"option", "Alpha", map[string]any{"modifiers": []string{"Meta"}}, "Selected: Alpha, Charlie, Delta, Echo"},
			{"option", "Delta", map[string]any{"modifiers": []string{"ctrl"}}, "Selected: Alpha, Charlie, Echo"},
			{"option", "Bravo", nil, "Selected: Bravo"},
		}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.page, "/widgets/"), func(t *testing.T) {
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+tt.page, "--profile", "none")
			s := getSnapshot(t, c)
			for _, st := range tt.steps {
				s = mouseAct(t, c, s, st)
			}
		})
	}
}
