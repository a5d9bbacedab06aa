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
	t, err := s.target(in.Ref)
	if err != nil {
		return "", err
	}
	if t.Dialog != "" {
		if _, err := s.authorize(ctx, describe("click", t)); err != nil {
			return "", err
		}
		return s.answerDialog(ctx, t, "")
	}
	insp, err := s.checkAndAuthorize(ctx, t, describe("click", t))
	if err != nil {
		return "", err
	}
	return s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.Click(ctx, insp.X, insp.Y)
	}, fmt.Sprintf("Clicked %s %s %q.", t.Ref, t.Role, t.Name))
}
