package tools

import (
	"context"
	"errors"
)

// snapshotInput is the arguments of get_snapshot.
type snapshotInput struct {
	ViewportOnly *bool `json:"viewport_only,omitempty"`
	Positions    *bool `json:"positions,omitempty"`
}

// getSnapshot runs get_snapshot, bringing a crashed browser back first.
func (s *Session) getSnapshot(ctx context.Context, in snapshotInput) Output {
	s.config.Snapshot.Positions = orDefault(in.Positions, false) // this call's snapshots only: calls on a session are serialised
	defer func() { s.config.Snapshot.Positions = false }()
	restarted := s.recover(ctx)
	snap, err := s.snapshot(ctx, orDefault(in.ViewportOnly, true))
	if err != nil && restarted == "" {
		// The browser may have died during the capture, before anything
		// noticed: bring it back and look again.
		if restarted = s.recover(ctx); restarted != "" {
			snap, err = s.snapshot(ctx, orDefault(in.ViewportOnly, true))
		}
	}
	if restarted != "" {
		return s.output(ActionResult{Snapshot: snap, Error: code(ActionFailed), Message: restarted})
	}
	if err != nil {
		c := ActionFailed
		if errors.Is(err, context.DeadlineExceeded) {
			c = Timeout
		}
		return s.output(ActionResult{Snapshot: snap, Error: &c, Message: err.Error()})
	}
	return Output{Value: snap, Image: snap.Screenshot}
}

// snapshotArgsInvalid answers get_snapshot arguments that do not decode,
// with a fresh snapshot like every failed action.
func (s *Session) snapshotArgsInvalid(ctx context.Context, err error) Output {
	return s.failed(ctx, InvalidParams, err.Error())
}
