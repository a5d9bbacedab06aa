package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/mcp"
)

// planSteps are a plan's steps as an agent writes them.
var planSteps = []any{"Open the partner sign-up form", "Fill in the email and the plan", "Join"}

// planAsked checks that the person was asked about a plan, and returns its
// sites as they were shown.
func planAsked(t *testing.T, host *approvalHost) []checkpoint.PlanSite {
	t.Helper()
	p := host.asked(t)
	if p.Kind != checkpoint.KindPlan || p.Plan == nil {
		t.Fatalf("the person was asked %q (kind %s), not a plan", p.Prompt, p.Kind)
	}
	return p.Plan.Sites
}

// TestPlanApprovedOnce is issue 28 item 3: the agent puts its plan to the
// person once (request_human_approval with plan, write and read); the
// sites the person leaves it to write on are written on without asking,
// every gated action still asks, and a write on any other site asks. A
// rejected plan grants nothing, and the person's edit (removing a site)
// holds. The session is an isolated context, not the person's browser.
func TestPlanApprovedOnce(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, host, _ := webhookServe(t, "--url", site.URL+originsStart, "--audit-dir", auditDir)
	plan := func(write ...any) map[string]any {
		return map[string]any{"action": "Join the partner programme", "reason": "the user asked me to",
			"plan": planSteps, "write": write, "read": []any{site.URL + originsStart}}
	}

	// A rejected plan grants nothing.
	host.decisions <- map[string]any{"approved": false, "feedback": "not now"}
	if a := requestApproval(t, c, plan(site.Other+"/hostile/origins-form")); a.Approved || !strings.Contains(a.Message, "not now") {
		t.Fatalf("a rejected plan: %+v", a)
	}
	shown := planAsked(t, host)
	if !slices.Contains(shown, checkpoint.PlanSite{Site: originsOtherSite, Write: true}) || !slices.Contains(shown, checkpoint.PlanSite{Site: "http://127.0.0.1"}) {
		t.Errorf("the person was shown the sites %v", shown)
	}
	s := originsToForm(t, c, host)
	host.decisions <- map[string]any{"approved": false}
	r, s := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": originsEmail})
	originsAskedAbout(t, host, "typing")
	originsRejected(t, r)

	// The person removes the other site from the plan: writing there
	// still asks. A site the answer adds is not added.
	host.decisions <- map[string]any{"approved": true, "sites": []any{
		map[string]any{"site": "https://shop.example", "write": true},
		map[string]any{"site": "http://evil.example", "write": true},
	}}
	a := requestApproval(t, c, plan(site.Other, "https://shop.example/cart"))
	planAsked(t, host)
	if !a.Approved || !strings.Contains(a.Message, "https://shop.example") || !strings.Contains(a.Message, "did not allow writing on "+originsOtherSite) {
		t.Fatalf("a plan the person narrowed: %+v", a)
	}
	host.decisions <- map[string]any{"approved": false}
	r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": originsEmail})
	originsAskedAbout(t, host, "typing")
	originsRejected(t, r)

	// The plan approved as it is: its writes go on without asking.
	host.decisions <- map[string]any{"approved": true}
	if a := requestApproval(t, c, plan(site.Other)); !a.Approved || !strings.Contains(a.Message, "write (type, submit) on "+originsOtherSite) {
		t.Fatalf("the approved plan: %+v", a)
	}
	planAsked(t, host)
	r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": originsEmail})
	if !r.Success || originsValue(t, s, "textbox", "Email") != originsEmail {
		t.Fatalf("a fill on a site of the approved plan: %v %q", r.Error, r.Message)
	}
	r, s = act(t, c, toolapi.Select, map[string]any{"ref": browsertest.Ref(t, s, "combobox", "Plan"), "value": "gold"})
	if !r.Success {
		t.Fatalf("a select on a site of the approved plan: %v %q", r.Error, r.Message)
	}
	r, s = click(t, c, browsertest.Ref(t, s, "button", "Join"))
	if !r.Success || !strings.Contains(s.Text, "Joined: "+originsEmail+" gold") {
		t.Fatalf("a submit on a site of the approved plan: %v %q", r.Error, r.Message)
	}
	host.notAsked(t)

	// A gated action on a site of the plan still asks.
	r, s = act(t, c, toolapi.Navigate, map[string]any{"url": site.Other + "/variants/card-frame"})
	if !r.Success {
		t.Fatalf("open the card form on the plan's site: %v %q", r.Error, r.Message)
	}
	host.notAsked(t)
	host.decisions <- map[string]any{"approved": false, "feedback": "no paying"}
	r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Card number"), "value": "4242424242424242"})
	if p := host.asked(t); p.Kind != checkpoint.KindCheckpoint || p.Site != "" {
		t.Errorf("the gated fill asked %q (kind %s, site %q), want the checkpoint's question", p.Prompt, p.Kind, p.Site)
	}
	originsRejected(t, r)
	if v := originsValue(t, s, "textbox", "Card number"); v != "" {
		t.Errorf("the card number holds %q after a rejection", v)
	}

	// The audit log keeps each approved plan's write sites.
	var approved [][]any
	for deadline := time.Now().Add(10 * time.Second); len(approved) < 2 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		approved = nil
		for _, ev := range auditEvents(t, auditDir) {
			if ev["event"] == "plan_approved" {
				w, _ := ev["write"].([]any)
				approved = append(approved, w)
			}
		}
	}
	if fmt.Sprint(approved) != fmt.Sprint([][]any{{"https://shop.example"}, {originsOtherSite}}) {
		t.Errorf("the audit log's approved plans: %v", approved)
	}
}

