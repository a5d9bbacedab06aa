package tools

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// A replay on a real session, whose "sign in for me" step a person answers
// by taking the browser over, reloading the page and handing it back: the
// next step's refs are dead (ref_invalid), and the replay resolves the step
// again on the fresh snapshot and clicks, with no model and no person
// (driver.Replay, refsDied).
func TestReplayStepAfterHandBack(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/account", Config{})
	p, err := checkpoint.ParseProfile([]byte(`{"name":"handback"}`))
	if err != nil {
		t.Fatal(err)
	}
	person := checkpoint.ApproverFunc(func(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
		h.s.TakeOver()
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := h.tab.Navigate(ctx, h.site+"/account"); err != nil { // the person signs in: a new document
			t.Error(err)
		}
		h.s.HandBack("signed in")
		return checkpoint.Decision{Approved: true, Feedback: "A person took the browser and handed it back: signed in", Channel: checkpoint.ChannelWeb}, nil
	})
	WithGate(checkpoint.NewGate(p, person, checkpoint.Options{}))(h.s)
	script := &driver.Script{Format: 1, Version: 1, Goal: "change the plan", StartURL: h.site + "/account", Steps: []driver.ScriptStep{
		{Tool: toolapi.RequestApproval, Args: json.RawMessage(`{"action":"Sign in for me","reason":"a CAPTCHA"}`)},
		{Tool: toolapi.Click, Target: &driver.StepTarget{Role: "button", Name: "Change plan"}, Before: driver.PageState{URL: h.site + "/account"}},
	}}
	stuck := 0
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := driver.Replay(ctx, driver.ReplayConfig{Script: script, Config: driver.Config{Tools: Direct(h.s),
		Ask: func(context.Context, driver.StuckQuestion) (driver.StuckAnswer, error) {
			stuck++
			return driver.StuckAnswer{Stop: true}, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != driver.ReasonScriptEnded || len(out.Steps) != 2 || out.Steps[1].How != driver.StepReplayed || stuck != 0 {
		t.Fatalf("replay = %+v, steps %+v, the person asked %d times; want both steps replayed", out.Result, out.Steps, stuck)
	}
	if note := h.evalString(`document.getElementById('plan-note').textContent`); note == "" {
		t.Error("Change plan was not clicked")
	}
}
