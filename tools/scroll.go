package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// scrollInput is the arguments of browser_scroll.
type scrollInput struct {
	Ref       string  `json:"ref,omitempty" schema:"ref"`
	Direction string  `json:"direction,omitempty" schema:"enum=up|down|top|bottom"`
	Amount    float64 `json:"amount,omitempty" jsonschema:"Pixels, for up and down" schema:"default=300,minimum=1"`
}

// scroll runs browser_scroll: the page, an element into view, or inside a
// scrollable element.
func (s *Session) scroll(ctx context.Context, c *call, in scrollInput) (string, error) {
	amount := in.Amount
	if amount <= 0 {
		return "", fail(toolapi.InvalidParams, "amount must be a positive number of pixels, not %v.", amount)
	}
	switch in.Direction {
	case "", "up", "down", "top", "bottom":
	default:
		return "", fail(toolapi.InvalidParams, "direction must be up, down, top or bottom, not %q.", in.Direction)
	}
	if in.Ref == "" && in.Direction == "" {
		return "", fail(toolapi.InvalidParams, "browser_scroll needs a ref (to bring that element into view) or a direction (up, down, top, bottom).")
	}
	limit := s.config.ScrollTimeout
	if in.Ref == "" {
		vp, err := s.tab.Viewport(ctx)
		if err != nil {
			return "", err
		}
		return s.settleScroll(ctx, c, limit, func(ctx context.Context) error {
			switch in.Direction {
			case "up", "down":
				return s.tab.Wheel(ctx, vp.Width/2, vp.Height/2, 0, signed(in.Direction, amount))
			default:
				return s.tab.ScrollPageTo(ctx, in.Direction)
			}
		}, fmt.Sprintf("Scrolled the page %s.", in.Direction))
	}
	t, err := s.target(in.Ref)
	if err != nil {
		return "", err
	}
	if in.Direction == "" {
		// Bringing an element into view needs no box check: that is
		// what the scroll is for.
		if _, err := s.checkReading(ctx, t, false); err != nil {
			return "", err
		}
		return s.settleScroll(ctx, c, limit, func(ctx context.Context) error {
			return s.tab.ScrollIntoView(ctx, t.BackendNodeID)
		}, fmt.Sprintf("Scrolled %s %s %q into view.", t.Ref, t.Role, t.Name))
	}
	insp, err := s.checkReading(ctx, t, true)
	if err != nil {
		return "", err
	}
	if !insp.Scrollable {
		return "", fail(toolapi.InvalidParams, "%s (%s %q) cannot scroll inside; scroll the page with a direction alone, or pass the ref alone to bring it into view.", t.Ref, t.Role, t.Name)
	}
	return s.settleScroll(ctx, c, limit, func(ctx context.Context) error {
		switch in.Direction {
		case "up", "down":
			return s.tab.WheelElement(ctx, t.BackendNodeID, insp.X, insp.Y, signed(in.Direction, amount))
		default:
			return s.tab.ScrollElementTo(ctx, t.BackendNodeID, in.Direction)
		}
	}, fmt.Sprintf("Scrolled inside %s %s %q %s.", t.Ref, t.Role, t.Name, in.Direction))
}

// signed turns a direction and an amount into a wheel delta.
func signed(direction string, amount float64) float64 {
	if direction == "up" {
		return -amount
	}
	return amount
}

// checkReading is check for a scroll, which is reading, not input: a
// disabled element (an agreement to read to the end before "I agree", locked
// against editing) still scrolls, once it shows and nothing covers it.
func (s *Session) checkReading(ctx context.Context, t snapshot.Target, needBox bool) (*browser.Inspection, error) {
	insp, err := s.check(ctx, t, needBox)
	var p *problem
	if !errors.As(err, &p) || p.code != toolapi.ElementDisabled {
		return insp, err
	}
	// check refused it as disabled after finding it the element the
	// agent saw; what is left to know is whether it can be reached.
	ctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	if insp, err = s.tab.Inspect(ctx, t.BackendNodeID, needBox); err != nil {
		return nil, err
	}
	switch {
	case needBox && !insp.Visible:
		return nil, fail(toolapi.ElementNotVisible, "%s (%s %q) has no visible box to act on: it is hidden or has no size.", t.Ref, t.Role, t.Name)
	case needBox && insp.Covered != "":
		return nil, fail(toolapi.ElementObscured, "%s (%s %q) is covered by %s. Deal with that first (close it or act inside it).", t.Ref, t.Role, t.Name, s.clip(insp.Covered, textLimit))
	}
	return insp, nil
}
