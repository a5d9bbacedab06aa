package tools

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestCrossSiteFrameTools drives the card form of a cross-site iframe
// through the tools, as an agent would: every action works inside the
// frame, and a stale or covered element is refused with the error the
// agent can act on.
func TestCrossSiteFrameTools(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/cross-site-checkout")
	s := h.snap(true)
	r := h.ok(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Card number"), "value": "4111 1111 1111 1234"})
	r = h.ok(toolapi.Select, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "combobox", "Country"), "value": "France"})
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "checkbox", "Save this card")})
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Pay")})
	// The frame's own result line, in the page text of the click's result.
	if want := "Paid with card ending 1234, country fr, save yes"; !strings.Contains(r.Snapshot.Text, want) {
		t.Errorf("the result's page text lacks the frame's line %q:\n%s", want, r.Snapshot.Text)
	}

	scrolledTo := regexp.MustCompile(`Terms scrolled to (\d+)`)
	for _, tc := range []struct {
		direction string
		min, max  int
	}{
		// The wheel at the box's point in the page, which the compositor
		// routes into the frame.
		{"down", 30, 30},
		{"top", 0, 0},
		{"bottom", 31, 1000}, // its end, past the wheel's 30 px
	} {
		t.Run("scroll "+tc.direction+" inside the frame", func(t *testing.T) {
			h := h.sub(t)
			r := h.ok(toolapi.Scroll, map[string]any{"ref": browsertest.Ref(t, h.snap(true), "region", "Payment terms"), "direction": tc.direction, "amount": 30})
			m := scrolledTo.FindStringSubmatch(r.Snapshot.Text)
			if m == nil {
				t.Fatalf("the frame does not say where its terms are after scrolling %s:\n%s", tc.direction, r.Snapshot.Text)
			}
			if n, _ := strconv.Atoi(m[1]); n < tc.min || n > tc.max {
				t.Errorf("after scrolling %s the terms are at %d, want %d to %d", tc.direction, n, tc.min, tc.max)
			}
			if r.Snapshot.Viewport.ScrollY != 0 {
				t.Errorf("scrolling inside the frame scrolled the page to %v", r.Snapshot.Viewport.ScrollY)
			}
		})
	}
	t.Run("covered", func(t *testing.T) {
		h := h.sub(t)
		r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, h.snap(true), "button", "Show notice")})
		wantError(t, h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Pay")}), toolapi.ElementObscured)
	})
}

func TestCrossSiteFrameStaleRef(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/cross-site-checkout")
	pay := browsertest.Ref(t, h.snap(true), "button", "Pay")
	// The frame navigates by itself, after the snapshot: the ref's node
	// is gone with its document.
	h.eval(`new Promise(r => { const f = document.getElementById('pay-frame'); f.onload = () => r(true);
		f.src = f.src.replace('/variants/card-frame', '/variants/frame-inner'); })`, nil)
	r := h.act(toolapi.Click, map[string]any{"ref": pay})
	wantError(t, r, toolapi.RefInvalid)
	if _, ok := r.Snapshot.Find("textbox", "Promo code"); !ok {
		t.Errorf("the fresh snapshot does not show the frame's new document:\n%s", r.Snapshot.Outline())
	}
	// The new document's refs work.
	r = h.ok(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "textbox", "Promo code"), "value": "SAVE10"})
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Apply")})
	if !strings.Contains(r.Snapshot.Text, "Applied code: SAVE10") {
		t.Errorf("the frame's new document did not apply the code:\n%s", r.Snapshot.Text)
	}
}

// JavaScript dialogs opened inside a cross-site frame never hang a tool: an
// alert is accepted and reported, a confirm shows in the snapshot and is
// answered through its buttons.
func TestCrossSiteFrameDialogs(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/cross-site-checkout")
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, h.snap(true), "button", "Card help")})
	if !strings.Contains(r.Message, "Cards are charged in euros.") {
		t.Errorf("the frame's alert is not in the message: %q", r.Message)
	}
	if !strings.Contains(r.Snapshot.Text, "Help shown") {
		t.Errorf("the frame did not go on after its alert:\n%s", r.Snapshot.Text)
	}
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Forget saved card")})
	if !dialogOpen(r.Snapshot) || !strings.Contains(r.Message, "Forget the saved card?") {
		t.Fatalf("the frame's confirm is not in the result: %q\n%+v", r.Message, r.Snapshot.Elements)
	}
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Cancel")})
	if dialogOpen(r.Snapshot) {
		t.Error("the confirm is still open after Cancel")
	}
	if !strings.Contains(r.Snapshot.Text, "Forget answered false") {
		t.Errorf("the frame did not get the answer:\n%s", r.Snapshot.Text)
	}
}
