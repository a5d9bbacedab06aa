package browser_test

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestClickWhereDrawn (issue 31, items 3 and 5): an element whose own box
// offers no point (no size, or covered at its centre) is clicked where it
// is drawn — its ::before or ::after, a glyph overflowing it — and a
// control a person cannot point at through its visible label; the
// browser's hit test at that point finds the element (a pseudo-element's
// point is its element's), the click is confirmed delivered, and the
// page's own listener ran. A page that covers the drawing too leaves the
// element unclickable; a transparent control with no label is reported
// covered by its stand-in.
func TestClickWhereDrawn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, role, elem string
		// cover adds a cover over the whole page before the look.
		cover   bool
		via     string
		standIn bool
		// status is the page's status after the click; "" when the
		// element must not be clickable.
		status, statusID string
	}{
		{"::before outside a button of no size", "/drawn/post", "button", "⋯", false, "drawing", false, "Menu of @cras", "log"},
		{"::after beside a covered button", "/drawn/post", "button", "↪", false, "drawing", false, "Shared the post by @cras", "log"},
		{"a glyph overflowing an element of no width", "/drawn/post", "button", "like icon", false, "drawing", false, "Liked the post by @cras", "log"},
		{"toggle-all under another control, by its label", "/drawn/todo?css=old", "checkbox", "Mark all as complete", false, "label", true, "0 items left", "count"},
		{"1×1 toggle-all whose label is listened to", "/drawn/todo?toggle=label", "checkbox", "Mark all as complete", false, "label", true, "0 items left", "count"},
		{"a checkbox clipped to nothing, by its label", "/drawn/labels", "checkbox", "Use large text", false, "label", true, "Large text: on", "log"},
		{"a drawing covered too", "/drawn/post", "button", "⋯", true, "", true, "", ""},
		{"a covered button whose drawing is covered too", "/drawn/post", "button", "↪", true, "", false, "", ""},
		{"a transparent control with no label under its stand-in", "/drawn/labels", "checkbox", "Compact view", false, "", true, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, browsertest.Site(t)+tc.path)
			node := nodeOf(t, tab, tc.role, tc.elem)
			if tc.cover {
				var ok bool
				if err := tab.Evaluate(testCtx(t), `document.body.insertAdjacentHTML('beforeend', '<div style="position:fixed;inset:0;z-index:99"></div>'), true`, &ok); err != nil {
					t.Fatal(err)
				}
			}
			in := inspect(t, tab, node, true)
			if in.Via != tc.via || in.StandIn != tc.standIn {
				t.Fatalf("via %q, stand-in %v; want %q, %v (%+v)", in.Via, in.StandIn, tc.via, tc.standIn, in)
			}
			if tc.status == "" {
				if in.Visible && in.Covered == "" {
					t.Fatalf("a click point at %g,%g, want none: %+v", in.X, in.Y, in)
				}
				return
			}
			if !in.Visible || in.Covered != "" {
				t.Fatalf("visible %v, covered %q", in.Visible, in.Covered)
			}
			b := in.Box
			if in.X < b.X || in.Y < b.Y || in.X >= b.X+b.Width || in.Y >= b.Y+b.Height {
				t.Errorf("the click point %g,%g is outside the box drawn %+v", in.X, in.Y, b)
			}
			at, err := tab.ElementAt(testCtx(t), in.X, in.Y)
			if err != nil {
				t.Fatal(err)
			}
			if tc.via == "drawing" && at.Hit != node {
				t.Errorf("the hit test at %g,%g finds node %d, want the element %d", in.X, in.Y, at.Hit, node)
			}
			if err := tab.ClickElement(testCtx(t), node, in.X, in.Y); err != nil {
				t.Fatal(err)
			}
			var got string
			if err := tab.Evaluate(testCtx(t), `document.getElementById('`+tc.statusID+`').textContent`, &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.status {
				t.Errorf("the page says %q, want %q", got, tc.status)
			}
		})
	}
}
