package tools

import (
	"context"
	"fmt"
	"strings"
)

// approvalInput is the arguments of request_human_approval.
type approvalInput struct {
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// requestApproval runs request_human_approval through the gate, which
// remembers an approval for the next action on the same snapshot.
func (s *Session) requestApproval(ctx context.Context, in approvalInput) Output {
	if strings.TrimSpace(in.Action) == "" {
		return Output{Value: ApprovalResult{Message: "invalid_params: request_human_approval needs the action you want to take."}}
	}
	if s.last == nil {
		s.snapshot(ctx, true)
	}
	d, err := s.gate.RequestApproval(ctx, s.last, nil, in.Action, in.Reason)
	if err != nil {
		return Output{Value: ApprovalResult{Message: fmt.Sprintf("The request was withdrawn before a human answered: %v", err)}}
	}
	msg := d.Message()
	if d.Approved {
		msg += " The approval covers your next click, fill or select on the current snapshot."
	}
	return Output{Value: ApprovalResult{Approved: d.Approved, Message: msg}}
}

// approvalArgsInvalid answers request_human_approval arguments that do not
// decode: not approved, and why.
func (s *Session) approvalArgsInvalid(_ context.Context, err error) Output {
	return Output{Value: ApprovalResult{Message: fmt.Sprintf("invalid_params: %v", err)}}
}
