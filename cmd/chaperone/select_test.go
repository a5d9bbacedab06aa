package main

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestStdioMultiSelect: over stdio, browser_select takes a list, which sets
// exactly those options of a <select multiple>; the result's snapshot shows
// them selected and the one selected before not.
func TestStdioMultiSelect(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/selects", "--profile", "none")
	s := getSnapshot(t, c)
	ref := browsertest.Ref(t, s, "listbox", "Favourite genres")
	_, text := call(t, c, toolapi.Select, map[string]any{"ref": ref, "value": []string{"Drama", "horror"}})
	var r actionResult
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	validateSnapshot(t, r.Snapshot)
	if !r.Success || !strings.Contains(r.Message, `"Drama" (value "drama"), "Horror" (value "horror")`) {
		t.Fatalf("select: success %v, error %v, message %q", r.Success, r.Error, r.Message)
	}
	var after snapshot.Snapshot
	if err := json.Unmarshal(r.Snapshot, &after); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"Drama": true, "Comedy": false, "Horror": true} {
		e, ok := after.Find("option", name)
		if !ok {
			t.Fatalf("no option %q in the result's snapshot:\n%s", name, after.Outline())
		}
		if got := slices.Contains(e.State, "selected"); got != want {
			t.Errorf("option %q selected %v, want %v", name, got, want)
		}
	}
}
