package browser_test

import (
	"errors"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestClickNotPressedOnWhatMovedUnder: a click aimed at "Read more" whose
// page moves "Place order" under the pointer as it arrives (on pointermove
// or mouseover), and stops the press on it before any listener added later
// hears it, presses nothing: a DeliveryError, and the cart is not
// submitted. A plain click on "Read more" on a page that moves nothing
// still lands.
func TestClickNotPressedOnWhatMovedUnder(t *testing.T) {
	t.Parallel()
	for _, on := range []string{"pointermove", "mouseover", "click"} {
		t.Run(on, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, browsertest.Site(t)+"/hostile/click-swap?on="+on)
			n := nodeOf(t, tab, "button", "Read more")
			in, err := tab.Inspect(testCtx(t), n, true)
			if err != nil {
				t.Fatal(err)
			}
			err = tab.ClickElement(testCtx(t), n, in.X, in.Y)
			var status string
			if err := tab.Evaluate(testCtx(t), `document.getElementById('result').textContent`, &status); err != nil {
				t.Fatal(err)
			}
			if status != "No order placed" {
				t.Errorf("a click on Read more placed the order: %q (err %v)", status, err)
			}
			var d *browser.DeliveryError
			if moves := on != "click"; moves != errors.As(err, &d) {
				t.Errorf("ClickElement on %s: %v; want a DeliveryError %v", on, err, moves)
			}
		})
	}
}
