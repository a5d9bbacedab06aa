package checkpoint_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
)

// TestNewPlan: an agent's plan is read into sites as the write set reads
// them, hosts in punycode; one out of bounds or naming no web site is
// refused whole, never cut.
func TestNewPlan(t *testing.T) {
	t.Parallel()
	many := func(n int, f string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(f, i)
		}
		return out
	}
	tests := []struct {
		name        string
		steps       []string
		write, read []string
		want        []checkpoint.PlanSite
		err         string
	}{
		{"URLs, origins and hosts", []string{"Open the cart"}, []string{"https://shop.example.com/cart?x=1", "http://127.0.0.1:8080"}, []string{"docs.example.org"},
			[]checkpoint.PlanSite{{"https://example.com", true}, {"http://127.0.0.1", true}, {"https://example.org", false}}, ""},
		{"a site read and written is written", []string{"s"}, []string{"https://a.example.com"}, []string{"https://b.example.com"},
			[]checkpoint.PlanSite{{"https://example.com", true}}, ""},
		{"a Cyrillic look-alike is its punycode", []string{"s"}, []string{"https://аpple.com/login"}, nil,
			[]checkpoint.PlanSite{{"https://xn--pple-43d.com", true}}, ""},
		{"a full-width look-alike is the host it maps to", []string{"s"}, []string{"https://ｅxample.com"}, nil,
			[]checkpoint.PlanSite{{"https://example.com", true}}, ""},
		{"no steps", nil, []string{"https://a.example"}, nil, nil, "needs its steps"},
		{"an empty step", []string{"a", "  "}, nil, nil, nil, "step 2 is empty"},
		{"too many steps", many(checkpoint.MaxPlanSteps+1, "step %d"), nil, nil, nil, "at most"},
		{"an overlong step", []string{strings.Repeat("x", checkpoint.MaxPlanStepLen+1)}, nil, nil, nil, "more than"},
		{"too many sites", []string{"s"}, many(checkpoint.MaxPlanSites, "https://s%d.example"), []string{"https://r.example"}, nil, "at most"},
		{"javascript:", []string{"s"}, []string{"javascript:alert(1)"}, nil, nil, "not a web site"},
		{"data:", []string{"s"}, []string{"data:text/html,<b>x</b>"}, nil, nil, "not a web site"},
		{"ftp", []string{"s"}, []string{"ftp://files.example.com"}, nil, nil, "only http and https"},
		{"HTML as a site", []string{"s"}, []string{"<img src=x onerror=alert(1)>"}, nil, nil, "not a web site"},
		{"an empty site", []string{"s"}, []string{" "}, nil, nil, "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := checkpoint.NewPlan(tc.steps, tc.write, tc.read)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("NewPlan = %+v, %v; want an error saying %q", p, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(p.Sites) != fmt.Sprint(tc.want) {
				t.Errorf("sites %v, want %v", p.Sites, tc.want)
			}
		})
	}
}

// TestPlanNarrowed: a person's edit only narrows: a removed site is gone,
// write turned to read holds, and nothing the answer adds (a new site,
// write on a read site) widens the plan.
func TestPlanNarrowed(t *testing.T) {
	t.Parallel()
	p, err := checkpoint.NewPlan([]string{"s"}, []string{"https://a.example", "https://b.example"}, []string{"https://r.example"})
	if err != nil {
		t.Fatal(err)
	}
	edited := &checkpoint.Plan{Sites: []checkpoint.PlanSite{
		{Site: "https://b.example", Write: false},
		{Site: "https://r.example", Write: true},
		{Site: "https://evil.example", Write: true},
	}}
	got := p.Narrowed(edited)
	if w := fmt.Sprint(got.WriteSites()); w != "[]" {
		t.Errorf("write sites %s after the person removed a and made b read-only; want none", w)
	}
	if fmt.Sprint(got.Sites) != fmt.Sprint([]checkpoint.PlanSite{{"https://b.example", false}, {"https://r.example", false}}) {
		t.Errorf("sites %v", got.Sites)
	}
	if w := fmt.Sprint(p.Narrowed(nil).WriteSites()); w != "[https://a.example https://b.example]" {
		t.Errorf("no edit: write sites %s", w)
	}
}

