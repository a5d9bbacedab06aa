package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// approvalInput is the arguments of request_human_approval. Action and Reason
// are the agent's words; Ref, with Verb and Value, names the concrete action
// to clear ahead.
type approvalInput struct {
	Action string  `json:"action" jsonschema:"What you want to do"`
	Reason string  `json:"reason"`
	Ref    string  `json:"ref,omitempty" jsonschema:"e.g. @e5" schema:"ref"`
	Verb   string  `json:"verb,omitempty" jsonschema:"Default click" schema:"enum=click|fill|select"`
	Value  *choice `json:"value,omitempty" jsonschema:"For fill, select"`
	// Plan, Write and Read are a plan for a task, put to the person once:
	// its steps, and the sites (URLs, origins or hosts) it writes on and
	// reads. Flat, as every input schema is.
	Plan  []string `json:"plan,omitempty"`
	Write []string `json:"write,omitempty"`
	Read  []string `json:"read,omitempty"`
}

// requestApproval runs request_human_approval. With a ref, the person is
// shown the very action the action tool would take, checked as it would
// check it, and an approval covers that action only, if it comes next.
// Without one, the person reads the agent's words as the agent's, and even
// an approval covers nothing.
func (s *Session) requestApproval(ctx context.Context, c *call, in approvalInput) Output {
	answer := func(format string, a ...any) Output {
		return Output{Value: toolapi.ApprovalResult{Message: fmt.Sprintf(format, a...)}}
	}
	if strings.TrimSpace(in.Action) == "" {
		return answer("invalid_params: request_human_approval needs the action you want to take.")
	}
	if in.Plan != nil || in.Write != nil || in.Read != nil {
		if in.Ref != "" || in.Verb != "" || in.Value != nil {
			return answer("invalid_params: a plan names no element: send it without ref, verb and value.")
		}
		return s.approvePlan(ctx, in)
	}
	var concrete *checkpoint.Action
	if in.Ref != "" {
		p, err := s.placed(ctx, func(ctx context.Context) (planned, error) { return s.planAhead(ctx, in) })
		if err != nil {
			p := asProblem(err)
			return answer("%s: %s Nothing was asked.", p.code, p.msg)
		}
		concrete = &p.action
	} else if in.Verb != "" || in.Value != nil {
		return answer("invalid_params: verb and value describe the action on an element: give its ref too.")
	}
	gctx, end := s.phase(ctx, PhaseGate)
	d, err := s.gate.RequestApproval(gctx, s.shown(gctx, nil), concrete, in.Action, in.Reason)
	end()
	if err != nil {
		return answer("The request was withdrawn before a human answered: %v", err)
	}
	msg := d.Message()
	if d.Approved && concrete != nil {
		msg += fmt.Sprintf(" The approval covers exactly %s, as your next call, in this tab and this page as it is now; any other call uses it up.", s.clip(concrete.String(), messageLimit))
	}
	return Output{Value: toolapi.ApprovalResult{Approved: d.Approved, Message: msg}}
}

// planAhead plans the action a request_human_approval names, as the tool of
// its verb would.
func (s *Session) planAhead(ctx context.Context, in approvalInput) (planned, error) {
	switch in.Verb {
	case "", string(checkpoint.VerbClick):
		if in.Value != nil {
			return planned{}, fail(toolapi.InvalidParams, "a click takes no value; value goes with verb fill or select.")
		}
		return s.planClick(ctx, in.Ref)
	case string(checkpoint.VerbFill):
		if in.Value == nil {
			return s.planFill(ctx, in.Ref, nil)
		}
		if in.Value.list {
			return planned{}, fail(toolapi.InvalidParams, "a fill takes one string as its value; a list goes with verb select.")
		}
		return s.planFill(ctx, in.Ref, &in.Value.values[0])
	case string(checkpoint.VerbSelect):
		return s.planSelect(ctx, in.Ref, in.Value)
	}
	return planned{}, fail(toolapi.InvalidParams, "verb must be click, fill or select, not %q.", in.Verb)
}

// approvalArgsInvalid answers request_human_approval arguments that do not
// decode: not approved, and why.
func (s *Session) approvalArgsInvalid(_ context.Context, c *call, err error) Output {
	return Output{Value: toolapi.ApprovalResult{Message: fmt.Sprintf("invalid_params: %v", err)}}
}
