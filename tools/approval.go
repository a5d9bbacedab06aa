package tools

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/audit"
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
func WithAudit(a *audit.Log) SessionOption {
	return func(s *Session) { s.audit = a }
}

// authorize asks the gate whether a state-changing action may run on the
// live snapshot. It reports whether a human was asked, so that the caller
// looks at the page again before acting: the wait may have been long.
func (s *Session) authorize(ctx context.Context, action string) (asked bool, err error) {
	d, err := s.gate.Authorize(ctx, s.last, checkpoint.Action{Verb: checkpoint.Verb(action)})
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
