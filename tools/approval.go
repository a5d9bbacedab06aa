package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// SessionOption sets up one session.
type SessionOption func(*Session)

// WithGate puts the session's state-changing actions behind g and checks
// complete_task with it. Without one, no page is a checkpoint, nothing can be
// approved and success cannot be verified.
func WithGate(g *checkpoint.Gate) SessionOption {
	return func(s *Session) { s.gate = g }
}

// WithAudit writes every tool call and completion of the session to a.
func WithAudit(a *checkpoint.Audit) SessionOption {
	return func(s *Session) { s.audit = a }
}

// authorize asks the gate whether a state-changing action may run on the
// live snapshot. It reports whether a human was asked, so that the caller
// looks at the page again before acting: the wait may have been long.
func (s *Session) authorize(ctx context.Context, action string) (asked bool, err error) {
	d, err := s.gate.Authorize(ctx, s.last, action)
	if err != nil {
		return true, fail(HumanRejected, "The approval request was withdrawn before a human answered (%v); %s was not performed.", err, action)
	}
	if !d.Approved {
		return true, fail(HumanRejected, "%s", d.Message())
	}
	return d.Channel != checkpoint.ChannelNone, nil
}

// checkpointNote marks a snapshot of a checkpoint page, so the agent knows
// before it acts that a human will be asked.
func (s *Session) checkpointNote(snap *snapshot.Snapshot) {
	if name, ok := s.gate.Checkpoint(snap); ok {
		snap.Notes = append(snap.Notes, fmt.Sprintf("Checkpoint %q: a human must approve every click, fill or select on this page.", name))
		s.log.Info("checkpoint", "rule", name, "snapshot", snap.ID, "url", snap.Page.URL)
	}
}

func (s *Session) requestApproval(ctx context.Context, args json.RawMessage) Output {
	var in approvalInput
	if err := decode(args, &in); err != nil {
		return Output{Value: ApprovalResult{Message: fmt.Sprintf("invalid_params: %v", err)}}
	}
	if strings.TrimSpace(in.Action) == "" {
		return Output{Value: ApprovalResult{Message: "invalid_params: request_human_approval needs the action you want to take."}}
	}
	if s.last == nil {
		s.snapshot(ctx, true)
	}
	d, err := s.gate.RequestApproval(ctx, s.last, in.Action, in.Reason)
	if err != nil {
		return Output{Value: ApprovalResult{Message: fmt.Sprintf("The request was withdrawn before a human answered: %v", err)}}
	}
	msg := d.Message()
	if d.Approved {
		msg += " The approval covers your next click, fill or select on the current snapshot."
	}
	return Output{Value: ApprovalResult{Approved: d.Approved, Message: msg}}
}

func (s *Session) complete(ctx context.Context, args json.RawMessage) Output {
	var in completeInput
	if err := decode(args, &in); err != nil {
		return Output{Value: CompletionResult{Message: fmt.Sprintf("invalid_params: %v", err)}}
	}
	if in.Status != "success" && in.Status != "failed" {
		return Output{Value: CompletionResult{Message: fmt.Sprintf("invalid_params: status must be success or failed, not %q.", in.Status)}}
	}
	// Success is judged on the page as it is now, never on the agent's word.
	snap, _ := s.snapshot(ctx, true)
	var r CompletionResult
	if in.Status == "failed" {
		r = CompletionResult{Acknowledged: true, Message: "Failure acknowledged and logged."}
		if f := s.gate.Failures(snap); len(f) > 0 {
			r.Message += " Failure indicators on the page: " + strings.Join(f, "; ") + "."
		}
	} else {
		r.Acknowledged, r.Message = s.gate.Verify(snap)
	}
	s.log.Info("complete_task", "status", in.Status, "reason", in.Reason, "acknowledged", r.Acknowledged,
		"snapshot", snap.ID, "url", snap.Page.URL)
	if err := s.audit.Completion(checkpoint.Completion{
		Status: in.Status, Reason: in.Reason, Acknowledged: r.Acknowledged, Message: r.Message,
		SnapshotID: snap.ID, URL: snap.Page.URL, Indicators: s.gate.Evaluate(snap),
	}); err != nil {
		s.log.Warn("audit: completion not logged", "err", err)
	}
	return Output{Value: r, Image: snap.Screenshot}
}
