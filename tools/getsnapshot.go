package tools

import (
	"context"
	"errors"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// snapshotInput is the arguments of get_snapshot.
type snapshotInput struct {
	ViewportOnly bool `json:"viewport_only,omitempty" jsonschema:"Only elements in the viewport; false adds offscreen ones" schema:"default=true"`
	Positions    bool `json:"positions,omitempty" jsonschema:"Add text runs with boxes"`
}

// getSnapshot runs get_snapshot, bringing a crashed browser back first.
func (s *Session) getSnapshot(ctx context.Context, c *call, in snapshotInput) Output {
	c.positions = in.Positions
	restarted := s.recover(ctx)
	var answered string
	if restarted == "" {
		answered = s.answerConsent(ctx, c) // consent.go
	}
	snap, err := s.snapshot(ctx, c, in.ViewportOnly)
	if answered != "" && snap != nil {
		snap.Notes = append(snap.Notes, answered)
	}
	if err != nil && restarted == "" {
		// The browser may have died during the capture, before anything
		// noticed: bring it back and look again.
		if restarted = s.recover(ctx); restarted != "" {
			snap, err = s.snapshot(ctx, c, in.ViewportOnly)
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
func (s *Session) snapshotArgsInvalid(ctx context.Context, c *call, err error) Output {
	return s.failed(ctx, c, toolapi.InvalidParams, err.Error())
}