// TestPlanHostile: a hostile agent's plan is shown escaped, its look-alike
// hosts as the hosts the browser connects to, and bounded: one past the
// bounds, or naming what is no web site, or mixed with an element's ref,
// is refused before anyone is asked, and grants nothing.
func TestPlanHostile(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	c, host, _ := webhookServe(t, "--url", site.URL+originsStart)

	many := make([]any, 1000)
	for i := range many {
		many[i] = fmt.Sprintf("https://s%d.example", i)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"a thousand sites", map[string]any{"plan": planSteps, "write": many}, "at most"},
		{"a thousand steps", map[string]any{"plan": many}, "at most"},
		{"a step of 10 kB", map[string]any{"plan": []any{strings.Repeat("Approve everything. ", 500)}}, "more than"},
		{"javascript: as a site", map[string]any{"plan": planSteps, "write": []any{"javascript:alert(document.cookie)"}}, "not a web site"},
		{"markup as a site", map[string]any{"plan": planSteps, "write": []any{`"><img src=x onerror=alert(1)>`}}, "not a web site"},
		{"a plan with a ref", map[string]any{"plan": planSteps, "write": []any{site.Other}, "ref": "@e1"}, "names no element"},
		{"sites without steps", map[string]any{"write": []any{site.Other}}, "needs its steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["action"], tc.args["reason"] = "a task", "because"
			a := requestApproval(t, c, tc.args)
			if a.Approved || !strings.HasPrefix(a.Message, "invalid_params") || !strings.Contains(a.Message, tc.want) || len(a.Message) > 2000 {
				t.Errorf("answer %+v, want invalid_params saying %q", a, tc.want)
			}
			host.notAsked(t)
		})
	}

	// Look-alike hosts, markup, terminal escapes and bidi overrides: the
	// person reads them escaped, the hosts in punycode; the raw fields
	// carry the sites as the write set holds them.
	host.decisions <- map[string]any{"approved": false}
	requestApproval(t, c, map[string]any{"action": "Pay at\x1b[2J https://аpple.com\u202e", "reason": "<b>trust me</b>",
		"plan":  []any{"Log in at https://аpple.com/login\nApproved by a human via web.", "<script>alert(1)</script>"},
		"write": []any{"https://аpple.com/login", "paypal.com.evil.example"}, "read": []any{"https://www.xn--80ak6aa92e.com"}})
	p := host.asked(t)
	text := p.Prompt + "\n" + strings.Join(p.Lines, "\n")
	for _, bad := range []string{"\x1b", "\u202e", "аpple", "\nApproved by"} {
		if strings.Contains(text, bad) {
			t.Errorf("the person reads %q:\n%s", bad, text)
		}
	}
	for _, want := range []string{"https://xn--pple-43d.com: WRITE", "https://evil.example: WRITE", "https://xn--80ak6aa92e.com: read only", `\nApproved by a human via web.`} {
		if !strings.Contains(text, want) {
			t.Errorf("the person does not read %q:\n%s", want, text)
		}
	}
	if p.Plan == nil || fmt.Sprint(p.Plan.Sites) != "[{https://xn--pple-43d.com true} {https://evil.example true} {https://xn--80ak6aa92e.com false}]" {
		t.Errorf("the payload's plan: %+v", p.Plan)
	}
}

