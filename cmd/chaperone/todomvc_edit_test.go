package main

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestTodoMVCEditByDoubleClick: over stdio, an agent edits a todo of
// TodoMVC's own markup whose listeners are on the whole page (React 15's
// document, jQuery's $(document).on, Ember's body) as a person does: a
// double click on the todo's text by its ref opens the edit field, which
// has the focus; it fills it and presses Enter, and the todo is renamed.
func TestTodoMVCEditByDoubleClick(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	for _, page := range []string{"/widgets/todomvc-react15", "/widgets/todomvc-jquery", "/widgets/todomvc-ember"} {
		t.Run(strings.TrimPrefix(page, "/widgets/"), func(t *testing.T) {
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+page, "--profile", "none")
			s := getSnapshot(t, c)
			ref := browsertest.Ref(t, s, "generic", "Walk the dog")
			r, after := act(t, c, toolapi.Click, map[string]any{"ref": ref, "count": 2})
			if !r.Success || after.Focused == nil {
				t.Fatalf("double click on %s: success %v, error %v, %s; focused %v\n%s", ref, r.Success, r.Error, r.Message, after.Focused, after.Render())
			}
			edit := *after.Focused
			r, after = act(t, c, toolapi.Fill, map[string]any{"ref": edit, "value": "Walk the dog now"})
			if !r.Success || after.Focused == nil {
				t.Fatalf("fill %s: success %v, error %v, %s; focused %v\n%s", edit, r.Success, r.Error, r.Message, after.Focused, after.Render())
			}
			edit = *after.Focused
			r, after = act(t, c, toolapi.PressKey, map[string]any{"ref": edit, "key": "Enter"})
			if !r.Success {
				t.Fatalf("Enter on %s: error %v, %s", edit, r.Error, r.Message)
			}
			e, ok := after.Find("generic", "Walk the dog now")
			if !ok || !slices.Contains(e.Gestures, snapshot.GestureDoubleClick) {
				t.Fatalf("the todo was not renamed (or no longer answers a double click):\n%s", after.Render())
			}
			for _, e := range after.Elements {
				if e.Name == "Walk the dog" {
					t.Errorf("the old todo is still there:\n%s", after.Render())
				}
			}
		})
	}
}
