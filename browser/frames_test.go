package browser_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// payPage opens the checkout whose card form is a cross-site iframe.
func payPage(t *testing.T) *browser.Context {
	t.Helper()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/variants/cross-site-checkout")
	return tab
}

// frameBox returns the content box of the page's #pay-frame in viewport
// pixels.
func frameBox(t *testing.T, tab *browser.Context) browser.Box {
	t.Helper()
	var b browser.Box
	err := tab.Evaluate(testCtx(t), `(() => {
		const f = document.getElementById('pay-frame'), r = f.getBoundingClientRect(), cs = getComputedStyle(f);
		const l = f.clientLeft + parseFloat(cs.paddingLeft), tp = f.clientTop + parseFloat(cs.paddingTop);
		return {x: r.left + l, y: r.top + tp, width: f.clientWidth - 2 * parseFloat(cs.paddingLeft), height: f.clientHeight - 2 * parseFloat(cs.paddingTop)};
	})()`, &b)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// payStatus is the line the frame posted to the page.
func payStatus(t *testing.T, tab *browser.Context) string {
	t.Helper()
	var s string
	if err := tab.Evaluate(testCtx(t), `document.getElementById('pay-status').textContent`, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitStatus waits until the page's status line satisfies ok.
func waitStatus(t *testing.T, tab *browser.Context, ok func(string) bool) {
	t.Helper()
	var last string
	if !waitUntil(t, 20*time.Millisecond, func() bool { last = payStatus(t, tab); return ok(last) }) {
		t.Fatalf("the page's status line is %q", last)
	}
}

func TestCrossSiteFrameInSnapshot(t *testing.T) {
	t.Parallel()
	tab := payPage(t)
	c := captureOf(t, tab, browser.CaptureOptions{})
	if len(c.RemoteDOM) != 1 {
		t.Fatalf("%d out-of-process frames captured, want 1", len(c.RemoteDOM))
	}
	s, table, _ := snapshot.Build(c, snapshot.Options{}, 1)
	fb := frameBox(t, tab)
	for _, want := range []struct{ role, name string }{
		{"textbox", "Card number"}, {"combobox", "Country"}, {"checkbox", "Save this card"},
		{"button", "Pay"}, {"link", "Use a promo code"},
	} {
		e, ok := s.Find(want.role, want.name)
		if !ok {
			t.Errorf("no %s %q in the snapshot:\n%s", want.role, want.name, s.Outline())
			continue
		}
		b := e.BBox
		if b.Width <= 0 || b.X < fb.X-0.5 || b.Y < fb.Y-0.5 || b.X+b.Width > fb.X+fb.Width+0.5 || b.Y+b.Height > fb.Y+fb.Height+0.5 {
			t.Errorf("%s %q box %+v is not inside the frame's box %+v", want.role, want.name, b, fb)
		}
		tg := table[e.Ref]
		if !strings.Contains(tg.DocumentURL, "/variants/card-frame") {
			t.Errorf("%s %q belongs to %q, want the frame's document", want.role, want.name, tg.DocumentURL)
		}
		// The check before an action sees the same box, in page terms.
		in := inspect(t, tab, tg.BackendNodeID, false)
		if in.AXRole != tg.AXRole || in.AXName != tg.AXName || in.Covered != "" || !in.Visible {
			t.Errorf("%s %q inspects as %s %q, covered %q, visible %v", want.role, want.name, in.AXRole, in.AXName, in.Covered, in.Visible)
		}
		if d := in.Box.X - b.X + in.Box.Y - b.Y; d > 1 || d < -1 {
			t.Errorf("%s %q: inspected box %+v, snapshot box %+v", want.role, want.name, in.Box, b)
		}
	}
	if _, ok := s.Find("heading", "Card payment"); !ok {
		t.Errorf("the page's own heading is missing:\n%s", s.Outline())
	}
	if !strings.Contains(s.Text, "Refunds take five days") {
		t.Errorf("the frame's text is not in the page text: %q", s.Text)
	}
}

// frameNode returns the backend node id of the element with the role and
// name in a fresh snapshot, and checks that it lives in the cross-site frame.
func frameNode(t *testing.T, tab *browser.Context, role, name string) int64 {
	t.Helper()
	id := nodeOf(t, tab, role, name)
	if id < browser.NodeBase(1) {
		t.Fatalf("%s %q has node id %d: not an out-of-process frame's", role, name, id)
	}
	return id
}

func TestCrossSiteFrameActions(t *testing.T) {
	t.Parallel()
	tab := payPage(t)
	ctx := testCtx(t)

	got, err := tab.Type(ctx, frameNode(t, tab, "textbox", "Card number"), "4242 4242 4242 4242", true)
	if err != nil || got != "4242 4242 4242 4242" {
		t.Fatalf("typing the card number: %q, %v", got, err)
	}
	sel, err := tab.Select(ctx, frameNode(t, tab, "combobox", "Country"), []string{"Germany"}, false, nil)
	if err != nil || len(sel) != 1 || sel[0].Value != "de" {
		t.Fatalf("selecting the country: %+v, %v", sel, err)
	}
	for _, name := range []string{"Save this card", "Pay"} {
		role := map[string]string{"Save this card": "checkbox", "Pay": "button"}[name]
		in := inspect(t, tab, frameNode(t, tab, role, name), true)
		if !in.Visible || in.Covered != "" {
			t.Fatalf("%s: visible %v, covered %q", name, in.Visible, in.Covered)
		}
		if err := tab.Click(ctx, in.X, in.Y); err != nil {
			t.Fatal(err)
		}
	}
	waitStatus(t, tab, func(s string) bool { return s == "Paid with card ending 4242, country de, save yes" })

	// Wheel and scripted scrolls inside the frame.
	terms := frameNode(t, tab, "region", "Payment terms")
	in := inspect(t, tab, terms, true)
	if !in.Scrollable {
		t.Fatalf("the terms box is not scrollable: %+v", in)
	}
	if err := tab.WheelElement(ctx, terms, in.X, in.Y, 40); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, tab, func(s string) bool { return strings.HasPrefix(s, "Terms scrolled to ") && s != "Terms scrolled to 0" })
	if err := tab.ScrollElementTo(ctx, terms, "top"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, tab, func(s string) bool { return s == "Terms scrolled to 0" })
}

func TestCrossSiteFrameStaleAndCovered(t *testing.T) {
	t.Parallel()
	t.Run("covered", func(t *testing.T) {
		tab := payPage(t)
		if err := tab.Click(testCtx(t), inspect(t, tab, nodeOf(t, tab, "button", "Show notice"), true).X,
			inspect(t, tab, nodeOf(t, tab, "button", "Show notice"), true).Y); err != nil {
			t.Fatal(err)
		}
		pay := frameNode(t, tab, "button", "Pay")
		var in *browser.Inspection
		if !waitUntil(t, 20*time.Millisecond, func() bool { in = inspect(t, tab, pay, false); return in.Covered != "" }) {
			t.Fatalf("Pay under the notice inspects as %+v", in)
		}
		if in.Covered != `dialog "Notice"` {
			t.Errorf("covered by %q, want the notice", in.Covered)
		}
	})
	for _, tc := range []struct{ name, src string }{
		// Another page of the frame's site: the same process, a new document.
		{"same frame site", `'http://' + (location.hostname === 'localhost' ? '127.0.0.1' : 'localhost') + ':' + location.port + '/variants/frame-inner'`},
		// The page's own site: the frame leaves its process.
		{"page's site", `'/variants/frame-inner'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := payPage(t)
			card := frameNode(t, tab, "textbox", "Card number")
			err := tab.Evaluate(testCtx(t), `new Promise(r => { const f = document.getElementById('pay-frame'); f.onload = () => r(true); f.src = `+tc.src+`; })`, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tab.Inspect(testCtx(t), card, false); !errors.Is(err, browser.ErrDetached) {
				t.Errorf("inspecting the card field after the frame navigated: %v, want ErrDetached", err)
			}
			if _, err := tab.Type(testCtx(t), card, "1", false); !errors.Is(err, browser.ErrDetached) {
				t.Errorf("typing into the card field after the frame navigated: %v, want ErrDetached", err)
			}
			// The new document is reachable again after a capture.
			nodeOf(t, tab, "textbox", "Promo code")
		})
	}
}

func TestNestedCrossSiteFrame(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/variants/cross-site-checkout?nested=1")
	ctx := testCtx(t)
	c := captureOf(t, tab, browser.CaptureOptions{})
	if len(c.RemoteDOM) != 2 {
		t.Fatalf("%d out-of-process frames captured, want 2 (the payment frame and the bank's inside it)", len(c.RemoteDOM))
	}
	s, table, _ := snapshot.Build(c, snapshot.Options{}, 1)
	e, ok := s.Find("textbox", "Promo code")
	if !ok {
		t.Fatalf("no textbox of the nested frame:\n%s", s.Outline())
	}
	fb := frameBox(t, tab)
	// The bank's frame starts 12 px (the form's padding) and its own
	// border inside the payment frame.
	if b := e.BBox; b.X < fb.X+12 || b.Y < fb.Y+12 || b.X+b.Width > fb.X+fb.Width || b.Y+b.Height > fb.Y+fb.Height {
		t.Errorf("nested textbox box %+v is not inside the payment frame's content box %+v", b, fb)
	}
	node := table[e.Ref].BackendNodeID
	in := inspect(t, tab, node, false)
	if d := in.Box.X - e.BBox.X + in.Box.Y - e.BBox.Y; d > 1 || d < -1 || in.Covered != "" {
		t.Errorf("inspected box %+v (covered %q), snapshot box %+v", in.Box, in.Covered, e.BBox)
	}
	if _, err := tab.Type(ctx, node, "SAVE10", true); err != nil {
		t.Fatal(err)
	}
	apply := inspect(t, tab, nodeOf(t, tab, "button", "Apply"), true)
	if err := tab.Click(ctx, apply.X, apply.Y); err != nil {
		t.Fatal(err)
	}
	var text string
	if !waitUntil(t, 20*time.Millisecond, func() bool {
		s, _, _ := snapshot.Build(captureOf(t, tab, browser.CaptureOptions{}), snapshot.Options{}, 1)
		text = s.Text
		return strings.Contains(text, "Applied code: SAVE10")
	}) {
		t.Fatalf("the nested frame's result is not in the page text: %q", text)
	}
}

func TestCrossSiteFrameBelowTheFold(t *testing.T) {
	t.Parallel()
	tab := payPage(t)
	if err := tab.Evaluate(testCtx(t), `document.body.style.paddingTop = '1500px'`, nil); err != nil {
		t.Fatal(err)
	}
	pay := frameNode(t, tab, "button", "Pay")
	if in := inspect(t, tab, pay, false); in.Visible {
		t.Fatalf("Pay should start below the fold: %+v", in)
	}
	// Scrolling brings the iframe, and so the button, into view.
	in := inspect(t, tab, pay, true)
	vp, err := tab.Viewport(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !in.Visible || in.Covered != "" || in.Y < 0 || in.Y > vp.Height {
		t.Fatalf("after scrolling, Pay inspects as visible %v at %v,%v (covered %q) in a viewport of height %v", in.Visible, in.X, in.Y, in.Covered, vp.Height)
	}
	if err := tab.ClickElement(testCtx(t), pay, in.X, in.Y); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, tab, func(s string) bool { return s == "Paid with card ending , country none, save no" })
}