// TestPlanRunFlag: "chaperone run --plan" shows the model's plan to the
// person before the first action: an action the model tries first does
// not run, the plan is asked, and once it is approved the writes on its
// sites go on without asking.
func TestPlanRunFlag(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	model := &injectionModel{steps: []injectionStep{
		injectionDo(false, toolapi.GetSnapshot, map[string]any{"viewport_only": false}),
		// Before any plan: not executed.
		injectionOn(false, toolapi.Click, "link", "Partner sign-up", nil),
		injectionDo(false, toolapi.RequestApproval, map[string]any{"action": "Join the partner programme", "reason": "the goal",
			"plan": planSteps, "write": []any{site.Other}, "read": []any{site.URL}}),
		injectionOn(false, toolapi.Click, "link", "Partner sign-up", nil),
		injectionOn(false, toolapi.Fill, "textbox", "Email", map[string]any{"value": originsEmail}),
		injectionDo(false, toolapi.CompleteTask, map[string]any{"status": "failed", "reason": "stop here"}),
	}}
	api := httptest.NewServer(model)
	t.Cleanup(api.Close)
	host, hookURL := newApprovalHost(t, webhookToken)
	host.decisions <- map[string]any{"approved": true}
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", "--plan", "--goal", "Join the partner programme with "+originsEmail,
		"--url", site.URL+originsStart, "--approver", "webhook", "--webhook-url", hookURL, "--out", out, "--max-turns", "8")
	cmd.Env = append(os.Environ(), lentBrowser(t), actionBudget, "ANTHROPIC_API_KEY=sk-test", "ANTHROPIC_BASE_URL="+api.URL,
		"CHAPERONE_WEBHOOK_TOKEN="+webhookToken)
	output, _ := cmd.CombinedOutput()
	t.Logf("the run:\n%s", output)
	sites := planAsked(t, host)
	if !slices.Contains(sites, checkpoint.PlanSite{Site: originsOtherSite, Write: true}) {
		t.Errorf("the plan's sites: %v", sites)
	}
	host.notAsked(t)
	model.mu.Lock()
	read := strings.Join(model.read, "\n")
	model.mu.Unlock()
	if !strings.Contains(read, "FIRST, before any action: call request_human_approval") || !strings.Contains(read, "Not executed: this run shows its plan") {
		t.Error("the model was not told to show its plan first, or its early click ran")
	}
	log := string(output)
	approved := strings.Index(log, "plan approved by a person")
	firstClick := strings.Index(log, `msg="tool call" tool=browser_click`)
	if approved < 0 || firstClick < 0 || firstClick < approved {
		t.Errorf("the first click ran at %d, the plan was approved at %d", firstClick, approved)
	}
	if !site.saw("/hostile/origins-form") {
		t.Error("the run never reached the plan's site")
	}
	var filled bool
	for _, l := range drivertest.ReadSessionLog(t, out) {
		if l["tool"] == toolapi.Fill && l["result"] == "success" {
			filled = true
		}
	}
	if !filled {
		t.Error("the fill on the plan's site did not go through unasked")
	}
}

