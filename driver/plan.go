package driver

import (
	"context"
	"encoding/json"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// ReasonPlanRejected ends a replay whose script's plan the person did not
// approve.
const ReasonPlanRejected = "plan_rejected"

// ScriptPlan is a run's plan as its script keeps it: the steps and sites
// the person approved the run with, put to them again before a replay's
// first step (request_human_approval's plan, write and read).
type ScriptPlan struct {
	Action string   `json:"action"`
	Steps  []string `json:"steps"`
	Write  []string `json:"write,omitempty"`
	Read   []string `json:"read,omitempty"`
}

// planFirstText is what the model reads when a --plan run's call comes
// before a person approved its plan: the call did not run.
const planFirstText = "Not executed: this run shows its plan to the person before its first action. Call request_human_approval first with action (the goal in one line), reason, plan (your steps), write (the sites you will type or submit on) and read (the sites you will only read); go on once it is approved."

// planIntro is added to the goal of a --plan run.
const planIntro = "\n\nFIRST, before any action: call request_human_approval with action (the goal in one line), reason, plan (your steps, in words), write (the sites you will type or submit forms on, as URLs) and read (the sites you will only read). The person approves it once; every step that needs approval still asks."

// planInput is the plan part of request_human_approval's arguments.
type planInput struct {
	Action string   `json:"action"`
	Plan   []string `json:"plan"`
	Write  []string `json:"write"`
	Read   []string `json:"read"`
}

// call runs one tool call of the model's. In a --plan run, until a person
// approves the model's plan, only get_snapshot (a read),
// request_human_approval with a plan and complete_task (a run whose plan
// the person rejected may end) run: anything else is answered as not
// executed, so that no action comes before the plan the person approved.
func (r *run) call(ctx context.Context, name string, input json.RawMessage) (toolapi.ToolResult, error) {
	if !r.cfg.Plan || r.planned {
		return r.cfg.Tools.Call(ctx, name, input)
	}
	var p planInput
	isPlan := isPlanCall(name, input)
	json.Unmarshal(input, &p)
	if !isPlan && name != toolapi.GetSnapshot && name != toolapi.CompleteTask {
		r.log.Info("call before the plan was approved: not executed", "tool", name)
		return toolapi.ToolResult{Text: planFirstText, IsError: true}, nil
	}
	res, err := r.cfg.Tools.Call(ctx, name, input)
	if err != nil || !isPlan {
		return res, err
	}
	if o, ok := parseOutcome(res.JSON()); ok && o.Approved != nil && *o.Approved {
		r.planned = true
		if r.script != nil {
			r.script.Plan = &ScriptPlan{Action: p.Action, Steps: p.Plan, Write: p.Write, Read: p.Read}
		}
		r.log.Info("the person approved the run's plan")
	}
	return res, nil
}

// isPlanCall reports whether a call is request_human_approval with a plan.
func isPlanCall(name string, input json.RawMessage) bool {
	var p planInput
	return name == toolapi.RequestApproval && json.Unmarshal(input, &p) == nil && len(p.Plan) > 0
}

// askPlan puts a script's plan to the person before a replay's first step,
// through request_human_approval as the model's would go; it reports
// whether they approved it, and what they said.
func (r *replay) askPlan(ctx context.Context, p ScriptPlan) (bool, string) {
	args, err := json.Marshal(map[string]any{"action": p.Action, "reason": "the plan of the script being replayed", "plan": p.Steps, "write": p.Write, "read": p.Read})
	if err != nil {
		return false, err.Error()
	}
	res, err := r.cfg.Tools.Call(ctx, toolapi.RequestApproval, args)
	if err != nil {
		return false, err.Error()
	}
	o, ok := parseOutcome(res.JSON())
	if !ok || o.Approved == nil {
		return false, res.Text
	}
	return *o.Approved, o.Message
}
