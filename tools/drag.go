package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
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
// other in steps and releases there, after the gate. Onto an item of the
// same list (a sortable list), it drops where a person drops to put the
// dragged item in the target's place, then checks that the list's order
// changed so, and says the new order.
func (s *Session) drag(ctx context.Context, c *call, in dragInput) (string, error) {
	switch {
	case in.Text != "" && in.ToRef != "":
		return "", fail(toolapi.InvalidParams, "browser_drag takes to_ref (drop onto it) or text (select it), not both.")
	case in.Text != "":
		return s.selectText(ctx, c, in.FromRef, in.Text)
	case in.FromRef == "" || in.ToRef == "":
		return "", fail(toolapi.InvalidParams, "browser_drag needs from_ref and to_ref (drag one onto the other), or text (select it by dragging over it).")
	}
	var list browser.ListPlace
	p, err := s.gated(ctx, c, func(ctx context.Context) (planned, error) {
		p, lp, err := s.planDrag(ctx, in.FromRef, in.ToRef)
		list = lp
		return p, err
	})
	if err != nil {
		return "", err
	}
	msg, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.Drag(ctx, p.insp.X, p.insp.Y, p.to.X, p.to.Y)
	}, fmt.Sprintf("Dragged %s %s %q onto %s.", p.t.Ref, p.t.Role, p.t.Name, p.action.Value))
	if err == nil && p.t.Role == "slider" {
		// A slider's handle dragged says what it shows now, as a person
		// reads it off the page.
		if v, verr := s.tab.SliderValue(ctx, p.t.BackendNodeID); verr == nil && v != "" {
			msg += fmt.Sprintf(" It shows %s.", s.clip(v, textLimit))
		}
	}
	if err != nil || !list.List {
		return msg, err
	}
	return s.sorted(ctx, p, list, msg)
}

// sorted checks a drop on an item of the dragged item's own list: the item
// must now stand right after the target when dragged down (or right), right
// before it when dragged up (or left). The message says the list's new
// order; a list that did not change so is a failure that says what it
// holds instead. A dragged item or target the page replaced cannot be
// checked, and the message says nothing of the order.
func (s *Session) sorted(ctx context.Context, p planned, before browser.ListPlace, msg string) (string, error) {
	now, err := s.tab.ListPlace(ctx, before.FromNode, before.ToNode)
	if err != nil || !now.List {
		return msg, nil
	}
	want, side := now.To+1, "after"
	if before.To < before.From {
		want, side = now.To-1, "before"
	}
	order := s.listOrder(now)
	if now.From != want {
		what := "The list's order did not change"
		if now.From != before.From || now.To != before.To {
			what = fmt.Sprintf("The item did not land %s %s", side, p.action.Value)
		}
		return "", fail(toolapi.ActionFailed, "%s %s: it reads %s. Take a snapshot and try again, or move it with keys if the page offers them.", msg, what, order)
	}
	return fmt.Sprintf("%s The list now reads %s.", msg, order), nil
}

// maxListItems bounds how many of a list's items a message names.
const maxListItems = 12

// listOrder names a list's items in order, each numbered, quoted and
// clipped: at most maxListItems of them, around the dragged item, and how
// many more there are before and after.
func (s *Session) listOrder(lp browser.ListPlace) string {
	start := max(0, min(lp.From-maxListItems/2, len(lp.Items)-maxListItems))
	end := min(len(lp.Items), start+maxListItems)
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "…%d before, ", start)
	}
	for i := start; i < end; i++ {
		if i > start {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d. %q", i+1, s.clip(lp.Items[i], 40))
	}
	if n := lp.Count - end; n > 0 {
		fmt.Fprintf(&b, ", …%d more", n)
	}
	return b.String()
}

// planDrag plans dragging from onto to: both are checked like click
// targets, and both must show in the viewport at once.
func (s *Session) planDrag(ctx context.Context, from, to string) (planned, browser.ListPlace, error) {
	p, err := s.planDragOnto(ctx, from, to)
	if err != nil {
		return p, browser.ListPlace{}, err
	}
	tt, err := s.target(to)
	if err != nil {
		return planned{}, browser.ListPlace{}, err
	}
	lp, err := s.tab.ListPlace(ctx, p.t.BackendNodeID, tt.BackendNodeID)
	if err != nil {
		return planned{}, lp, err
	}
	if lp.List {
		to := *p.to
		to.X, to.Y = lp.DropPoint(to.X, to.Y)
		p.to = &to
	}
	return p, lp, nil
}

// planDragOnto is planDrag's check of both ends.
func (s *Session) planDragOnto(ctx context.Context, from, to string) (planned, error) {
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
