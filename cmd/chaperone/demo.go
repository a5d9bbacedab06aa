package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// demoGoal is the task of `chaperone demo`.
const demoGoal = "Cancel my StreamFlix membership. Ask me before the final step."

// scriptedAgentName names the stand-in for Claude in the record and the
// report, so nobody mistakes its run for Claude's.
const scriptedAgentName = "scripted-agent (not Claude)"

// demoCmd runs the cancellation task on the embedded demo site with the demo
// profile: with Claude when ANTHROPIC_API_KEY is set, otherwise with a
// scripted agent. It pauses at the checkpoint for the person at the
// terminal, and the server verifies completion.
func demoCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "demo", "demo [flags]")
	model := fs.String("model", driver.DefaultModel, "the Claude `model`, when ANTHROPIC_API_KEY is set")
	tf := addTaskFlags(fs)
	cf := addCommonFlags(fs, "warn")
	keepStills(fs)
	if err := parseNoArgs(fs, args, e.getenv, ""); err != nil {
		return err
	}
	st, err := cf.setup(e.stderr)
	if err != nil {
		return err
	}
	t := tf.task(st)
	if err := demoTask(e, &t, *model); err != nil {
		return err
	}
	_, err = runDemo(ctx, e, t)
	return err
}

// demoTask fills in the demo's goal, profile and model: Claude with a key,
// the scripted agent without.
func demoTask(e *env, t *task, model string) error {
	p, err := checkpoint.LoadProfile("demo")
	if err != nil {
		return err
	}
	t.goal, t.profiles, t.profileName = demoGoal, profiles{named: p}, "demo"
	cc, err := driver.ClaudeConfigFromEnv(e.getenv, model)
	switch {
	case errors.Is(err, driver.ErrNoAPIKey):
		fmt.Fprintln(e.stdout, "ANTHROPIC_API_KEY is not set: a scripted agent, not Claude, drives this demo.")
		fmt.Fprintln(e.stdout, "It takes the steps Claude would, through the same tools and checkpoints.")
		t.model, t.modelName = scriptedDemoAgent(), scriptedAgentName
		return nil
	case err != nil:
		return err
	}
	claude, err := driver.NewClaude(cc)
	if err != nil {
		return err
	}
	t.model, t.modelName = claude, claude.Name()
	return nil
}

// runDemo drives the demo task and checks that the server verified the
// cancellation.
func runDemo(ctx context.Context, e *env, t task) (driver.Result, error) {
	res, err := drive(ctx, e, t)
	if err != nil {
		return res, err
	}
	if !res.Success {
		return res, fmt.Errorf("the demo did not complete: %s %s", res.Reason, res.Detail)
	}
	fmt.Fprintln(e.stdout, "Verified: the server saw the success indicator (the membership is cancelled) before acknowledging completion.")
	if !res.Priced {
		if p, ok := driver.PriceOf(driver.DefaultModel); ok {
			fmt.Fprintf(e.stdout, "Had %s read these turns, they would cost about $%.4f (tokens estimated, not counted by an API).\n",
				driver.DefaultModel, p.Cost(res.Tokens))
		}
	}
	return res, nil
}

// scriptedDemoAgent walks the cancellation flow the way the demo profile's
// guidance describes it, reading every ref from the latest snapshot. It asks
// for approval of the final click itself (naming its ref, so that the
// approval covers that click and nothing else), as the system prompt's rule 3
// says; the server asks the human on that page regardless.
func scriptedDemoAgent() *driver.ScriptedModel {
	say := func(text string, step driver.Step) driver.Step {
		return func(req driver.Request) (driver.Response, error) {
			resp, err := step(req)
			if err != nil {
				return resp, err
			}
			resp.Content = append([]driver.Block{driver.Text(text)}, resp.Content...)
			return resp, nil
		}
	}
	return &driver.ScriptedModel{Steps: []driver.Step{
		say("The account page has a Cancel Membership button.",
			driver.ActOn(toolapi.Click, "button", "Cancel Membership", nil)),
		say("A retention offer; continuing to cancel.",
			driver.ActOn(toolapi.Click, "button", "Continue to Cancel", nil)),
		say("The exit survey: giving the price as the reason.",
			driver.ActOn(toolapi.Click, "radio", "It's too expensive", nil)),
		say("Submitting the survey.",
			driver.ActOn(toolapi.Click, "button", "Continue", nil)),
		say("The final step cancels the membership for good: asking first.",
			driver.ActOn(toolapi.RequestApproval, "button", "Finish Cancellation", map[string]any{
				"verb":   "click",
				"action": `click "Finish Cancellation"`,
				"reason": "This cancels the StreamFlix membership and cannot be undone.",
			})),
		unlessRejected(say("Approved: finishing the cancellation.",
			driver.ActOn(toolapi.Click, "button", "Finish Cancellation", nil))),
		unlessRejected(say("The page says the membership has been cancelled.",
			driver.Call(toolapi.CompleteTask, map[string]string{
				"status": "success",
				"reason": "The membership has been cancelled.",
			}))),
	}}
}

// unlessRejected runs step, unless the human rejected the last action: then
// the agent gives up, as it must.
func unlessRejected(step driver.Step) driver.Step {
	return func(req driver.Request) (driver.Response, error) {
		if msg, rejected := lastRejection(req); rejected {
			return driver.Call(toolapi.CompleteTask, map[string]string{
				"status": "failed",
				"reason": "The human did not approve the final step: " + msg,
			})(req)
		}
		return step(req)
	}
}

// lastRejection reports whether the newest tool result says a human said no.
func lastRejection(req driver.Request) (string, bool) {
	if len(req.Messages) == 0 {
		return "", false
	}
	for _, b := range req.Messages[len(req.Messages)-1].Content {
		if b.Type != driver.ToolResultBlock || len(b.Content) == 0 {
			continue
		}
		var r struct {
			Approved *bool   `json:"approved"`
			Error    *string `json:"error"`
			Message  string  `json:"message"`
		}
		if json.Unmarshal(b.Content[0].Structured, &r) != nil {
			continue
		}
		if (r.Approved != nil && !*r.Approved) || (r.Error != nil && *r.Error == string(toolapi.HumanRejected)) {
			return r.Message, true
		}
	}
	return "", false
}
