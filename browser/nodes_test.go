package browser_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestNodeOfAGoneFrame calls every method that names a node with a node of
// an out-of-process frame the page does not have: each must route the call
// to that frame's process, find it gone and say ErrDetached, never send
// the id to the page's process, where it would name another node or none.
func TestNodeOfAGoneFrame(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	node := browser.NodeBase(99) + 1
	tests := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Inspect", func(ctx context.Context) error { _, err := tab.Inspect(ctx, node, false); return err }},
		{"ClickElement", func(ctx context.Context) error { return tab.ClickElement(ctx, node, 1, 1) }},
		{"HoverElement", func(ctx context.Context) error { return tab.HoverElement(ctx, node, 1, 1) }},
		{"WheelElement", func(ctx context.Context) error { return tab.WheelElement(ctx, node, 1, 1, 10) }},
		{"Type", func(ctx context.Context) error { _, err := tab.Type(ctx, node, "x", false); return err }},
		{"SetValue", func(ctx context.Context) error { _, err := tab.SetValue(ctx, node, "x"); return err }},
		{"MaskText", func(ctx context.Context) error { return tab.MaskText(ctx, node) }},
		{"Focus", func(ctx context.Context) error { return tab.Focus(ctx, node) }},
		{"ScrollIntoView", func(ctx context.Context) error { return tab.ScrollIntoView(ctx, node) }},
		{"ScrollElementTo", func(ctx context.Context) error { return tab.ScrollElementTo(ctx, node, "bottom") }},
		{"EnterActivates", func(ctx context.Context) error { _, err := tab.EnterActivates(ctx, node); return err }},
		{"Files", func(ctx context.Context) error { _, err := tab.Files(ctx, node); return err }},
		{"SetFiles", func(ctx context.Context) error { return tab.SetFiles(ctx, node, []string{"/dev/null"}, nil) }},
		{"PickOptions", func(ctx context.Context) error {
			_, err := tab.PickOptions(ctx, node, []string{"a"}, false)
			return err
		}},
		{"Select", func(ctx context.Context) error {
			_, err := tab.Select(ctx, node, []string{"a"}, false, nil)
			return err
		}},
		{"Where", func(ctx context.Context) error { _, err := tab.Where(ctx, node); return err }},
		{"Extract", func(ctx context.Context) error { _, err := tab.Extract(ctx, node, "a", nil, 1); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(testCtx(t)); !errors.Is(err, browser.ErrDetached) {
				t.Errorf("%s on a node of a gone frame: %v, want ErrDetached", tt.name, err)
			}
		})
	}
	// A node that is gone is gone already.
	gone, err := tab.WaitForGone(testCtx(t), node, time.Second)
	if err != nil || !gone {
		t.Errorf("WaitForGone on a node of a gone frame = %v, %v; want gone", gone, err)
	}
}
