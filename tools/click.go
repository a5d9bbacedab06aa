package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// clickInput is the arguments of browser_click.
type clickInput struct {
	Ref       string   `json:"ref" schema:"ref"`
	Button    string   `json:"button,omitempty"`
	Count     int      `json:"count,omitempty"`
	Modifiers []string `json:"modifiers,omitempty"`
}

// click runs browser_click: a dialog's button answers the dialog; any other
// element is checked, approved if need be, and clicked where it shows. The
// click succeeds only when it reached the element (browser.ClickElement).
// Another button, presses in a row or keys held (mouse.go) are judged as a
// click on the element is, the gesture shown to a person.
func (s *Session) click(ctx context.Context, c *call, in clickInput) (string, error) {
	m, gesture, err := mouseInput{in.Button, in.Count, in.Modifiers}.mouse()
	if err != nil {
		return "", err
	}
	p, err := s.gated(ctx, c, func(ctx context.Context) (planned, error) {
		p, err := s.planClick(ctx, in.Ref)
		if err == nil && gesture != "" {
			if p.t.Dialog != "" {
				return p, fail(toolapi.InvalidParams, "%s is a button of a dialog, which takes one plain click: leave out button, count and modifiers.", p.t.Ref)
			}
			p.action.Gesture = gesture
			err = pastes(m, p.action)
		}
		return p, err
	})
	if err != nil {
		return "", err
	}
	if p.t.Dialog != "" {
		return s.answerDialog(ctx, c, p)
	}
	msg, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.ClickElementWith(ctx, p.t.BackendNodeID, p.insp.X, p.insp.Y, m, s.stillApproved(p, s.recheckClick(p)))
	}, fmt.Sprintf("Clicked %s %s %q%s.", p.t.Ref, p.t.Role, p.t.Name, gestureNote(gesture)))
	return msg, undelivered(err, p.t)
}

// undelivered turns input that did not reach its element into action_failed,
// saying what received it; other errors pass as they are.
func undelivered(err error, t snapshot.Target) error {
	var d *browser.DeliveryError
	if !errors.As(err, &d) {
		return err
	}
	what := "nothing in its frame received it, twice"
	switch {
	case d.Gone:
		what = "its document went away before the " + d.Input + " reached it"
	case d.Received != "" && d.Pressed > 0:
		what = d.Received + " received it instead"
	case d.Received != "":
		what = d.Received + " received it instead, twice"
	}
	if d.Pressed > 0 {
		return fail(toolapi.ActionFailed, "The %s did not reach %s (%s %q): %s. %s before it did, and nothing more was pressed; check the new snapshot before trying again.",
			d.Input, t.Ref, t.Role, t.Name, what, pressesNote(d.Pressed))
	}
	return fail(toolapi.ActionFailed, "The %s did not reach %s (%s %q): %s. Nothing happened to %s; check the new snapshot before trying again.",
		d.Input, t.Ref, t.Role, t.Name, what, t.Ref)
}
