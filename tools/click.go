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
	Ref string `json:"ref" schema:"ref"`
}

// click runs browser_click: a dialog's button answers the dialog; any other
// element is checked, approved if need be, and clicked where it shows. The
// click succeeds only when it reached the element (browser.ClickElement).
func (s *Session) click(ctx context.Context, c *call, in clickInput) (string, error) {
	p, err := s.gated(ctx, c, func(ctx context.Context) (planned, error) { return s.planClick(ctx, in.Ref) })
	if err != nil {
		return "", err
	}
	if p.t.Dialog != "" {
		return s.answerDialog(ctx, c, p)
	}
	msg, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.ClickElement(ctx, p.t.BackendNodeID, p.insp.X, p.insp.Y)
	}, fmt.Sprintf("Clicked %s %s %q.", p.t.Ref, p.t.Role, p.t.Name))
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
	case d.Received != "":
		what = d.Received + " received it instead, twice"
	}
	return fail(toolapi.ActionFailed, "The %s did not reach %s (%s %q): %s. Nothing happened to %s; check the new snapshot before trying again.",
		d.Input, t.Ref, t.Role, t.Name, what, t.Ref)
}
