package tools

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// hoverInput is the arguments of browser_hover.
type hoverInput struct {
	Ref string `json:"ref"`
}

// hover runs browser_hover: the pointer rests on the element, checked as a
// click target is, and what opens on hover is in the fresh snapshot. It
// changes nothing a person must approve. The pointer must reach the
// element (browser.HoverElement).
func (s *Session) hover(ctx context.Context, c *call, in hoverInput) (string, error) {
	t, err := s.target(in.Ref)
	if err != nil {
		return "", err
	}
	if t.Dialog != "" {
		return "", fail(toolapi.InvalidParams, "%s belongs to a dialog, which has nothing to hover: answer it with browser_click.", t.Ref)
	}
	insp, err := s.check(ctx, t, true)
	if err != nil {
		return "", err
	}
	msg, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.HoverElement(ctx, t.BackendNodeID, insp.X, insp.Y)
	}, fmt.Sprintf("Hovered over %s %s %q.", t.Ref, t.Role, t.Name))
	return msg, undelivered(err, t)
}
