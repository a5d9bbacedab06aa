package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/audit"
)

// completeInput is the arguments of complete_task.
type completeInput struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// complete runs complete_task: it checks success on the page itself and
// writes the outcome to the audit log.
func (s *Session) complete(ctx context.Context, in completeInput) Output {
	if in.Status != "success" && in.Status != "failed" {
		return Output{Value: CompletionResult{Message: fmt.Sprintf("invalid_params: status must be success or failed, not %q.", in.Status)}}
	}
	// The agent still gets the page as it sees it; the verdict is judged on
	// all of the page as it is now, never on the agent's word or view.
	snap, _ := s.snapshot(ctx, true)
	page, err := s.page(ctx, false)
	var r CompletionResult
	switch {
	case in.Status == "failed":
		r = CompletionResult{Acknowledged: true, Message: "Failure acknowledged and logged."}
		if f := s.gate.Failures(page); len(f) > 0 {
			r.Message += " Failure indicators on the page: " + strings.Join(f, "; ") + "."
		}
	case err != nil:
		r.Message = fmt.Sprintf("Not acknowledged: the page could not be checked (%v). Try complete_task again.", err)
	default:
		r.Acknowledged, r.Message = s.gate.Verify(page)
	}
	s.log.Info("complete_task", "status", in.Status, "reason", s.secrets.redact(in.Reason), "acknowledged", r.Acknowledged,
		"snapshot", snap.ID, "url", snap.Page.URL)
	if err := s.audit.Completion(audit.Completion{
		Status: in.Status, Reason: s.secrets.redact(in.Reason), Acknowledged: r.Acknowledged, Message: s.secrets.redact(r.Message),
		SnapshotID: snap.ID, URL: snap.Page.URL, Indicators: s.gate.Evaluate(page),
	}); err != nil {
		s.log.Warn("audit: completion not logged", "err", err)
	}
	return Output{Value: r, Image: snap.Screenshot}
}

// completeArgsInvalid answers complete_task arguments that do not decode:
// not acknowledged, and why.
func (s *Session) completeArgsInvalid(_ context.Context, err error) Output {
	return Output{Value: CompletionResult{Message: fmt.Sprintf("invalid_params: %v", err)}}
}
