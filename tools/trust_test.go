package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// gatedHarness is a harness whose session has a gate asking a scripted
// person, and an audit log in a buffer.
type gatedHarness struct {
	*harness
	person *checkpointtest.Person
	audit  *bytes.Buffer
}

// openGated opens path in a session gated by profile: a built-in profile's
// name, or a profile's JSON; demo: URLs point at the test's site.
func openGated(t *testing.T, path, profile string, approve bool, cfg Config) *gatedHarness {
	t.Helper()
	h := openWith(t, path, cfg)
	var p *checkpoint.Profile
	var err error
	if strings.HasPrefix(profile, "{") {
		p, err = checkpoint.ParseProfile([]byte(profile))
	} else {
		p, err = checkpoint.LoadProfile(profile)
	}
	if err != nil {
		t.Fatal(err)
	}
	if p, err = p.WithDemoSite(h.site); err != nil {
		t.Fatal(err)
	}
	answer := checkpoint.Decision{Approved: approve, Channel: checkpoint.ChannelTTY}
	if !approve {
		answer.Feedback = "not now"
	}
	g := &gatedHarness{harness: h, person: &checkpointtest.Person{Answer: answer}, audit: &bytes.Buffer{}}
	log := audit.New(g.audit, "test")
	WithGate(checkpoint.NewGate(p, g.person, checkpoint.Options{Audit: log}))(h.s)
	WithAudit(log)(h.s)
	return g
}

// approval calls request_human_approval.
func (h *harness) approval(args map[string]any) toolapi.ApprovalResult {
	h.t.Helper()
	r, ok := h.call(toolapi.RequestApproval, args).Value.(toolapi.ApprovalResult)
	if !ok {
		h.t.Fatal("request_human_approval did not answer with an ApprovalResult")
	}
	return r
}

// auditEvents returns the audit log's events of a kind, as maps.
func (g *gatedHarness) auditEvents(kind string) []map[string]any {
	g.t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(g.audit.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			g.t.Fatalf("audit line %q: %v", line, err)
		}
		if ev["event"] == kind {
			out = append(out, ev)
		}
	}
	return out
}

// TestApprovalCoversOnlyTheActionShown reverses the first scenario of issue
// 10: approving "Go back" does not let "Finish Cancellation" through, while
// approving "Finish Cancellation" by ref lets exactly that click through,
// once, and the audit log names the approval that covered it.
func TestApprovalCoversOnlyTheActionShown(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/finish", "demo", true, Config{})
	s := g.snap(true)
	r := g.approval(map[string]any{"action": "Go back to the survey", "reason": "I want to check my answers", "ref": browsertest.Ref(t, s, "button", "Go back")})
	if !r.Approved {
		t.Fatalf("approval refused: %s", r.Message)
	}
	res := g.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Finish Cancellation")})
	if !res.Success {
		t.Fatalf("click: %s", res.Message)
	}
	asked := g.person.Requests()
	if len(asked) != 2 {
		t.Fatalf("the person was asked %d times, want 2 (the approval of Go back must not cover Finish Cancellation)", len(asked))
	}
	if c := asked[1].Concrete; c == nil || c.Name != "Finish Cancellation" || c.Verb != checkpoint.VerbClick {
		t.Fatalf("second request is about %+v, want the click on Finish Cancellation", asked[1].Concrete)
	}
	if asked[1].Screenshot == nil {
		t.Error("the person was not shown a screenshot")
	}
	calls := g.auditEvents("tool_call")
	if last := calls[len(calls)-1]; last["approval_id"] != asked[1].ID {
		t.Errorf("the click's audit record names approval %v, want %s", last["approval_id"], asked[1].ID)
	}

	// The right approval, by ref, covers exactly the click, without asking
	// again.
	g = openGated(t, "/finish", "demo", true, Config{})
	s = g.snap(true)
	finish := browsertest.Ref(t, s, "button", "Finish Cancellation")
	if r := g.approval(map[string]any{"action": "Finish", "reason": "the user asked", "ref": finish}); !r.Approved {
		t.Fatalf("approval refused: %s", r.Message)
	}
	if res := g.act(toolapi.Click, map[string]any{"ref": finish}); !res.Success {
		t.Fatalf("click: %s", res.Message)
	}
	asked = g.person.Requests()
	if len(asked) != 1 {
		t.Fatalf("the person was asked %d times, want once", len(asked))
	}
	calls = g.auditEvents("tool_call")
	if last := calls[len(calls)-1]; last["tool"] != toolapi.Click || last["approval_id"] != asked[0].ID {
		t.Errorf("the click's audit record %v does not name approval %s", last, asked[0].ID)
	}
}

// TestWordsAlonePreApproveNothing: a request without a ref is shown as the
// agent's words and covers no action.
func TestWordsAlonePreApproveNothing(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/finish", "demo", true, Config{})
	s := g.snap(true)
	r := g.approval(map[string]any{"action": "Finish the cancellation", "reason": "final step"})
	if !r.Approved || !strings.Contains(r.Message, "nothing is pre-approved") {
		t.Fatalf("answer %+v does not say that nothing is pre-approved", r)
	}
	for _, tc := range []map[string]any{
		{"action": "x", "reason": "y", "ref": "@e99999"},
		{"action": "x", "reason": "y", "verb": "fill", "value": "1"},
		{"action": "x", "reason": "y", "ref": browsertest.Ref(t, s, "button", "Go back"), "verb": "fill", "value": "1"},
	} {
		r := g.approval(tc)
		if r.Approved || !strings.Contains(r.Message, ":") {
			t.Errorf("%v: answer %+v, want a refusal that says why", tc, r)
		}
		t.Logf("%v → %s", tc, r.Message)
	}
	if n := len(g.person.Requests()); n != 1 {
		t.Errorf("a bad request reached the person (%d requests)", n)
	}
	g.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Finish Cancellation")})
	if n := len(g.person.Requests()); n != 2 {
		t.Fatalf("the person was asked %d times, want 2", n)
	}
}

