package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestStdioPressKeyAndCaps runs the binary over stdio: by default it lists
// browser_press_key and not browser_wait_for, which it refuses as an
// unknown tool, and Enter in a search box submits the search; with --caps
// wait it lists browser_wait_for too.
func TestStdioPressKeyAndCaps(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		c, _, _ := stdioClient(t, nil, "serve", "--profile", "none", "--url", site.URL+"/variants/keys")
		checkToolsListFor(t, c, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name = toolapi.WaitFor
		req.Params.Arguments = map[string]any{"seconds": 1}
		if res, err := c.CallTool(ctx, req); err == nil && !res.IsError {
			t.Fatalf("browser_wait_for is off by default, but a call to it succeeded: %+v", res)
		}

		s := getSnapshot(t, c)
		box := browsertest.Ref(t, s, "searchbox", "Search titles")
		_, fill := call(t, c, toolapi.Fill, map[string]any{"ref": box, "value": "heist"})
		filled := actionSnapshot(t, fill)
		_, press := call(t, c, toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(t, filled, "searchbox", "Search titles")})
		after := actionSnapshot(t, press)
		if !strings.Contains(after.Page.URL, "/variants/search-results?q=heist") || !strings.Contains(after.Text, "Results for heist") {
			t.Fatalf("Enter did not submit the search: page %s, text %q", after.Page.URL, after.Text)
		}
	})
	t.Run("caps wait", func(t *testing.T) {
		t.Parallel()
		c, _, _ := stdioClient(t, nil, "serve", "--profile", "none", "--caps", "wait", "--url", site.URL+"/variants/waits?ms=200")
		checkToolsListFor(t, c, []string{toolapi.CapWait})
		s := getSnapshot(t, c)
		call(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Load results")})
		_, wait := call(t, c, toolapi.WaitFor, map[string]any{"text": "Results are ready"})
		if after := actionSnapshot(t, wait); !strings.Contains(after.Text, "Results are ready") {
			t.Fatalf("after the wait the page text is %q", after.Text)
		}
	})
}

// actionSnapshot reads a successful action's structured result and returns
// its snapshot, checked against the schema.
func actionSnapshot(t *testing.T, data string) *snapshot.Snapshot {
	t.Helper()
	var r actionResult
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Success {
		t.Fatalf("action failed: %v %q", r.Error, r.Message)
	}
	validateSnapshot(t, r.Snapshot)
	var s snapshot.Snapshot
	if err := json.Unmarshal(r.Snapshot, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
