package driver_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// tabSession is a session on a tab the test owns: closing the session
// leaves the tab to the test's cleanup.
type tabSession struct{ *tools.Session }

func (tabSession) Close() error { return nil }

// liveDemo returns the real server's tools, in process, on a tab of real
// Chromium at path of the fixture site, gated by the demo profile with a
// person who approves.
func liveDemo(t *testing.T, path string) toolapi.Tools {
	t.Helper()
	site := browsertest.Site(t)
	p, err := checkpoint.LoadProfile("demo")
	if err != nil {
		t.Fatal(err)
	}
	if p, err = p.WithDemoSite(site); err != nil {
		t.Fatal(err)
	}
	tab := browsertest.Tab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tab.Navigate(ctx, site+path); err != nil {
		t.Fatal(err)
	}
	person := &checkpointtest.Person{Answer: checkpoint.Decision{Approved: true, Channel: "test"}}
	return serveInProcess(t, func(context.Context) (server.Session, error) {
		gate := checkpoint.NewGate(p, person, checkpoint.Options{Session: "test"})
		return tabSession{tools.NewSession(tab, tools.Config{}, tools.WithGate(gate))}, nil
	})
}

// refOf finds, newest message first, the ref of the element the compact
// text lists with this role and name: what a model reads to pick a ref.
func refOf(req wireRequest, role, name string) (string, bool) {
	line := regexp.MustCompile(`(@e\d+) ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"`)
	for i := len(req.Messages) - 1; i >= 0; i-- {
		texts := req.Messages[i].texts()
		for j := len(texts) - 1; j >= 0; j-- {
			if m := line.FindStringSubmatch(texts[j]); m != nil {
				return m[1], true
			}
		}
	}
	return "", false
}

// actOn is a reply that calls tool on the element the newest snapshot
// lists with role and name, with more arguments; with no such element it
// gives up, which fails the run.
func actOn(tool, role, name string, extra map[string]any) fakeReply {
	return fakeReply{status: 200, fn: func(req wireRequest) []map[string]any {
		ref, ok := refOf(req, role, name)
		if !ok {
			return []map[string]any{complete("failed")}
		}
		in := map[string]any{"ref": ref}
		for k, v := range extra {
			in[k] = v
		}
		return []map[string]any{wireText(fmt.Sprintf("Next: %s on %s %q.", tool, role, name)), wireCall(tool, in)}
	}}
}

// demoReplies are the answers of a model that walks the demo's
// cancellation flow, as the scripted demo agent does.
func demoReplies() []fakeReply {
	return []fakeReply{
		actOn(toolapi.Click, "button", "Cancel Membership", nil),
		actOn(toolapi.Click, "button", "Continue to Cancel", nil),
		actOn(toolapi.Click, "radio", "It's too expensive", nil),
		actOn(toolapi.Click, "button", "Continue", nil),
		actOn(toolapi.RequestApproval, "button", "Finish Cancellation", map[string]any{
			"verb": "click", "action": `click "Finish Cancellation"`, "reason": "This cancels the membership and cannot be undone.",
		}),
		actOn(toolapi.Click, "button", "Finish Cancellation", nil),
		reply(complete("success")),
	}
}

// The demo flow's input, billed at cache prices, per turn and in all:
// before (every screenshot, no cache) and after (prompt caching, and
// screenshots only when needed). The fake API counts the tokens and
// simulates the cache on exact prefixes, so the figure is measured, not
// assumed. The goal is a third of before, at most 10,500.
func TestDemoFlowCost(t *testing.T) {
	t.Parallel()
	const goal = 10_500
	tests := []struct {
		name            string
		noCache, allImg bool
	}{
		{"before: no cache, every screenshot", true, true},
		{"cache, every screenshot", false, true},
		{"after: cache, screenshots when needed", false, false},
	}
	billed := map[string]float64{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, demoReplies()...)
			h.cfg.Tools = liveDemo(t, "/account")
			h.cfg.Goal = "Cancel my StreamFlix membership. Ask me before the final step."
			h.cfg.NoCache, h.cfg.AllScreenshots = tt.noCache, tt.allImg
			res := h.run(t)
			if !res.Success || res.Turns != 7 {
				t.Fatalf("result = %+v, want the flow done in 7 turns", res)
			}
			var total driver.Usage
			t.Logf("%-4s %8s %8s %8s %10s", "turn", "input", "read", "write", "billed")
			for i, u := range h.api.Usages() {
				total.Add(u)
				t.Logf("%-4d %8d %8d %8d %10.0f", i+1, u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.BilledInput())
				if !tt.noCache && i > 0 && u.CacheReadTokens == 0 {
					t.Errorf("turn %d read nothing from the cache", i+1)
				}
			}
			t.Logf("%-4s %8d %8d %8d %10.0f", "all", total.InputTokens, total.CacheReadTokens, total.CacheWriteTokens, total.BilledInput())
			if res.Tokens != total {
				t.Errorf("the run counted %+v, the API %+v", res.Tokens, total)
			}
			billed[tt.name] = total.BilledInput()
		})
	}
	before, after := billed[tests[0].name], billed[tests[2].name]
	t.Logf("billed input: before %.0f, after %.0f (%.2f×)", before, after, after/before)
	if after > goal || after > before/3 {
		t.Errorf("billed input after = %.0f token-equivalents, want at most %d and a third of before (%.0f)", after, goal, before)
	}
}
