package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
)

// selectInput is the arguments of browser_select.
type selectInput struct {
	Ref   string  `json:"ref"`
	Value *string `json:"value"`
}

// choose runs browser_select. It is not named select, which is a keyword.
func (s *Session) choose(ctx context.Context, in selectInput) (string, error) {
	if in.Value == nil {
		return "", fail(InvalidParams, "browser_select needs a value: an option's value or its visible text.")
	}
	t, err := s.target(in.Ref)
	if err != nil {
		return "", err
	}
	insp, err := s.check(ctx, t, true)
	if err != nil {
		return "", err
	}
	if insp.Tag != "select" && t.Role != "listbox" && t.Role != "combobox" {
		return "", fail(InvalidParams, "%s is %s %q, not a drop-down or list; browser_select needs a select, a combobox or a listbox.", t.Ref, article(t.Role), t.Name)
	}
	if _, err = s.approve(ctx, t, fmt.Sprintf("select %q in %s %q", *in.Value, t.Role, t.Name), insp); err != nil {
		return "", err
	}
	var picked browser.Selection
	_, err = s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		var err error
		picked, err = s.tab.Select(ctx, t.BackendNodeID, *in.Value)
		return err
	}, "")
	if errors.Is(err, browser.ErrNoOption) {
		return "", fail(InvalidParams, "%s %q: %v", t.Ref, t.Name, err)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Selected %q (value %q) in %s %q.", picked.Text, picked.Value, t.Ref, t.Name), nil
}
