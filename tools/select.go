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
	p, err := s.gated(ctx, func(ctx context.Context) (planned, error) { return s.planSelect(ctx, in.Ref, in.Value) })
	if err != nil {
		return "", err
	}
	var picked browser.Selection
	_, err = s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		var err error
		picked, err = s.tab.Select(ctx, p.t.BackendNodeID, *in.Value)
		return err
	}, "")
	if errors.Is(err, browser.ErrNoOption) {
		return "", fail(InvalidParams, "%s %q: %v", p.t.Ref, p.t.Name, err)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Selected %q (value %q) in %s %q.", picked.Text, picked.Value, p.t.Ref, p.t.Name), nil
}
