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

// signInAt is a sign-in form at url: a "Password" field, and the button;
// with frame set, the field is in a frame at that URL.
func signInAt(url, frame string) *snapshot.Snapshot {
	s := drivertest.Page(url, 0, "Sign in")
	s.Elements = append(s.Elements, snapshot.Element{Ref: "@e2", Role: "textbox", Name: "Password", Kind: "password", State: []string{}, Frame: frame})
	s.Text = "[@e1 Sign in]\nPassword [@e2]"
	return s
}

// TestReplayActsOnlyWhereRecorded reverses issue 22's replay finding: a
// step is matched by role and name only on the page it was recorded on
// (origin, and path up to ids), and a secret is typed only on the site it
// was recorded on, in the frame it was in; else the step does not replay,
// and nothing is typed.
func TestReplayActsOnlyWhereRecorded(t *testing.T) {
	t.Parallel()
	const recorded = "https://shop.test/login"
	fill := driver.ScriptStep{Tool: toolapi.Fill, Args: json.RawMessage(`{"value":"{{PASSWORD}}"}`),
		Target: &driver.StepTarget{Role: "textbox", Name: "Password", Kind: "password"}, Before: driver.PageState{URL: recorded}}
	click := driver.ScriptStep{Tool: toolapi.Click, Target: &driver.StepTarget{Role: "button", Name: "Sign in"},
		Before: driver.PageState{URL: "https://shop.test/orders/1042/confirm"}}
	legacy := fill
	legacy.Before = driver.PageState{}
	for _, tt := range []struct {
		name     string
		page     *snapshot.Snapshot
		step     driver.ScriptStep
		replayed bool
		why      string
	}{
		{"the recorded page", signInAt(recorded+"?next=%2F", ""), fill, true, ""},
		{"another site after a redirect", signInAt("https://evil.test/login", ""), fill, false, "recorded on https://shop.test/login"},
		{"another port", signInAt("https://shop.test:8443/login", ""), fill, false, "recorded on"},
		{"another path of the site", signInAt("https://shop.test/comments", ""), fill, false, "recorded on"},
		{"the field in a frame of another site", signInAt(recorded, "https://evil.test/widget"), fill, false, "no element matches"},
		{"another order's page", signInAt("https://shop.test/orders/1043/confirm", ""), click, true, ""},
		{"another kind of page", signInAt("https://shop.test/orders/all/confirm", ""), click, false, "recorded on"},
		{"a secret with no recorded site", signInAt(recorded, ""), legacy, false, "does not say on which site"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mb := &drivertest.MockBrowser{Page: tt.page}
			h := newHarness(t, mb)
			cfg := driver.ReplayConfig{Script: &driver.Script{Format: 1, Version: 1, Goal: "g", Steps: []driver.ScriptStep{tt.step}}, Config: h.cfg}
			cfg.Model, cfg.Secrets = nil, map[string]string{"PASSWORD": "hunter2-pw"}
			out, err := driver.Replay(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			acted := len(actions(mb)) > 0
			if acted != tt.replayed || len(out.Steps) != 1 {
				t.Fatalf("acted %v (calls %q), steps %+v; want acted %v", acted, actions(mb), out.Steps, tt.replayed)
			}
			if !tt.replayed && (out.Steps[0].How == driver.StepReplayed || !strings.Contains(out.Steps[0].Why, tt.why)) {
				t.Errorf("step = %+v, want not replayed because %q", out.Steps[0], tt.why)
			}
		})
	}
}