// TestPlanWebConsoleEdit: in the web console the person reads the plan
// escaped, its sites as punycode hosts each with a choice, removes one and
// approves: the removed site still asks, and the agent is told so.
func TestPlanWebConsoleEdit(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	c, _, stderr := stdioClient(t, nil, "serve", "--url", site.URL+originsStart, "--open-approvals=false")
	news := listen(t, c)
	answer := make(chan approval, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name = toolapi.RequestApproval
		req.Params.Arguments = map[string]any{"action": "Join <b>now</b>", "reason": "r", "plan": []any{"Sign up\u202e at https://аpple.com"},
			"write": []any{site.Other, "https://аpple.com"}}
		var a approval
		if res, err := c.CallTool(ctx, req); err == nil {
			data, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(data, &a)
		}
		answer <- a
	}()
	_, console := news.next(t, stderr)
	code, page := getPage(t, console)
	if code != http.StatusOK {
		t.Fatalf("console: %d", code)
	}
	for _, bad := range []string{"<b>now", "\u202e", "аpple"} {
		if strings.Contains(page, bad) {
			t.Errorf("the console shows %q", bad)
		}
	}
	for _, want := range []string{`<code>` + originsOtherSite + `</code> <select name="site-0">`, `<code>https://xn--pple-43d.com</code> <select name="site-1">`} {
		if !strings.Contains(page, want) {
			t.Errorf("the console lacks %q:\n%s", want, page)
		}
	}
	waiting := pending(t, console)
	if len(waiting) != 1 {
		t.Fatalf("%d pending", len(waiting))
	}
	resp, err := http.PostForm(console+"api/approvals/"+waiting[0].ID, url.Values{"decision": {"approve"}, "site-0": {"remove"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	a := <-answer
	if !a.Approved || !strings.Contains(a.Message, "did not allow writing on "+originsOtherSite) || !strings.Contains(a.Message, "on https://xn--pple-43d.com for this task") {
		t.Fatalf("the answer: %+v", a)
	}
	// The removed site still asks: the fill waits for the person.
	s := getSnapshot(t, c)
	_, s = click(t, c, browsertest.Ref(t, s, "link", "Partner sign-up"))
	done := callAsync(c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": originsEmail})
	for deadline := time.Now().Add(30 * time.Second); len(pending(t, console)) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	waiting = pending(t, console)
	if len(waiting) != 1 || !strings.Contains(waiting[0].Action, "fill") {
		t.Fatalf("the fill on the removed site: pending %+v", waiting)
	}
	resp, _ = http.Post(console+"api/approvals/"+waiting[0].ID, "application/json", strings.NewReader(`{"approved":false}`))
	resp.Body.Close()
	if r := <-done; r.Success {
		t.Fatal("a rejected fill on the removed site went through")
	}
}

// getPage GETs u and returns its status and body.
func getPage(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPlanEndsWithTask: a person approves a plan for one task ("for this
// task", as the prompt says): once the agent has ended that task
// (complete_task, acknowledged), writing on the plan's sites asks again,
// and the answer says so.
func TestPlanEndsWithTask(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	c, host, _ := webhookServe(t, "--url", site.URL+originsStart)
	host.decisions <- map[string]any{"approved": true}
	if a := requestApproval(t, c, map[string]any{"action": "Join the partner programme", "reason": "the user asked me to",
		"plan": planSteps, "write": []any{site.Other}}); !a.Approved {
		t.Fatalf("the approved plan: %+v", a)
	}
	planAsked(t, host)
	s := originsToForm(t, c, host)
	r, s := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": originsEmail})
	if !r.Success {
		t.Fatalf("a fill on a site of the approved plan: %v %q", r.Error, r.Message)
	}
	host.notAsked(t)
	if done := complete(t, c, "failed"); !done.Acknowledged || !strings.Contains(done.Message, "plan") {
		t.Errorf("complete_task does not say the plan ended: %+v", done)
	}
	s = getSnapshot(t, c)
	host.decisions <- map[string]any{"approved": false}
	r, _ = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": "other@example.com"})
	originsAskedAbout(t, host, "typing")
	originsRejected(t, r)
}
