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

// TestPointIntoADrawnFrame judges points over a cross-site frame that the
// page draws moved by a fraction of a pixel, scaled and turned: wherever
// the hit test finds a control of the frame, the pointer sent to the point
// judged reaches that control (the delivery record confirms it). A point
// taken into the frame by its offset alone lands elsewhere once the frame
// is scaled.
func TestPointIntoADrawnFrame(t *testing.T) {
	tests := []struct{ name, transform string }{
		{"moved by a fraction", "translate(0.37px, 0.61px)"},
		{"scaled", "translate(0.37px, 0.61px) scale(0.83)"},
		{"scaled and turned", "scale(0.9) rotate(4deg)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab := browsertest.Tab(t)
			navigate(t, tab, browsertest.Site(t)+"/variants/cross-site-checkout")
			nodeOf(t, tab, "button", "Pay") // the frame has loaded
			var box struct{ Left, Top, Right, Bottom float64 }
			if err := tab.Evaluate(testCtx(t), `(async () => {
				const f = document.getElementById('pay-frame');
				f.scrollIntoView({block: 'start'});
				f.style.transformOrigin = '0 0';
				f.style.transform = `+"`"+tc.transform+"`"+`;
				await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
				const r = f.getBoundingClientRect();
				return {Left: r.left, Top: r.top, Right: Math.min(r.right, innerWidth), Bottom: Math.min(r.bottom, innerHeight)};
			})()`, &box); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for y := box.Top + 3.3; y < box.Bottom && checked < 12; y += 17 {
				for x := box.Left + 3.7; x < box.Right && checked < 12; x += 37 {
					at, err := tab.ElementAt(testCtx(t), x, y)
					if err != nil || at.Hit < browser.NodeBase(1) {
						continue
					}
					in, err := tab.Inspect(testCtx(t), at.Node, false)
					if err != nil || (in.Tag != "button" && in.Tag != "input") {
						continue
					}
					checked++
					if err := tab.HoverAt(testCtx(t), at); err != nil {
						t.Errorf("judged %s %q at %v,%v (sent to %s), but the pointer did not reach it: %v", in.Tag, in.AXName, x, y, at.At, err)
					}
				}
			}
			if checked < 5 {
				t.Fatalf("only %d points over the frame's controls; the scan missed the frame", checked)
			}
			t.Logf("%d points over the frame's controls, each reached", checked)
		})
	}
}

// TestRefIntoADrawnFrame clicks by ref, as browser_click does, the controls
// of a cross-site frame that the page draws scaled and turned: the click
// point is taken through the frame as drawn and reaches each control.
func TestRefIntoADrawnFrame(t *testing.T) {
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/variants/cross-site-checkout")
	nodeOf(t, tab, "button", "Pay")
	var ok bool
	if err := tab.Evaluate(testCtx(t), `(async () => {
		const f = document.getElementById('pay-frame');
		f.style.transformOrigin = '0 0';
		f.style.transform = 'translate(0.37px, 0.61px) scale(0.8) rotate(3deg)';
		await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		return true;
	})()`, &ok); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Card help", "Forget saved card"} {
		node := nodeOf(t, tab, "button", name)
		in := inspect(t, tab, node, true)
		if !in.Visible || in.Covered != "" {
			t.Fatalf("%s: visible %v, covered %q", name, in.Visible, in.Covered)
		}
		if err := tab.HoverElement(testCtx(t), node, in.X, in.Y); err != nil {
			t.Errorf("hover %s at %v,%v: %v", name, in.X, in.Y, err)
		}
	}
}
