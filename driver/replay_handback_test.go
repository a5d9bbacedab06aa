package driver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// A replay whose step comes after a person's hand-back (here the hand-back
// that answered the script's "sign in for me" request, which brings no
// snapshot) finds the step's refs dead: the call fails with ref_invalid
// and a fresh snapshot, on which the step is resolved again by its
// recorded description and done, with no model and no person. Before, it
// went to the model, or to the person as stuck. What the fresh snapshot
// does not show, or shows twice, still goes to recovery, after one call.
func TestReplayAfterHandBack(t *testing.T) {
	t.Parallel()
	const url = "https://shop.test/account"
	step := func(name string) driver.ScriptStep {
		return driver.ScriptStep{Tool: toolapi.Click, Target: &driver.StepTarget{Role: "button", Name: name}, Before: driver.PageState{URL: url}}
	}
	signIn := driver.ScriptStep{Tool: toolapi.RequestApproval, Args: json.RawMessage(`{"action":"Sign in for me","reason":"a CAPTCHA"}`)}
	done := driver.ScriptStep{Tool: toolapi.CompleteTask, Args: json.RawMessage(`{"status":"success","reason":"done"}`)}
	// renumbered is the page after the hand-back: refs go on counting.
	renumbered := func(names ...string) *snapshot.Snapshot {
		s := drivertest.Page(url, 0)
		for i, n := range names {
			s.Elements = append(s.Elements, snapshot.Element{Ref: "@e" + string(rune('5'+i)), Role: "button", Name: n, State: []string{}})
		}
		return s
	}
	tests := []struct {
		name     string
		after    *snapshot.Snapshot
		withLLM  bool
		reason   string
		how      []string
		calls    []string
		askedFor int
	}{
		{"resolved again, no model", renumbered("Account", "Continue"), false, driver.ReasonCompleted,
			[]string{driver.StepReplayed, driver.StepReplayed, driver.StepReplayed},
			[]string{"request_human_approval Sign in for me", "browser_click @e2", "browser_click @e6", "complete_task success"}, 0},
		{"resolved again, the model not asked", renumbered("Continue", "Account"), true, driver.ReasonCompleted,
			[]string{driver.StepReplayed, driver.StepReplayed, driver.StepReplayed},
			[]string{"request_human_approval Sign in for me", "browser_click @e2", "browser_click @e5", "complete_task success"}, 0},
		{"gone after the hand-back: to the person", renumbered("Account"), false, driver.ReasonStuck,
			[]string{driver.StepReplayed, "failed"},
			[]string{"request_human_approval Sign in for me", "browser_click @e2"}, 1},
		{"twice after the hand-back: to the person", renumbered("Continue", "Continue"), false, driver.ReasonStuck,
			[]string{driver.StepReplayed, "failed"},
			[]string{"request_human_approval Sign in for me", "browser_click @e2"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mb := &drivertest.MockBrowser{Page: drivertest.Page(url, 0, "Sign in", "Continue"), HandBack: tt.after}
			h := newHarness(t, mb)
			cfg := driver.ReplayConfig{Script: &driver.Script{Format: 1, Version: 1, Goal: "g", StartURL: url,
				Steps: []driver.ScriptStep{signIn, step("Continue"), done}}, Config: h.cfg}
			if !tt.withLLM {
				cfg.Model = nil
			}
			person := &askings{answer: driver.StuckAnswer{Stop: true}}
			cfg.Ask = person.ask
			out, err := driver.Replay(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != tt.reason || (out.Tokens != driver.Usage{}) {
				t.Fatalf("result = %+v, want %s with no model call", out.Result, tt.reason)
			}
			var how []string
			for _, s := range out.Steps {
				how = append(how, s.How)
			}
			if strings.Join(how, " ") != strings.Join(tt.how, " ") {
				t.Errorf("steps = %+v, want %v", out.Steps, tt.how)
			}
			if got := actions(h.mb); strings.Join(got, "|") != strings.Join(tt.calls, "|") {
				t.Errorf("calls = %q, want %q", got, tt.calls)
			}
			if len(person.asked) != tt.askedFor {
				t.Errorf("the person was asked %d times, want %d: %+v", len(person.asked), tt.askedFor, person.asked)
			}
			if out.Script != nil {
				t.Errorf("a replay whose steps all replayed wrote a new script version: %+v", out.Script)
			}
		})
	}
}
