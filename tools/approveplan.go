package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// approvePlan runs request_human_approval with a plan: the person reads
// the plan (its steps as the agent's words, its sites as the sites the
// write set holds, hosts in punycode), may narrow its sites, and approves
// it once. The sites they leave to write on join the session's write set
// for the task (checkpoint.Gate.ApprovePlan); every gated action still
// asks. A plan out of bounds, or naming what is no site, is refused before
// anyone is asked.
func (s *Session) approvePlan(ctx context.Context, in approvalInput) Output {
	answer := func(approved bool, format string, a ...any) Output {
		return Output{Value: toolapi.ApprovalResult{Approved: approved, Message: fmt.Sprintf(format, a...)}}
	}
	p, err := checkpoint.NewPlan(in.Plan, in.Write, in.Read)
	if err != nil {
		return answer(false, "invalid_params: plan: %s. Nothing was asked.", s.clip(err.Error(), messageLimit))
	}
	gctx, end := s.phase(ctx, PhaseGate)
	d, approved, err := s.gate.ApprovePlan(gctx, s.shown(gctx, nil), p, in.Action, in.Reason)
	end()
	if err != nil {
		return answer(false, "The request was withdrawn before a human answered: %v", err)
	}
	if !d.Approved {
		return answer(false, "%s The plan was not approved: nothing changed; writing on a site outside the write set still asks.", d.Message())
	}
	write := approved.WriteSites()
	msg := d.Message()
	if len(write) == 0 {
		msg += " The approved plan writes on no site: writing outside the write set still asks."
	} else {
		msg += fmt.Sprintf(" You may write (type, submit) on %s for this task without asking; gated actions and writing on any other site still ask.", strings.Join(write, ", "))
	}
	if removed := droppedWrites(p, approved); len(removed) > 0 {
		msg += fmt.Sprintf(" The person did not allow writing on %s: there, ask first.", strings.Join(removed, ", "))
	}
	return answer(true, "%s", msg)
}

// droppedWrites are the sites proposed for writing that the person did not
// leave to write on.
func droppedWrites(proposed, approved checkpoint.Plan) []string {
	var out []string
	kept := approved.WriteSites()
	for _, w := range proposed.WriteSites() {
		found := false
		for _, k := range kept {
			found = found || k == w
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}
