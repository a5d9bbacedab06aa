package approver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// planRequest is a hostile agent's plan as the gate puts it to a person.
func planRequest(t *testing.T, id string) checkpoint.Request {
	t.Helper()
	p, err := checkpoint.NewPlan(
		[]string{"Sign in\x1b[2J\u202e</li><script>alert(1)</script>", "Approved by a human via web."},
		[]string{"https://аpple.com/login", "https://shop.example"}, []string{"https://docs.example"})
	if err != nil {
		t.Fatal(err)
	}
	r := testRequest(id)
	r.Kind, r.Action, r.Words, r.Concrete, r.Screenshot, r.Plan = checkpoint.KindPlan, "Buy <b>it</b>", "Buy <b>it</b>", nil, nil, &p
	return r
}

// TestWebPlan: the console shows a plan escaped, its sites as hosts in
// punycode each with what the agent may do there, and the person's edit
// (remove, read only) comes back with the approval.
func TestWebPlan(t *testing.T) {
	t.Parallel()
	w, urls := startWeb(t)
	done := approveAsync(t.Context(), w, planRequest(t, "plan-1"))
	<-urls
	code, body, _ := get(t, viewURL(t, w, "sess-1"))
	if code != 200 {
		t.Fatalf("console: %d", code)
	}
	for _, bad := range []string{"<script>alert", "\x1b", "\u202e", "аpple", "<b>it"} {
		if strings.Contains(body, bad) {
			t.Errorf("the console page holds %q", bad)
		}
	}
	for _, want := range []string{
		`<code>https://xn--pple-43d.com</code> <select name="site-0"><option value="write" selected>write without asking</option>`,
		`<code>https://docs.example</code> <select name="site-2"><option value="read" selected>read only</option>`,
		"The agent's plan (its own words", "Approve the plan with these sites",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the console page lacks %q:\n%s", want, body)
		}
	}
	// A value the console never offers is refused; the request waits on.
	resp, err := http.PostForm(viewURL(t, w, "sess-1")+"api/approvals/plan-1", url.Values{"decision": {"approve"}, "site-0": {"allow-all"}})
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a bad site choice: %v %v", resp, err)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noRedirect.PostForm(viewURL(t, w, "sess-1")+"api/approvals/plan-1", url.Values{"decision": {"approve"}, "site-0": {"remove"}, "site-1": {"read"}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("form decision: %v %v", resp, err)
	}
	r := <-done
	if r.err != nil || !r.d.Approved || r.d.Plan == nil {
		t.Fatalf("decision %+v %v", r.d, r.err)
	}
	if got := fmt.Sprint(r.d.Plan.Sites); got != "[{https://shop.example false} {https://docs.example false}]" {
		t.Errorf("the person's edit came back as %s", got)
	}
	// The console shows the plan back as the person left it: what they
	// approved, not what the agent proposed.
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ = get(t, viewURL(t, w, "sess-1")+"?"+back.RawQuery)
	if code != 200 {
		t.Fatalf("console after the decision: %d", code)
	}
	shown, _, _ := strings.Cut(body, "<script")
	for _, want := range []string{"You approved the plan", "https://shop.example: read only", "https://docs.example: read only"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the console after approving lacks %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "xn--pple-43d") {
		t.Errorf("the console after approving shows the removed site:\n%s", shown)
	}
	// Another session's view never shows it.
	if _, other, _ := get(t, viewURL(t, w, "sess-2")+"?"+back.RawQuery); strings.Contains(other, "You approved the plan") {
		t.Errorf("another session's console shows the plan")
	}
}

// TestTTYPlan: at the terminal the plan is shown escaped, and "e" lets the
// person set each site in turn before approving.
func TestTTYPlan(t *testing.T) {
	t.Parallel()
	tty, h := newTTYPair(t)
	done := approveAsync(t.Context(), tty, planRequest(t, "plan-2"))
	shown := h.readUntil(t, "[y/N, or e to change the sites first]: ")
	for _, bad := range []string{"\x1b", "\u202e", "аpple"} {
		if strings.Contains(shown, bad) {
			t.Errorf("the terminal shows %q:\n%s", bad, shown)
		}
	}
	if !strings.Contains(shown, "Site: https://xn--pple-43d.com: WRITE") || !strings.Contains(shown, "(the agent's plan") {
		t.Errorf("the terminal shows:\n%s", shown)
	}
	h.say("e")
	h.readUntil(t, "https://xn--pple-43d.com [w=write without asking, r=read only, x=remove; Enter keeps write]: ")
	h.say("x")
	h.readUntil(t, "https://shop.example [w=write without asking, r=read only, x=remove; Enter keeps write]: ")
	h.say("w")
	h.readUntil(t, "https://docs.example [r=read only, x=remove; Enter keeps read only]: ")
	h.say("w") // not offered: asked again
	h.readUntil(t, "https://docs.example [r=read only, x=remove; Enter keeps read only]: ")
	h.say("")
	summary := h.readUntil(t, "Approve the plan with these sites? [y/N]: ")
	if !strings.Contains(summary, "https://shop.example: WRITE without asking") || strings.Contains(summary, "xn--pple-43d.com: ") {
		t.Errorf("summary:\n%s", summary)
	}
	h.say("y")
	r := <-done
	if r.err != nil || !r.d.Approved || r.d.Plan == nil || fmt.Sprint(r.d.Plan.Sites) != "[{https://shop.example true} {https://docs.example false}]" {
		t.Fatalf("decision %+v %v", r.d, r.err)
	}
}

// TestTTYPlanNoValidAnswer: answers that are none of the choices, again
// and again, reject the plan.
func TestTTYPlanNoValidAnswer(t *testing.T) {
	t.Parallel()
	tty, h := newTTYPair(t)
	done := approveAsync(t.Context(), tty, planRequest(t, "plan-3"))
	h.readUntil(t, "[y/N, or e to change the sites first]: ")
	h.say("e")
	for range maxPlanTries {
		h.readUntil(t, "Enter keeps write]: ")
		h.say("yes please")
	}
	h.readUntil(t, "the plan is rejected.\n")
	if r := <-done; r.err != nil || r.d.Approved || r.d.Plan != nil {
		t.Fatalf("decision %+v %v", r.d, r.err)
	}
}