// TestSPAStepBecomesACheckpoint: the same URL and the same button, but the
// page turned into the final step after the agent's snapshot.
func TestSPAStepBecomesACheckpoint(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/variants/spa-steps", `{"name":"spa","checkpoints":[{"title_contains":"finish cancellation"}]}`, false, Config{})
	s := g.snap(true)
	cont := browsertest.Ref(t, s, "button", "Continue")
	g.eval(`finalStep()`, nil)
	r := g.act(toolapi.Click, map[string]any{"ref": cont})
	wantError(t, r, toolapi.HumanRejected)
	if n := len(g.person.Requests()); n != 1 {
		t.Fatalf("the person was asked %d times, want once", n)
	}
	var text string
	g.eval(`document.getElementById('step-text').textContent`, &text)
	if text == "Membership cancelled." {
		t.Fatal("the rejected click happened")
	}
}

// TestCheckpointOutOfView: the heading that makes the page a checkpoint is
// scrolled away, and still gates the button below it.
func TestCheckpointOutOfView(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/variants/checkout", `{"name":"shop","checkpoints":[{"element":{"role":"heading","name_contains":"Review your order"}}]}`, false, Config{})
	r := g.act(toolapi.Scroll, map[string]any{"direction": "bottom"})
	if _, ok := r.Snapshot.Find("heading", "Review your order"); ok {
		t.Fatal("the heading is still in the agent's view")
	}
	r = g.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Place order")})
	wantError(t, r, toolapi.HumanRejected)
	if strings.Contains(r.Snapshot.Page.URL, "order-placed") {
		t.Fatal("the order was placed")
	}
	asked := g.person.Requests()
	if len(asked) != 1 || asked[0].Concrete == nil || asked[0].Concrete.Box == nil {
		t.Fatalf("requests %+v: want one, about the button, with its box", asked)
	}
}

// TestDialogRuleGatesOK: a rule on a confirm dialog's message gates its OK,
// and the person reads the message.
func TestDialogRuleGatesOK(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/variants/checkout", `{"name":"leave","checkpoints":[{"dialog":{"type":"confirm","message_contains":"leave checkout"}}]}`, false, Config{})
	s := g.snap(false)
	r := g.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Cancel")})
	if !r.Success || !dialogOpen(r.Snapshot) {
		t.Fatalf("the confirm dialog did not open: %s", r.Message)
	}
	if n := len(g.person.Requests()); n != 0 {
		t.Fatalf("opening the dialog asked the person (%d requests)", n)
	}
	r = g.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "OK")})
	wantError(t, r, toolapi.HumanRejected)
	asked := g.person.Requests()
	if len(asked) != 1 || asked[0].Concrete == nil || asked[0].Concrete.Dialog == nil ||
		!strings.Contains(asked[0].Concrete.Dialog.Message, "Leave checkout?") {
		t.Fatalf("requests %+v: want one about the dialog's OK, with its message", asked)
	}
	if !dialogOpen(r.Snapshot) {
		t.Error("the rejected OK closed the dialog")
	}
	// While the dialog is open the page is the checkpoint: its Cancel asks
	// too.
	r = g.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Cancel")})
	wantError(t, r, toolapi.HumanRejected)
}

// TestVerdicts reverses the second scenario of issue 10: success is judged
// on all of the page, failure indicators veto it, and another origin does
// not count.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	complete := func(g *gatedHarness) toolapi.CompletionResult {
		g.t.Helper()
		out := g.call(toolapi.CompleteTask, map[string]any{"status": "success", "reason": "the page says so"})
		r, ok := out.Value.(toolapi.CompletionResult)
		if !ok || out.Image == nil {
			g.t.Fatalf("complete_task answered %+v without the snapshot's image", out)
		}
		return r
	}
	t.Run("failure page that says cancelled", func(t *testing.T) {
		g := openGated(t, "/variants/not-cancelled", "demo", true, Config{})
		r := complete(g)
		if r.Acknowledged || !strings.Contains(r.Message, "could not") {
			t.Fatalf("%+v: want a refusal naming the failure indicator", r)
		}
		t.Log(r.Message)
	})
	t.Run("success below the fold", func(t *testing.T) {
		g := openGated(t, "/variants/cancelled-below", "demo", true, Config{})
		r := complete(g)
		if !r.Acknowledged {
			t.Fatalf("%+v: want acknowledged", r)
		}
		t.Log(r.Message)
	})
	t.Run("another origin", func(t *testing.T) {
		g := openGated(t, "/account", "demo", true, Config{})
		other := browsertest.Site(t)
		if err := g.tab.Navigate(t.Context(), other+"/cancelled"); err != nil {
			t.Fatal(err)
		}
		r := complete(g)
		if r.Acknowledged || !strings.Contains(r.Message, strings.TrimPrefix(other, "http://")) {
			t.Fatalf("%+v: want a refusal naming the origin", r)
		}
		t.Log(r.Message)
	})
}
