package browser_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// deliveryHost opens the hostile delivery host with the frame inner
// (delivery-cover, delivery-shift), cross-site unless same.
func deliveryHost(t *testing.T, inner string, same bool) *browser.Context {
	t.Helper()
	tab := browsertest.Tab(t)
	url := browsertest.Site(t) + "/hostile/delivery-host?inner=" + inner
	if same {
		url += "&same=1"
	}
	navigate(t, tab, url)
	return tab
}

// deliveryStatus is what the frame last posted to the host page.
func deliveryStatus(t *testing.T, tab *browser.Context) string {
	t.Helper()
	var s string
	if err := tab.Evaluate(testCtx(t), `document.getElementById('host-status').textContent`, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// clickAt clicks node at its inspected click point with ClickElement.
func clickAt(t *testing.T, tab *browser.Context, node int64) error {
	t.Helper()
	in := inspect(t, tab, node, true)
	if !in.Visible || in.Covered != "" {
		t.Fatalf("node %d inspects as visible %v, covered %q", node, in.Visible, in.Covered)
	}
	return tab.ClickElement(testCtx(t), node, in.X, in.Y)
}

// TestClickDelivery clicks buttons inside frames, cross-site and not, that
// hear the click, that lose it to a cover swapped in on pointerdown, and
// that move away on the pointer's first move: ClickElement answers nil
// only when the button's own click handler ran, and a click it retried ran
// it once.
func TestClickDelivery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, inner string
		same        bool
		// fails says the click must be a DeliveryError, whose Received
		// holds received; otherwise it must happen, once.
		fails    bool
		received string
	}{
		{"cross-site late layout is retried", "delivery-shift", false, false, ""},
		{"same-site late layout is retried", "delivery-shift", true, false, ""},
		{"cross-site cover fails", "delivery-cover", false, true, "div"},
		{"same-site cover fails", "delivery-cover", true, true, "div"},
		// The frame has its parent replace it on the pointer's first
		// move: the document the click was aimed at is gone.
		{"same-site frame replaced fails", "delivery-vanish", true, true, ""},
		// The button handles the press by having its frame replaced:
		// its document is gone before the record is read, and the press
		// it reported counts.
		{"same-site frame gone after the press", "delivery-leave", true, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := deliveryHost(t, tc.inner, tc.same)
			node := nodeOf(t, tab, "button", "Apply coupon")
			if !tc.same && node < browser.NodeBase(1) {
				t.Fatalf("the button has node id %d: not in an out-of-process frame", node)
			}
			err := clickAt(t, tab, node)
			var d *browser.DeliveryError
			switch {
			case !tc.fails && err != nil:
				t.Fatalf("ClickElement: %v, want the click delivered", err)
			case tc.fails && !errors.As(err, &d):
				t.Fatalf("ClickElement: %v, want a DeliveryError", err)
			case tc.fails && (!errors.Is(err, browser.ErrNotDelivered) || !strings.Contains(d.Received, tc.received) || d.Input != "click"):
				t.Errorf("DeliveryError %+v (%v), want the click received by %q", d, err, tc.received)
			}
			want := "Coupon applied 1"
			if tc.fails {
				want = "Waiting for the provider"
			} else {
				waitUntil(t, 0, func() bool { return deliveryStatus(t, tab) == want })
			}
			if got := deliveryStatus(t, tab); got != want {
				t.Errorf("the host's status is %q, want %q", got, want)
			}
		})
	}
}

// TestClickDeliveryEdges clicks what a delivery check must not mistake for
// a miss: a click a window capture listener stops, a button that navigates
// on mousedown, one that removes itself on mousedown, and a plain
// cross-site frame's button.
func TestClickDeliveryEdges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, button string
		// done reports whether the click had its effect.
		done func(t *testing.T, tab *browser.Context) bool
	}{
		{"stopped at window capture", "Stopped", func(t *testing.T, tab *browser.Context) bool { return edgeStatus(t, tab) == "Stopped handled" }},
		{"navigates on mousedown", "Leave on press", func(t *testing.T, tab *browser.Context) bool { return strings.HasSuffix(tab.URL(), "/help") }},
		{"removes itself on mousedown", "Vanish", func(t *testing.T, tab *browser.Context) bool { return edgeStatus(t, tab) == "Vanished" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := browsertest.Tab(t)
			navigate(t, tab, browsertest.Site(t)+"/hostile/delivery-edges")
			if err := clickAt(t, tab, nodeOf(t, tab, "button", tc.button)); err != nil {
				t.Fatalf("ClickElement: %v, want the click delivered", err)
			}
			if !waitUntil(t, 0, func() bool { return tc.done(t, tab) }) {
				t.Errorf("the click had no effect")
			}
		})
	}
	t.Run("cross-site frame", func(t *testing.T) {
		tab := payPage(t)
		if err := clickAt(t, tab, frameNode(t, tab, "button", "Pay")); err != nil {
			t.Fatal(err)
		}
		waitStatus(t, tab, func(s string) bool { return s == "Paid with card ending , country none, save no" })
	})
}