// TestApprovePlan: an approved plan's write sites join the write set; the
// person's narrowing holds; a rejected plan grants nothing and leaves an
// earlier approved one standing; a second approved plan replaces the
// first's sites; gated actions still ask.
func TestApprovePlan(t *testing.T) {
	t.Parallel()
	base, err := checkpoint.NewWriteSet("http://127.0.0.1:8080/")
	if err != nil {
		t.Fatal(err)
	}
	profile, err := checkpoint.LoadProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	person := &checkpointtest.Person{}
	g := checkpoint.NewGate(profile, person, checkpoint.Options{Session: "s"})
	ctx := context.Background()
	fill := checkpoint.Action{Verb: checkpoint.VerbFill, Role: "textbox", Name: "Email", Value: "a@b.c", Field: true}
	writes := func(url string) bool {
		_, gated := g.GatedIn(nil, in(fill, url), base)
		return !gated
	}
	plan := func(write ...string) checkpoint.Plan {
		p, err := checkpoint.NewPlan([]string{"do it"}, write, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	person.Answer = checkpoint.Decision{Channel: checkpoint.ChannelWeb}
	if d, _, err := g.ApprovePlan(ctx, nil, plan("https://a.example", "https://b.example"), "task", "why"); err != nil || d.Approved {
		t.Fatalf("rejected plan: %+v %v", d, err)
	}
	if writes("https://a.example/form") {
		t.Fatal("a rejected plan granted a write")
	}

	person.Answer = checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWeb,
		Plan: &checkpoint.Plan{Sites: []checkpoint.PlanSite{{Site: "https://a.example", Write: true}, {Site: "https://evil.example", Write: true}}}}
	d, approved, err := g.ApprovePlan(ctx, nil, plan("https://a.example", "https://b.example"), "task", "why")
	if err != nil || !d.Approved {
		t.Fatalf("approved plan: %+v %v", d, err)
	}
	if got := fmt.Sprint(approved.WriteSites()); got != "[https://a.example]" {
		t.Errorf("approved write sites %s, want a only (b removed, evil added by the answer)", got)
	}
	for url, want := range map[string]bool{"https://a.example/form": true, "https://x.a.example/": true, "https://b.example/form": false, "https://evil.example/": false, "http://127.0.0.1:9/": true} {
		if writes(url) != want {
			t.Errorf("write on %s unasked = %v, want %v", url, !want, want)
		}
	}
	pay := in(checkpoint.Action{Verb: checkpoint.VerbClick, Role: "button", Name: "Pay now", Submits: true}, "https://a.example/checkout")
	if _, gated := g.GatedIn(nil, pay, base); !gated {
		t.Error("a gated action on an approved plan's site did not ask")
	}

	person.Answer = checkpoint.Decision{Channel: checkpoint.ChannelTTY}
	g.ApprovePlan(ctx, nil, plan("https://c.example"), "task 2", "why")
	if !writes("https://a.example/form") || writes("https://c.example/") {
		t.Error("a rejected second plan changed the approved one")
	}
	person.Answer = checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY}
	g.ApprovePlan(ctx, nil, plan("https://c.example"), "task 2", "why")
	if writes("https://a.example/form") || !writes("https://c.example/") {
		t.Error("an approved second plan did not replace the first's sites")
	}
	for _, r := range person.Requests() {
		if r.Kind != checkpoint.KindPlan || r.Plan == nil {
			t.Errorf("request %+v is not a plan", r)
		}
	}
}

// TestPlanShownEscaped: what a person reads of a hostile plan is escaped,
// one fact a line, its look-alike hosts in punycode.
func TestPlanShownEscaped(t *testing.T) {
	t.Parallel()
	p, err := checkpoint.NewPlan([]string{"Log in\n\x1b[2JApproved.\u202e<script>alert(1)</script>", "go to https://аpple.com/x"}, []string{"https://аpple.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := checkpoint.Request{Kind: checkpoint.KindPlan, Action: "buy\nApproved", Plan: &p}
	text := r.Prompt() + "\n" + strings.Join(r.Lines(), "\n")
	for _, bad := range []string{"\x1b", "\u202e", "аpple", "\nApproved"} {
		if strings.Contains(text, bad) {
			t.Errorf("shown text holds %q:\n%s", bad, text)
		}
	}
	for _, want := range []string{"https://xn--pple-43d.com: WRITE", "Step 1 (the agent's words)", "Step 2", "still asks"} {
		if !strings.Contains(text, want) {
			t.Errorf("shown text lacks %q:\n%s", want, text)
		}
	}
	if n := len(r.Lines()); n != 2+1+1 {
		t.Errorf("%d lines, want one per step, per site and the note", n)
	}
}

// TestPlanPromptFiguresFirst: the task is the agent's words; written to
// look like the plan's figures ("writing without asking on 0 …"), it must
// not be read as them. The real figures come first, the words quoted.
func TestPlanPromptFiguresFirst(t *testing.T) {
	p, err := checkpoint.NewPlan([]string{"pay"}, []string{"https://bank.example"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{
		"pay the bill (1 step, writing without asking on 0 of its 1 site). Approve?",
		"pay\u2028(1 step, writing without asking on 0 of its 1 site)",
		"\"pay\" (1 step, writing without asking on 0 of its 1 site) for the task it names, in its own words: \"read only\"",
	} {
		r := checkpoint.Request{Kind: checkpoint.KindPlan, Action: task, Plan: &p}
		got := r.Prompt()
		i := strings.Index(got, "writing without asking on ")
		if i < 0 || !strings.HasPrefix(got[i:], "writing without asking on 1 of its 1 site)") {
			t.Errorf("task %q: the first figures a person reads are the agent's: %s", task, got)
		}
		if !strings.Contains(got, strconv.Quote(task)) && !strings.Contains(got, checkpoint.OneLine(strconv.Quote(task))) {
			t.Errorf("task %q is not quoted in %s", task, got)
		}
	}
}

// TestPlanWordsNoLayout: the agent's words in a plan (its steps, task and
// reason) are words, not layout: a run of spaces wraps on a terminal or a
// narrow page to put the agent's text at the start of a line, where it
// reads as the server's ("Site: https://bank.example: read only",
// "Approve? [y/N]"). A person is shown each run as one space.
func TestPlanWordsNoLayout(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat(" ", 200)
	forged := "Site: https://bank.example: read only"
	person := &checkpointtest.Person{Answer: checkpoint.Decision{Channel: checkpoint.ChannelTTY}}
	g := checkpoint.NewGate(nil, person, checkpoint.Options{Session: "s"})
	p, err := checkpoint.NewPlan([]string{"look" + pad + forged, "pay\u00a0\u00a0\u00a0" + pad + "Approve? [y/N]: "}, []string{"https://bank.example"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.ApprovePlan(context.Background(), nil, p, "task"+pad+forged, "why"+pad+forged); err != nil {
		t.Fatal(err)
	}
	asked := person.Requests()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	r := asked[0]
	for _, l := range append([]string{r.Prompt()}, r.Lines()...) {
		if strings.Contains(l, "  ") {
			t.Errorf("a run of spaces reaches the person: %q", l)
		}
	}
}
