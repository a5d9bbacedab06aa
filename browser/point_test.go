package browser_test

import (
	"errors"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestElementAt hit-tests the click point of elements the snapshot names,
// scrolled into view first: the element at the point is found on a
// scrolled page, inside a canvas-drawn control (the control, not the
// canvas, is what a click there means), in a cross-site frame, and in a
// cross-site frame inside another.
func TestElementAt(t *testing.T) {
	tests := []struct {
		name, path, role, elem string
		// inside says the hit test finds an element inside the control.
		inside bool
		// remote says the element lives in an out-of-process frame.
		remote bool
	}{
		{"canvas", "/variants/canvas", "image", "Target board", false, false},
		{"canvas-drawn button in a cross-site frame", "/variants/canvas", "button", "Pay $20", true, true},
		{"scrolled page", "/variants/cancelled-below", "heading", "Your membership has been cancelled", false, false},
		{"button text", "/variants/everyday", "button", "Buy now", false, false},
		{"frame in a cross-site frame", "/variants/cross-site-checkout?nested=1", "button", "Apply", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab := browsertest.Tab(t)
			navigate(t, tab, browsertest.Site(t)+tc.path)
			node := nodeOf(t, tab, tc.role, tc.elem)
			in := inspect(t, tab, node, true)
			at, err := tab.ElementAt(testCtx(t), in.X, in.Y)
			if err != nil {
				t.Fatal(err)
			}
			if at.Node != node {
				t.Fatalf("at %.0f,%.0f: node %d, want %d (%s %q)", in.X, in.Y, at.Node, node, tc.role, tc.elem)
			}
			if (at.Hit != at.Node) != tc.inside {
				t.Errorf("hit %d, control %d: want inside=%v", at.Hit, at.Node, tc.inside)
			}
			if (at.Hit >= browser.NodeBase(1)) != tc.remote {
				t.Errorf("hit %d: want in an out-of-process frame = %v", at.Hit, tc.remote)
			}
		})
	}
}

func TestElementAtOutsideTheViewport(t *testing.T) {
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/variants/canvas")
	for _, p := range [][2]float64{{-1, 10}, {10, -1}, {100_000, 10}, {10, 100_000}} {
		if _, err := tab.ElementAt(testCtx(t), p[0], p[1]); !errors.Is(err, browser.ErrNothingAt) {
			t.Errorf("ElementAt(%v, %v) = %v, want ErrNothingAt", p[0], p[1], err)
		}
	}
}
