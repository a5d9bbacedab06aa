package driver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// loginPage is a login form: a named field, a password field named only by
// the text before it, a field for an API key, and two buttons.
func loginPage() *snapshot.Snapshot {
	s := drivertest.Page("https://shop.test/login", 0, "Log in", "Help")
	s.Page.Title = "Log in - Shop"
	s.Elements = append(s.Elements,
		snapshot.Element{Ref: "@e3", Role: "textbox", Name: "Username", State: []string{}},
		snapshot.Element{Ref: "@e4", Role: "textbox", Kind: "password", State: []string{}},
		snapshot.Element{Ref: "@e5", Role: "textbox", Name: "API key", State: []string{}},
	)
	s.Text = "Username [@e3]\nPassword: [@e4]\nAPI key [@e5]\n[@e1 Log in] [@e2 Help]"
	return s
}

// A successful run writes script.json: the calls that worked, in order,
// each with its element described and no ref; a failed call is left out, a
// password typed in the clear is never written, a secret is its
// placeholder; the script validates against its schema.
func TestScriptRecorded(t *testing.T) {
	t.Parallel()
	const password, token = "hunter2-pw", "tok-81f3e2a9"
	mb := &drivertest.MockBrowser{
		Page:    loginPage(),
		Actions: map[string]drivertest.MockOutcome{toolapi.Click + " @e2": {Error: toolapi.ElementObscured}},
	}
	fill := func(ref, v string) fakeReply {
		return reply(wireCall(toolapi.Fill, map[string]any{"ref": ref, "value": v}))
	}
	h := newHarness(t, mb, fill("@e3", "ada"), fill("@e4", password), fill("@e5", token), reply(click("@e2")),
		reply(click("@e1")), reply(complete("success")))
	h.cfg.Secrets = map[string]string{"TOKEN": token}
	if res := h.run(t); !res.Success {
		t.Fatalf("result = %+v", res)
	}
	data, err := os.ReadFile(filepath.Join(h.rec.Dir(), driver.ScriptName))
	if err != nil {
		t.Fatal(err)
	}
	if err := driver.ValidateScript(data); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for _, never := range []string{password, token, `"@e`, `"ref"`} {
		if strings.Contains(string(data), never) {
			t.Errorf("script.json holds %q:\n%s", never, data)
		}
	}
	var s driver.Script
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	type row struct{ tool, target, args string }
	want := []row{
		{toolapi.Fill, `textbox "Username"`, `{"value":"ada"}`},
		{toolapi.Fill, `textbox "Password"`, ``},
		{toolapi.Fill, `textbox "API key"`, `{"value":"{{TOKEN}}"}`},
		{toolapi.Click, `button "Log in"`, ``},
		{toolapi.CompleteTask, `(no element)`, `{"reason":"because","status":"success"}`},
	}
	if len(s.Steps) != len(want) {
		t.Fatalf("steps = %+v, want %d", s.Steps, len(want))
	}
	for i, w := range want {
		st := s.Steps[i]
		var args bytes.Buffer
		if len(st.Args) > 0 {
			if err := json.Compact(&args, st.Args); err != nil {
				t.Fatal(err)
			}
		}
		if st.Tool != w.tool || st.Target.String() != w.target || args.String() != w.args {
			t.Errorf("step %d = %s %s %s, want %+v", i+1, st.Tool, st.Target, st.Args, w)
		}
		if st.Before.URL != "https://shop.test/login" || st.Before.Title != "Log in - Shop" {
			t.Errorf("step %d before = %+v", i+1, st.Before)
		}
	}
	if pw := s.Steps[1]; !pw.ValueWithheld || pw.Target.Kind != "password" || pw.Target.Label != "Password" || pw.Target.Name != "" {
		t.Errorf("password step = %+v, target %+v", pw, pw.Target)
	}
	if s.Steps[3].Target.Text != "Log in" {
		t.Errorf("the button's text = %q", s.Steps[3].Target.Text)
	}
}

