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
func (t *Tab) ScrollIntoView(ctx context.Context, backendNodeID int64) error {
	if err := t.callOn(ctx, backendNodeID, scrollElementJS, nil, ""); err != nil {
		return fmt.Errorf("scroll into view: %w", err)
	}
	return nil
}

// ScrollElementTo scrolls a scrollable node's content to its top or bottom.
func (t *Tab) ScrollElementTo(ctx context.Context, backendNodeID int64, edge string) error {
	if err := t.callOn(ctx, backendNodeID, scrollElementJS, nil, edge); err != nil {
		return fmt.Errorf("scroll element to %s: %w", edge, err)
	}
	return nil
}

// WheelElement turns the mouse wheel by dy over a scrollable node at x, y
// (main-viewport CSS pixels, the node's click point), so that scroll
// listeners fire as for a person. A wheel over a cross-site frame is at
// times routed to the page instead, just after the frame changed; when the
// node's content has not moved a few frames later, it is scrolled by script,
// so that it moves either way.
func (t *Tab) WheelElement(ctx context.Context, backendNodeID int64, x, y, dy float64) error {
	var before float64
	if err := t.callOn(ctx, backendNodeID, scrollElementJS, &before, "none"); err != nil {
		return fmt.Errorf("wheel over element: %w", err)
	}
	if err := t.Wheel(ctx, x, y, 0, dy); err != nil {
		return err
	}
	var moved bool
	if err := t.callOn(ctx, backendNodeID, scrollUnlessMovedJS, &moved, before, dy); err != nil {
		return fmt.Errorf("wheel over element: %w", err)
	}
	if !moved {
		t.log.Debug("the wheel did not reach the element; scrolled it by script", "node", backendNodeID)
	}
	return nil
}

// ScrollPageTo scrolls the page to its top or bottom edge, firing scroll
// events as any scroll does.
func (t *Tab) ScrollPageTo(ctx context.Context, edge string) error {
	if err := t.callPage(ctx, scrollPageJS, nil, edge); err != nil {
		return fmt.Errorf("scroll page to %s: %w", edge, err)
	}
	return nil
}

// Viewport returns the visible part of the page now.
func (t *Tab) Viewport(ctx context.Context) (capture.Viewport, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	m, err := chromedp.Call(c, cmdGetLayoutMetrics, map[string]any{})
	if err != nil {
		return capture.Viewport{}, fmt.Errorf("layout metrics: %w", err)
	}
	v := m.CSSVisualViewport
	return capture.Viewport{Width: v.ClientWidth, Height: v.ClientHeight, ScrollX: v.PageX, ScrollY: v.PageY}, nil
}
