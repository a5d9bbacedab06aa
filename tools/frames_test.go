package tools

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestCrossSiteFrameTools drives the card form of a cross-site iframe
// through the tools, as an agent would: every action works inside the
// frame, and a stale or covered element is refused with the error the
// agent can act on.
func TestCrossSiteFrameTools(t *testing.T) {
	h := open(t, "/variants/cross-site-pay")
	s := h.snap(true)
	r := h.ok(Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Card number"), "value": "4111 1111 1111 1234"})
	r = h.ok(Select, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "combobox", "Country"), "value": "France"})
	r = h.ok(Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "checkbox", "Save this card")})
	r = h.ok(Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Pay")})
	const paid = "Paid with card ending 1234, country fr, save yes"
	if got := h.evalString(`document.getElementById('pay-status').textContent`); got != paid {
		t.Fatalf("the page says %q, want %q", got, paid)
	}
	if !strings.Contains(r.Snapshot.Text, paid) {
		t.Errorf("the result's page text lacks the frame's line %q:\n%s", paid, r.Snapshot.Text)
	}

	for _, tc := range []struct {
		direction, want string
	}{
		// The wheel at the box's point in the page, which the compositor
		// routes into the frame.
		{"down", "Terms scrolled to 30"},
		{"top", "Terms scrolled to 0"},
		{"bottom", ""},
	} {
		t.Run("scroll "+tc.direction+" inside the frame", func(t *testing.T) {
			h := h.sub(t)
			h.ok(Scroll, map[string]any{"ref": browsertest.Ref(t, h.snap(true), "region", "Payment terms"), "direction": tc.direction, "amount": 30})
			got := h.evalString(`document.getElementById('pay-status').textContent`)
			if tc.want != "" && got != tc.want || tc.want == "" && (!strings.HasPrefix(got, "Terms scrolled to ") || got == "Terms scrolled to 0") {
				t.Errorf("the terms box says %q after scrolling %s", got, tc.direction)
			}
		})
	}
	t.Run("covered", func(t *testing.T) {
		h := h.sub(t)
		r := h.ok(Click, map[string]any{"ref": browsertest.Ref(t, h.snap(true), "button", "Show notice")})
		wantError(t, h.act(Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Pay")}), ElementObscured)
	})
}

func TestCrossSiteFrameStaleRef(t *testing.T) {
	h := open(t, "/variants/cross-site-pay")
	pay := browsertest.Ref(t, h.snap(true), "button", "Pay")
	// The frame navigates by itself, after the snapshot: the ref's node
	// is gone with its document.
	h.eval(`new Promise(r => { const f = document.getElementById('pay-frame'); f.onload = () => r(true);
		f.src = f.src.replace('/variants/pay-frame', '/variants/frame-inner'); })`, nil)
	r := h.act(Click, map[string]any{"ref": pay})
	wantError(t, r, RefInvalid)
	if _, ok := r.Snapshot.Find("textbox", "Promo code"); !ok {
		t.Errorf("the fresh snapshot does not show the frame's new document:\n%s", r.Snapshot.Outline())
	}
	// The new document's refs work.
	r = h.ok(Fill, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "textbox", "Promo code"), "value": "SAVE10"})
	r = h.ok(Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Apply")})
	if !strings.Contains(r.Snapshot.Text, "Applied code: SAVE10") {
		t.Errorf("the frame's new document did not apply the code:\n%s", r.Snapshot.Text)
	}
}
