package tools

import (
	"context"
	"errors"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// snapshotInput is the arguments of get_snapshot.
type snapshotInput struct {
	ViewportOnly *bool `json:"viewport_only,omitempty"`
}

// getSnapshot runs get_snapshot, bringing a crashed browser back first.
func (s *Session) getSnapshot(ctx context.Context, in snapshotInput) Output {
	restarted := s.recover(ctx)
	var answered string
	if restarted == "" {
		answered = s.answerConsent(ctx) // consent.go
	}
	snap, err := s.snapshot(ctx, orDefault(in.ViewportOnly, true))
	if answered != "" && snap != nil {
		snap.Notes = append(snap.Notes, answered)
	}
	if err != nil && restarted == "" {
		// The browser may have died during the capture, before anything
		// noticed: bring it back and look again.
		if restarted = s.recover(ctx); restarted != "" {
			snap, err = s.snapshot(ctx, orDefault(in.ViewportOnly, true))
		}
	}
	if restarted != "" {
		return s.output(toolapi.ActionResult{Snapshot: snap, Error: code(toolapi.ActionFailed), Message: restarted})
	}
	if err != nil {
		c := toolapi.ActionFailed
		if errors.Is(err, context.DeadlineExceeded) {
			c = toolapi.Timeout
		}
		return s.output(toolapi.ActionResult{Snapshot: snap, Error: &c, Message: err.Error()})
	}
	return Output{Value: snap, Image: snap.Screenshot}
}

// snapshotArgsInvalid answers get_snapshot arguments that do not decode,
// with a fresh snapshot like every failed action.
func (s *Session) snapshotArgsInvalid(ctx context.Context, err error) Output {
	return s.failed(ctx, toolapi.InvalidParams, err.Error())
}
