package browser

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/chromedp"
)

type layoutMetrics struct {
	CSSVisualViewport struct {
		PageX        float64 `json:"pageX"`
		PageY        float64 `json:"pageY"`
		ClientWidth  float64 `json:"clientWidth"`
		ClientHeight float64 `json:"clientHeight"`
	} `json:"cssVisualViewport"`
}

// ScrollIntoView brings the node into the viewport.
func (t *Context) ScrollIntoView(ctx context.Context, backendNodeID int64) error {
	if err := t.callOn(ctx, nodeOf(backendNodeID), scrollElementJS, nil, ""); err != nil {
		return fmt.Errorf("scroll into view: %w", err)
	}
	return nil
}

// ScrollElementTo scrolls a scrollable node's content to its top or bottom.
func (t *Context) ScrollElementTo(ctx context.Context, backendNodeID int64, edge string) error {
	if err := t.callOn(ctx, nodeOf(backendNodeID), scrollElementJS, nil, edge); err != nil {
		return fmt.Errorf("scroll element to %s: %w", edge, err)
	}
	return nil
}

// WheelElement turns the mouse wheel by dy over a scrollable node at x, y
// (main-viewport CSS pixels, the node's click point), so that scroll
// listeners fire as for a person. The wheel must reach the node, as a
// click must (ClickElement): one routed elsewhere (to the page, just after
// a cross-site frame changed) is turned once more where the node is then,
// and a second miss is a DeliveryError.
func (t *Context) WheelElement(ctx context.Context, backendNodeID int64, x, y, dy float64) error {
	return t.deliver(ctx, nodeOf(backendNodeID), "wheel", x, y, func(ctx context.Context, x, y float64) error {
		return t.Wheel(ctx, x, y, 0, dy)
	})
}

// ScrollPageTo scrolls the page to its top or bottom edge, firing scroll
// events as any scroll does.
func (t *Context) ScrollPageTo(ctx context.Context, edge string) error {
	if err := t.callPage(ctx, scrollPageJS, nil, edge); err != nil {
		return fmt.Errorf("scroll page to %s: %w", edge, err)
	}
	return nil
}

// Viewport returns the visible part of the page now.
func (t *Context) Viewport(ctx context.Context) (capture.Viewport, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	m, err := chromedp.Call(c, cmdGetLayoutMetrics, map[string]any{})
	if err != nil {
		return capture.Viewport{}, fmt.Errorf("layout metrics: %w", err)
	}
	v := m.CSSVisualViewport
	return capture.Viewport{Width: v.ClientWidth, Height: v.ClientHeight, ScrollX: v.PageX, ScrollY: v.PageY}, nil
}
