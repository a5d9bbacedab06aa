package driver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func proposePlan() map[string]any {
	return wireCall(toolapi.RequestApproval, map[string]any{"action": "Cancel the subscription", "reason": "the goal",
		"plan": []any{"Open Account", "Cancel"}, "write": []any{"https://shop.test"}, "read": []any{"https://help.shop.test"}})
}

// TestPlanRun: with Config.Plan (run --plan) the model is told to show its
// plan first, and no action runs before a person approved one: an action
// before it is answered as not executed; a rejected plan lets none run.
// The recorded script keeps the approved plan, and a replay puts it to the
// person before its first step.
func TestPlanRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		reject      string
		replies     []fakeReply
		wantSuccess bool
		wantActions []string
	}{
		{"approved", "", []fakeReply{reply(click("@e2")), reply(proposePlan()), reply(click("@e2")), reply(complete("success"))}, true,
			[]string{toolapi.RequestApproval + " Cancel the subscription", toolapi.Click + " @e2", toolapi.CompleteTask + " success"}},
		{"rejected", "not this way", []fakeReply{reply(proposePlan()), reply(click("@e2")), reply(complete("failed"))}, false,
			[]string{toolapi.RequestApproval + " Cancel the subscription", toolapi.CompleteTask + " failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mb := &drivertest.MockBrowser{Page: drivertest.Page("https://shop.test/", 0, "Buy", "Cancel"), Reject: tc.reject}
			h := newHarness(t, mb, tc.replies...)
			h.cfg.Plan, h.cfg.MaxTurns = true, len(tc.replies)
			res := h.run(t)
			if res.Success != tc.wantSuccess {
				t.Fatalf("result = %+v", res)
			}
			if got := h.actions(); !slices.Equal(got, tc.wantActions) {
				t.Errorf("the browser got %q, want %q", got, tc.wantActions)
			}
			if first := h.api.Requests()[0]; !strings.Contains(string(first.raw), "FIRST, before any action: call request_human_approval") {
				t.Error("the model is not told to show its plan first")
			}
			if !tc.wantSuccess {
				return
			}
			data, err := os.ReadFile(filepath.Join(h.rec.Dir(), driver.ScriptName))
			if err != nil {
				t.Fatal(err)
			}
			if err := driver.ValidateScript(data); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			var s driver.Script
			json.Unmarshal(data, &s)
			if s.Plan == nil || !slices.Equal(s.Plan.Write, []string{"https://shop.test"}) || len(s.Plan.Steps) != 2 {
				t.Fatalf("the script's plan: %+v", s.Plan)
			}

			// The replay asks the plan first; rejected, no step runs.
			for _, reject := range []string{"", "no"} {
				mb := &drivertest.MockBrowser{Page: drivertest.Page("https://shop.test/", 0, "Buy", "Cancel"), Reject: reject}
				rh := newHarness(t, mb)
				rh.cfg.Tools = mb
				out, err := driver.Replay(t.Context(), driver.ReplayConfig{Script: &s, Config: rh.cfg})
				if err != nil {
					t.Fatal(err)
				}
				calls := rh.actions()
				if len(calls) == 0 || calls[0] != toolapi.RequestApproval+" Cancel the subscription" || slices.Index(calls[1:], calls[0]) >= 0 {
					t.Errorf("replay (reject %q): calls %q, want the plan first and once", reject, calls)
				}
				if reject != "" && (out.Result.Reason != driver.ReasonPlanRejected || len(calls) != 1) {
					t.Errorf("a rejected replay plan: %+v, calls %q", out.Result, calls)
				}
				if reject == "" && !out.Result.Success {
					t.Errorf("an approved replay plan: %+v", out.Result)
				}
			}
		})
	}
}