// TestReplayRecoveryTypesNoSecretElsewhere: when a step of a replay goes to
// the model, the model's call may not type the secret on another site than
// the step's, whatever it answers; on the recorded site it may.
func TestReplayRecoveryTypesNoSecretElsewhere(t *testing.T) {
	t.Parallel()
	step := driver.ScriptStep{Tool: toolapi.Fill, Args: json.RawMessage(`{"value":"{{PASSWORD}}"}`),
		Target: &driver.StepTarget{Role: "textbox", Name: "Passcode"}, Before: driver.PageState{URL: "https://shop.test/login"}}
	typeIt := reply(wireCall(toolapi.Fill, map[string]any{"ref": "@e2", "value": "{{PASSWORD}}"}))
	for _, tt := range []struct {
		name  string
		page  *snapshot.Snapshot
		typed bool
	}{
		{"another site", signInAt("https://evil.test/login", ""), false},
		{"a frame of another site", signInAt("https://shop.test/login", "https://evil.test/frame"), false},
		{"the recorded site", signInAt("https://shop.test/login", ""), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mb := &drivertest.MockBrowser{Page: tt.page}
			h := newHarness(t, mb, typeIt, typeIt)
			cfg := driver.ReplayConfig{Script: &driver.Script{Format: 1, Version: 1, Goal: "g", Steps: []driver.ScriptStep{step}}, Config: h.cfg}
			cfg.Secrets = map[string]string{"PASSWORD": "hunter2-pw"}
			if _, err := driver.Replay(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			typed := false
			for _, c := range mb.Calls() {
				typed = typed || c.Name == toolapi.Fill
			}
			if typed != tt.typed {
				t.Errorf("the secret was typed: %v, want %v (calls %q)", typed, tt.typed, actions(mb))
			}
		})
	}
}

// TestReplayOnAnotherSite: a replay started on another site than the
// recording (a staging copy, the demo site on another port) maps the
// recorded start site to it, and only that one; one started on another
// page of the site does not expect the recorded paths, but still the
// recorded sites. A click on "Sign in" takes the replay to then.
func TestReplayOnAnotherSite(t *testing.T) {
	t.Parallel()
	const recorded = "https://shop.test/login"
	steps := []driver.ScriptStep{
		{Tool: toolapi.Click, Target: &driver.StepTarget{Role: "button", Name: "Sign in"}, Before: driver.PageState{URL: recorded}},
		{Tool: toolapi.Fill, Args: json.RawMessage(`{"value":"{{PASSWORD}}"}`),
			Target: &driver.StepTarget{Role: "textbox", Name: "Password", Kind: "password"}, Before: driver.PageState{URL: recorded}},
	}
	for _, tt := range []struct {
		name, start, then string
		typed             bool
	}{
		{"the recorded site", recorded, recorded, true},
		{"a copy of the site", "https://staging.test:8443/login", "https://staging.test:8443/login", true},
		{"a copy, then a third site", "https://staging.test:8443/login", "https://evil.test/login", false},
		{"a copy, then the recorded site", "https://staging.test:8443/login", recorded, false},
		{"another page of the site", "https://shop.test/welcome", "https://shop.test/welcome", true},
		{"another page, then another site", "https://shop.test/welcome", "https://evil.test/login", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mb := &drivertest.MockBrowser{Page: signInAt(tt.start, ""),
				Actions: map[string]drivertest.MockOutcome{toolapi.Click + " @e1": {Snapshot: signInAt(tt.then, "")}}}
			h := newHarness(t, mb)
			script := &driver.Script{Format: 1, Version: 1, Goal: "g", StartURL: recorded + "?from=mail", Steps: steps}
			cfg := driver.ReplayConfig{Script: script, Config: h.cfg}
			cfg.Model, cfg.Secrets = nil, map[string]string{"PASSWORD": "hunter2-pw"}
			if _, err := driver.Replay(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			got := actions(mb)
			if len(got) == 0 || got[0] != toolapi.Click+" @e1" {
				t.Fatalf("calls = %q: the first step did not replay", got)
			}
			if typed := len(got) > 1 && strings.HasPrefix(got[1], toolapi.Fill); typed != tt.typed {
				t.Errorf("the secret was typed: %v, want %v (calls %q)", typed, tt.typed, got)
			}
		})
	}
}
