package tools

import (
	"context"
	"encoding/json"
)

func (s *Session) requestApproval(ctx context.Context, args json.RawMessage) Output {
	var in approvalInput
	if err := decode(args, &in); err != nil {
		return Output{Value: ApprovalResult{Message: err.Error()}}
	}
	return Output{Value: ApprovalResult{Approved: false,
		Message: "No approver is configured for this server, so nothing can be approved."}}
}

func (s *Session) complete(ctx context.Context, args json.RawMessage) Output {
	var in completeInput
	if err := decode(args, &in); err != nil {
		return Output{Value: CompletionResult{Message: err.Error()}}
	}
	return Output{Value: CompletionResult{Acknowledged: true,
		Message: "No profile is configured, so nothing was checked."}}
}
