package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestWaitFor(t *testing.T) {
	t.Parallel()
	all := Config{Caps: []string{toolapi.CapWait}}
	tests := []struct {
		name string
		// args builds the wait's arguments from the snapshot after "Load
		// results" was clicked.
		args     func(h *harness, r toolapi.ActionResult) map[string]any
		wantCode toolapi.Code // "" for success
		// wantText is in the page's text afterwards.
		wantText string
		// resultsMS is how long after the click the results come: long
		// enough that the click's result still shows "Loading results",
		// however busy the machine, unless the case only lets time pass.
		resultsMS string
	}{
		{"text appears", func(*harness, toolapi.ActionResult) map[string]any {
			return map[string]any{"text": "results are  READY"}
		}, "", "Results are ready", "3000"},
		{"text goes", func(*harness, toolapi.ActionResult) map[string]any {
			return map[string]any{"text_gone": "Loading results"}
		}, "", "Results are ready", "3000"},
		{"ref goes", func(h *harness, r toolapi.ActionResult) map[string]any {
			return map[string]any{"ref_gone": browsertest.Ref(h.t, r.Snapshot, "alert", "Loading results")}
		}, "", "Results are ready", "3000"},
		{"seconds", func(*harness, toolapi.ActionResult) map[string]any {
			return map[string]any{"seconds": 1}
		}, "", "Results are ready", "400"},
		{"a bound that runs out is timeout", func(*harness, toolapi.ActionResult) map[string]any {
			return map[string]any{"text": "Results are ready", "timeout": 0.2}
		}, toolapi.Timeout, "Loading results", ""},
		{"two conditions", func(*harness, toolapi.ActionResult) map[string]any {
			return map[string]any{"text": "a", "seconds": 1}
		}, toolapi.InvalidParams, "Loading results", ""},
		{"over 30 seconds", func(*harness, toolapi.ActionResult) map[string]any {
			return map[string]any{"text": "a", "timeout": 31}
		}, toolapi.InvalidParams, "Loading results", ""},
		{"a ref not in the snapshot", func(*harness, toolapi.ActionResult) map[string]any {
			return map[string]any{"ref_gone": "@e99999"}
		}, toolapi.RefInvalid, "Loading results", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The results never come within the test for the failures.
			ms := tc.resultsMS
			if tc.wantCode != "" {
				ms = "600000"
			}
			h := openWith(t, "/variants/waits?ms="+ms, all)
			s := h.snap(true)
			loading := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Load results")})
			r := h.act(toolapi.WaitFor, tc.args(h, loading))
			if tc.wantCode != "" {
				wantError(t, r, tc.wantCode)
			} else if !r.Success {
				t.Fatalf("%s: %s", *r.Error, r.Message)
			}
			if got := h.evalString(`document.body.innerText`); !strings.Contains(got, tc.wantText) {
				t.Errorf("the page does not show %q after the wait:\n%s", tc.wantText, got)
			}
			// The session is usable after any outcome.
			if after := h.snap(true); len(after.Elements) == 0 {
				t.Errorf("no elements in a snapshot after the wait:\n%s", after.Outline())
			}
		})
	}
}

// TestDisabledToolsAreUnknown: an opt-in tool its capability does not turn
// on is refused as an unknown tool, and nothing reaches the page.
func TestDisabledToolsAreUnknown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		caps []string
		tool string
		on   bool
	}{
		{nil, toolapi.WaitFor, false},
		{nil, toolapi.PressKey, true},
		{[]string{toolapi.CapHover}, toolapi.WaitFor, false},
		{[]string{toolapi.CapWait}, toolapi.WaitFor, true},
		{[]string{toolapi.CapAll}, toolapi.WaitFor, true},
		// browser_evaluate is never in all: it is on only when eval is named.
		{[]string{toolapi.CapAll}, toolapi.Evaluate, false},
		{[]string{toolapi.CapDevtools}, toolapi.Evaluate, false},
		{[]string{toolapi.CapAll}, toolapi.Console, true},
		{[]string{toolapi.CapEval}, toolapi.Console, false},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.caps, ",")+" "+tc.tool, func(t *testing.T) {
			h := openWith(t, "/variants/waits", Config{Caps: tc.caps})
			args := `{"seconds":0.1}`
			switch tc.tool {
			case toolapi.PressKey:
				args = `{"key":"Tab"}`
			case toolapi.Evaluate:
				args = `{"function":"() => { document.title = 'EVAL RAN' }"}`
			case toolapi.Console:
				args = `{}`
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := h.s.Call(ctx, tc.tool, json.RawMessage(args))
			if tc.on && err != nil {
				t.Fatalf("%s is on, but: %v", tc.tool, err)
			}
			if !tc.on && (err == nil || !strings.Contains(err.Error(), "unknown tool")) {
				t.Fatalf("%s is off, but the call answered %v", tc.tool, err)
			}
		})
	}
}

// TestWaitForAcrossANavigation: text that shows on the next page, after the
// page navigates during the wait, ends the wait.
func TestWaitForAcrossANavigation(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/variants/waits", Config{Caps: []string{toolapi.CapWait}})
	h.snap(true)
	h.eval(`setTimeout(() => { location.href = '/variants/search-results?q=next+page'; }, 300)`, nil)
	r := h.ok(toolapi.WaitFor, map[string]any{"text": "Results for next page"})
	if !strings.Contains(r.Snapshot.Page.URL, "/variants/search-results") {
		t.Fatalf("after the wait the page is %s", r.Snapshot.Page.URL)
	}
}
