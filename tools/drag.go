package tools

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// dragInput is the arguments of browser_drag.
type dragInput struct {
	FromRef string `json:"from_ref,omitempty"`
	ToRef   string `json:"to_ref,omitempty"`
	// Text, without to_ref, is text to select by dragging over it
	// (textselect.go).
	Text string `json:"text,omitempty"`
}

// drag runs browser_drag: the mouse presses on one element, moves to the
// other in steps and releases there, after the gate.
func (s *Session) drag(ctx context.Context, c *call, in dragInput) (string, error) {
	switch {
	case in.Text != "" && in.ToRef != "":
		return "", fail(toolapi.InvalidParams, "browser_drag takes to_ref (drop onto it) or text (select it), not both.")
	case in.Text != "":
		return s.selectText(ctx, c, in.FromRef, in.Text)
	case in.FromRef == "" || in.ToRef == "":
		return "", fail(toolapi.InvalidParams, "browser_drag needs from_ref and to_ref (drag one onto the other), or text (select it by dragging over it).")
	}
	p, err := s.gated(ctx, c, func(ctx context.Context) (planned, error) { return s.planDrag(ctx, in.FromRef, in.ToRef) })
	if err != nil {
		return "", err
	}
	return s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.Drag(ctx, p.insp.X, p.insp.Y, p.to.X, p.to.Y)
	}, fmt.Sprintf("Dragged %s %s %q onto %s.", p.t.Ref, p.t.Role, p.t.Name, p.action.Value))
}

// planDrag plans dragging from onto to: both are checked like click
// targets, and both must show in the viewport at once.
func (s *Session) planDrag(ctx context.Context, from, to string) (planned, error) {
	ft, err := s.target(from)
	if err != nil {
		return planned{}, err
	}
	tt, err := s.target(to)
	if err != nil {
		return planned{}, err
	}
	if ft.Dialog != "" || tt.Dialog != "" {
		return planned{}, fail(toolapi.InvalidParams, "A dialog's controls cannot be dragged or dropped on: answer it with browser_click.")
	}
	if ft.BackendNodeID == tt.BackendNodeID {
		return planned{}, fail(toolapi.InvalidParams, "from_ref and to_ref are the same element.")
	}
	if _, err := s.check(ctx, ft, true); err != nil {
		return planned{}, err
	}
	toInsp, err := s.check(ctx, tt, true)
	if err != nil {
		return planned{}, err
	}
	// Bringing the drop target into view may have scrolled the dragged
	// element out of it: look again without scrolling.
	fromInsp, err := s.check(ctx, ft, false)
	if err != nil {
		return planned{}, err
	}
	if !fromInsp.Visible || fromInsp.Covered != "" {
		return planned{}, fail(toolapi.ElementNotVisible, "%s and %s do not show in the viewport together, so one cannot be dragged onto the other.", ft.Ref, tt.Ref)
	}
	a := s.actionOn(checkpoint.VerbDrag, ft, fromInsp)
	name := toInsp.AXName
	if name == "" {
		name = tt.Name
	}
	a.Value = fmt.Sprintf("%s %q", tt.Role, s.secrets.redact(name))
	// The drop is what the page acts on: a drop onto "Delete forever" is
	// judged as a click on it.
	a.Activates = &checkpoint.Control{Role: tt.Role, Name: s.secrets.redact(name), SubmitsPayment: toInsp.SubmitsPayment}
	return planned{t: ft, insp: fromInsp, to: toInsp, action: a}, nil
}