// A step that finds no element, several, or whose action fails goes to the
// model; with none, to the person, who can stop the replay or let the step
// be tried again; with nobody to ask, the replay ends as stuck.
func TestReplayRecovery(t *testing.T) {
	t.Parallel()
	step := func(name string) driver.ScriptStep {
		return driver.ScriptStep{Tool: toolapi.Click, Target: &driver.StepTarget{Role: "button", Name: name}}
	}
	done := driver.ScriptStep{Tool: toolapi.CompleteTask, Args: json.RawMessage(`{"status":"success","reason":"done"}`)}
	tests := []struct {
		name    string
		page    *snapshot.Snapshot
		steps   []driver.ScriptStep
		replies []fakeReply // the model's; none: no model
		ask     *driver.StuckAnswer
		reason  string
		why     string
		how     []string
		calls   []string
	}{
		{"two matches go to the model", drivertest.Page("https://shop.test/", 0, "Cancel", "Cancel", "Other"),
			[]driver.ScriptStep{step("Cancel"), done}, []fakeReply{reply(click("@e2"))}, nil,
			driver.ReasonCompleted, "2 elements match button \"Cancel\" by role and name: @e1, @e2",
			[]string{driver.StepRecovered, driver.StepReplayed}, []string{"browser_click @e2", "complete_task success"}},
		{"a failed action goes to the model, twice, then the person stops", drivertest.Page("https://shop.test/", 0, "Help", "Other"),
			[]driver.ScriptStep{step("Help"), done}, []fakeReply{reply(click("@e1"))}, &driver.StuckAnswer{Stop: true},
			driver.ReasonStuck, "failed (element_obscured)", []string{"failed"}, []string{"browser_click @e1", "browser_click @e1", "browser_click @e1"}},
		{"no model: the person lets it try again", drivertest.Page("https://shop.test/", 0, "Gone"),
			[]driver.ScriptStep{step("Missing"), done}, nil, &driver.StuckAnswer{},
			driver.ReasonStuck, "no element matches button \"Missing\"", []string{"failed"}, nil},
		{"no model, nobody to ask", drivertest.Page("https://shop.test/", 0, "Gone"),
			[]driver.ScriptStep{step("Missing"), done}, nil, nil,
			driver.ReasonStuck, "no element matches", []string{"failed"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mb := &drivertest.MockBrowser{Page: tt.page,
				Actions: map[string]drivertest.MockOutcome{toolapi.Click + " @e1": {Error: toolapi.ElementObscured}}}
			h := newHarness(t, mb, tt.replies...)
			cfg := driver.ReplayConfig{Script: &driver.Script{Format: 1, Version: 1, Goal: "g", Steps: tt.steps}, Config: h.cfg}
			if tt.replies == nil {
				cfg.Model = nil
			}
			person := &askings{}
			if tt.ask != nil {
				person.answer = *tt.ask
				cfg.Ask = person.ask
			}
			out, err := driver.Replay(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != tt.reason {
				t.Fatalf("result = %+v, want %s", out.Result, tt.reason)
			}
			var how []string
			for _, s := range out.Steps {
				how = append(how, s.How)
			}
			if strings.Join(how, " ") != strings.Join(tt.how, " ") || !strings.Contains(out.Steps[0].Why, tt.why) {
				t.Errorf("steps = %+v, want %v, the first because %q", out.Steps, tt.how, tt.why)
			}
			if got := actions(h.mb); strings.Join(got, "|") != strings.Join(tt.calls, "|") {
				t.Errorf("calls = %q, want %q", got, tt.calls)
			}
			if tt.ask != nil && len(person.asked) != 1 {
				t.Errorf("the person was asked %d times, want once", len(person.asked))
			}
			if tt.reason == driver.ReasonCompleted {
				if out.Script == nil || out.Script.Version != 2 || out.Script.Steps[0].Target.Name != "Cancel" {
					t.Errorf("new script = %+v", out.Script)
				}
			} else if out.Script != nil {
				t.Error("a failed replay wrote a new script")
			}
		})
	}
}

// locatedPage is a sign-in button and, in a frame at frame, a card field,
// each with the DOM id and CSS path the snapshot gives them.
func locatedPage(button, id, css, frame string) *snapshot.Snapshot {
	s := drivertest.Page("https://shop.test/login", 0)
	s.Elements = []snapshot.Element{
		{Ref: "@e1", Role: "button", Name: "Help", State: []string{}, CSS: "form#signin > button:nth-of-type(1)"},
		{Ref: "@e2", Role: "button", Name: button, State: []string{}, DOMID: id, CSS: css},
		{Ref: "@e3", Role: "textbox", Name: "Card number", State: []string{}, DOMID: "card", CSS: "input#card", Frame: frame},
	}
	s.Text = "[@e1 Help] [@e2 " + button + "]\nCard number: [@e3]"
	return s
}

// A script records each target's DOM id, CSS path and frame (without its
// query); a replay finds an element whose name, label and text changed by
// its id, else by its CSS path, with no model; an element in another frame
// than the recorded one never matches.
func TestScriptLocators(t *testing.T) {
	t.Parallel()
	const frame = "https://pay.test/card-frame"
	mb := &drivertest.MockBrowser{Page: locatedPage("Log in", "login", "form#signin > button.primary", frame+"?session=81f3")}
	h := newHarness(t, mb, reply(click("@e2")), reply(wireCall(toolapi.Fill, map[string]any{"ref": "@e3", "value": "4242"})), reply(complete("success")))
	if res := h.run(t); !res.Success {
		t.Fatalf("result = %+v", res)
	}
	script, err := driver.ReadScript(filepath.Join(h.rec.Dir(), driver.ScriptName))
	if err != nil {
		t.Fatal(err)
	}
	if len(script.Steps) != 3 {
		t.Fatalf("steps = %+v", script.Steps)
	}
	if got, want := *script.Steps[0].Target, (driver.StepTarget{Role: "button", Name: "Log in", Text: "Log in", ID: "login", CSS: "form#signin > button.primary"}); got != want {
		t.Errorf("button target = %+v, want %+v", got, want)
	}
	if got, want := *script.Steps[1].Target, (driver.StepTarget{Role: "textbox", Name: "Card number", Label: "Card number", ID: "card", CSS: "input#card", Frame: frame}); got != want {
		t.Errorf("field target = %+v, want %+v", got, want)
	}

	tests := []struct {
		name   string
		page   *snapshot.Snapshot
		reason string
		calls  []string
	}{
		{"renamed, same id", locatedPage("Sign in", "login", "form#signin2 > button", frame+"?session=9d01"),
			driver.ReasonCompleted, []string{"browser_click @e2", "browser_fill @e3", "complete_task success"}},
		{"renamed, same CSS path", locatedPage("Sign in", "", "form#signin > button.primary", frame),
			driver.ReasonCompleted, []string{"browser_click @e2", "browser_fill @e3", "complete_task success"}},
		{"renamed, new id and path", locatedPage("Sign in", "sign-in", "form#signin > button.main", frame),
			driver.ReasonStuck, nil},
		{"the field in another frame", locatedPage("Log in", "login", "form#signin > button.primary", "https://evil.test/card-frame"),
			driver.ReasonStuck, []string{"browser_click @e2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, &drivertest.MockBrowser{Page: tt.page})
			cfg := driver.ReplayConfig{Script: script, Config: h.cfg}
			cfg.Model = nil
			out, err := driver.Replay(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != tt.reason || (out.Tokens != driver.Usage{}) {
				t.Fatalf("result = %+v, want %s with no tokens", out.Result, tt.reason)
			}
			if got := actions(h.mb); strings.Join(got, "|") != strings.Join(tt.calls, "|") {
				t.Errorf("calls = %q, want %q", got, tt.calls)
			}
		})
	}
}

// actions are the calls mb received but get_snapshot, as "tool target".
func actions(mb *drivertest.MockBrowser) []string {
	var got []string
	for _, c := range mb.Calls() {
		if c.Name != toolapi.GetSnapshot {
			got = append(got, strings.TrimSpace(c.Name+" "+driver.Target(c.Name, c.Args)))
		}
	}
	return got
}
