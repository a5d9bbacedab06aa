package browser_test

import (
	"strconv"
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
	const cover = `<div style="position:fixed;inset:0;z-index:99"></div>`
	t.Parallel()
	for _, tc := range []struct {
		name, path, role, elem string
		// setup is HTML added to the page before the look.
		setup   string
		via     string
		standIn bool
		// status is the page's status after the click; "" when the
		// element must not be clickable where it is drawn or through
		// a label.
		status, statusID string
	}{
		{"::before outside a button of no size", "/drawn/post", "button", "⋯", "", "drawing", false, "Menu of @cras", "log"},
		{"::after beside a covered button", "/drawn/post", "button", "↪", "", "drawing", false, "Shared the post by @cras", "log"},
		{"a glyph overflowing an element of no width", "/drawn/post", "button", "like icon", "", "drawing", false, "Liked the post by @cras", "log"},
		{"toggle-all under another control, by its label", "/drawn/todo?css=old", "checkbox", "Mark all as complete", "", "label", true, "0 items left", "count"},
		{"1×1 toggle-all whose label is listened to", "/drawn/todo?toggle=label", "checkbox", "Mark all as complete", "", "label", true, "0 items left", "count"},
		{"a checkbox clipped to nothing, by its label", "/drawn/labels", "checkbox", "Use large text", "", "label", true, "Large text: on", "log"},
		{"a drawing covered too", "/drawn/post", "button", "⋯", cover, "", false, "", ""},
		{"a covered button whose drawing is covered too", "/drawn/post", "button", "↪", cover, "", false, "", ""},
		{"a transparent label is no way in", "/drawn/labels", "checkbox", "Beta features", `<p><input type="checkbox" id="beta" style="opacity:0;width:1px;height:1px"><label for="beta" style="opacity:0.05">Beta features</label></p>`, "", true, "", ""},
		{"a label that is all link is no way in", "/drawn/labels", "checkbox", "Accept the terms", `<p><input type="checkbox" id="terms" style="opacity:0;width:1px;height:1px"><label for="terms"><a href="#terms" style="display:inline-block;padding:4px">Accept the terms</a></label></p>`, "", true, "", ""},
		{"a transparent control under a dialog has no stand-in", "/drawn/labels", "checkbox", "Opt in", `<p><input type="checkbox" aria-label="Opt in" style="opacity:0;width:20px;height:20px"></p><div role="dialog" aria-label="Offer" style="position:fixed;inset:0;z-index:99;background:#fff">Offer</div>`, "", false, "", ""},
		{"a transparent control with no label under its stand-in", "/drawn/labels", "checkbox", "Compact view", "", "", true, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, browsertest.Site(t)+tc.path)
			if tc.setup != "" {
				var ok bool
				if err := tab.Evaluate(testCtx(t), "document.querySelector('main').insertAdjacentHTML('afterbegin', "+strconv.Quote(tc.setup)+"), true", &ok); err != nil {
					t.Fatal(err)
				}
			}
			node := nodeOf(t, tab, tc.role, tc.elem)
			in := inspect(t, tab, node, true)
			if in.Via != tc.via || in.StandIn != tc.standIn {
				t.Fatalf("via %q, stand-in %v; want %q, %v (%+v)", in.Via, in.StandIn, tc.via, tc.standIn, in)
			}
			if tc.status == "" {
				// A label no one sees, or that holds only a link, is no
				// way in: the control's own point is left as it was.
				if in.Visible && in.Covered == "" && (tc.setup == cover || tc.elem == "Compact view" || tc.elem == "Opt in") {
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
