package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// deliveryConfirmed is the text a delivery fixture's frame shows, and posts
// to its host, once its button heard its own click.
const deliveryConfirmed = "Coupon applied 1"

// deliveryOutcome checks the one promise a click result makes: success
// only with the click's effect on the page, and otherwise action_failed,
// never another code and never success without effect. It returns whether
// the click succeeded.
func deliveryOutcome(t *testing.T, r actionResult, after *snapshot.Snapshot) bool {
	t.Helper()
	happened := strings.Contains(after.Text, deliveryConfirmed)
	switch {
	case r.Success && !happened:
		t.Errorf("the click answered success, but the button never heard it; page text:\n%s", after.Text)
	case !r.Success && (r.Error == nil || *r.Error != "action_failed"):
		t.Errorf("the click failed with %v (%q), want action_failed", r.Error, r.Message)
	case !r.Success && happened:
		t.Errorf("the click answered %v (%q), but it happened", *r.Error, r.Message)
	}
	return r.Success
}

// TestDeliveryAttack reverses issue 22's reproduction 8 through the built
// binary over stdio: clicks on a button in a frame (cross-site, and of the
// same site) that a page makes miss, by finishing its layout on the
// pointer's first move, by swapping an invisible cover in on pointerdown,
// or by replacing the frame on the pointer's first move. A click either happened (the frame's state changed) or is
// action_failed saying what received it; the layout shift is retried and
// happens; the cover never lets it through; the session stays usable.
func TestDeliveryAttack(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	for _, tc := range []struct {
		name, query string
		// succeeds says whether the click must happen (true) or must fail
		// (false); a failure's message names what received the click.
		succeeds bool
		received string
	}{
		{"cross-site late layout", "inner=delivery-shift", true, ""},
		{"same-site late layout", "inner=delivery-shift&same=1", true, ""},
		{"cross-site cover on pointerdown", "inner=delivery-cover", false, "div"},
		{"same-site cover on pointerdown", "inner=delivery-cover&same=1", false, "div"},
		{"same-site frame replaced on the pointer's first move", "inner=delivery-vanish&same=1", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A wide action budget: a retried click inspects the element
			// anew and waits for its frame to render, which a machine
			// busy with other tests' browsers can stretch past the 2 s
			// default; what is under test is the answer, not the time.
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/hostile/delivery-host?"+tc.query, "--profile", "none", "--action-timeout", "20s")
			s := getSnapshot(t, c)
			r, after := click(t, c, browsertest.Ref(t, s, "button", "Apply coupon"))
			if got := deliveryOutcome(t, r, after); got != tc.succeeds {
				t.Errorf("the click answered success %v (%v %q), want %v", got, r.Error, r.Message, tc.succeeds)
			}
			if !tc.succeeds && (!strings.Contains(r.Message, "did not reach") || !strings.Contains(r.Message, tc.received)) {
				t.Errorf("the failure does not say that the click did not reach the button, and what received it (%q): %q", tc.received, r.Message)
			}
			// The session stays usable, and the page is as the result said.
			again := getSnapshot(t, c)
			if happened := strings.Contains(again.Text, deliveryConfirmed); happened != r.Success {
				t.Errorf("a fresh snapshot after the click shows it happened %v, the result said success %v:\n%s", happened, r.Success, again.Text)
			}
		})
	}
}
