package tools

import (
	"context"
	"fmt"
)

// clickInput is the arguments of browser_click.
type clickInput struct {
	Ref string `json:"ref"`
}

// click runs browser_click: a dialog's button answers the dialog; any other
// element is checked, approved if need be, and clicked where it shows.
func (s *Session) click(ctx context.Context, in clickInput) (string, error) {
	p, err := s.gated(ctx, func(ctx context.Context) (planned, error) { return s.planClick(ctx, in.Ref) })
	if err != nil {
		return "", err
	}
	if p.t.Dialog != "" {
		return s.answerDialog(ctx, p)
	}
	return s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.Click(ctx, p.insp.X, p.insp.Y)
	}, fmt.Sprintf("Clicked %s %s %q.", p.t.Ref, p.t.Role, p.t.Name))
}