// edgeStatus is the delivery-edges page's status line, or "" once the page
// has gone.
func edgeStatus(t *testing.T, tab *browser.Context) string {
	t.Helper()
	var s string
	_ = tab.Evaluate(testCtx(t), `document.getElementById('edge-status')?.textContent || ''`, &s)
	return s
}

// TestPressDelivery presses keys into a focused field and into a field of a
// cross-site frame (delivered), and into a field whose page moves the focus
// on Shift, so the key lands in another field: a DeliveryError naming it.
func TestPressDelivery(t *testing.T) {
	t.Parallel()
	t.Run("cross-site frame", func(t *testing.T) {
		tab := payPage(t)
		card := frameNode(t, tab, "textbox", "Card number")
		if _, err := tab.Type(testCtx(t), card, "42", true); err != nil {
			t.Fatal(err)
		}
		chord, err := browser.ParseKey("4")
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Press(testCtx(t), chord); err != nil {
			t.Fatalf("Press in the frame's field: %v", err)
		}
	})
	t.Run("Enter submits and navigates", func(t *testing.T) {
		tab := browsertest.Tab(t)
		navigate(t, tab, browsertest.Site(t)+"/variants/keys")
		search := nodeOf(t, tab, "searchbox", "Search titles")
		if _, err := tab.Type(testCtx(t), search, "heist", true); err != nil {
			t.Fatal(err)
		}
		chord, err := browser.ParseKey("Enter")
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Press(testCtx(t), chord); err != nil {
			t.Fatalf("Press Enter in a search form: %v", err)
		}
		if !waitUntil(t, 0, func() bool { return strings.Contains(tab.URL(), "/variants/search-results") }) {
			t.Errorf("Enter did not submit the search: the page is %s", tab.URL())
		}
	})
	t.Run("focus moved on Shift", func(t *testing.T) {
		tab := browsertest.Tab(t)
		navigate(t, tab, browsertest.Site(t)+"/hostile/delivery-edges")
		if err := tab.Focus(testCtx(t), nodeOf(t, tab, "textbox", "First")); err != nil {
			t.Fatal(err)
		}
		plain, err := browser.ParseKey("b")
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Press(testCtx(t), plain); err != nil {
			t.Fatalf("Press b in First: %v", err)
		}
		chord, err := browser.ParseKey("Shift+a")
		if err != nil {
			t.Fatal(err)
		}
		err = tab.Press(testCtx(t), chord)
		var d *browser.DeliveryError
		if !errors.As(err, &d) || !strings.Contains(d.Received, "input#") {
			t.Fatalf("Press Shift+a: %v, want a DeliveryError naming the other field", err)
		}
	})
}

// TestHoverAndWheelDelivery hovers over a button of a cross-site frame that
// moves on the pointer's first move, and turns
// the wheel over a cross-site frame's scrollable box: both reach their
// element, which the page shows.
func TestHoverAndWheelDelivery(t *testing.T) {
	t.Parallel()
	t.Run("hover in a frame that moves", func(t *testing.T) {
		tab := deliveryHost(t, "delivery-shift", false)
		node := nodeOf(t, tab, "button", "Apply coupon")
		in := inspect(t, tab, node, true)
		if err := tab.HoverElement(testCtx(t), node, in.X, in.Y); err != nil {
			t.Fatalf("HoverElement: %v", err)
		}
		// Where the pointer rests now is the button's: a click there
		// needs no second try.
		if err := tab.Click(testCtx(t), inspect(t, tab, node, true).X, inspect(t, tab, node, true).Y); err != nil {
			t.Fatal(err)
		}
		if !waitUntil(t, 0, func() bool { return deliveryStatus(t, tab) == "Coupon applied 1" }) {
			t.Errorf("the host's status is %q", deliveryStatus(t, tab))
		}
	})
	t.Run("wheel in a cross-site frame", func(t *testing.T) {
		tab := payPage(t)
		terms := frameNode(t, tab, "region", "Payment terms")
		in := inspect(t, tab, terms, true)
		if err := tab.WheelElement(testCtx(t), terms, in.X, in.Y, 40); err != nil {
			t.Fatalf("WheelElement: %v", err)
		}
		waitStatus(t, tab, func(s string) bool { return strings.HasPrefix(s, "Terms scrolled to ") && s != "Terms scrolled to 0" })
	})
}
