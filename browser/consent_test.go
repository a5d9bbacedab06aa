package browser_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestConsentBanner finds each modelled platform's banner with both its
// buttons, nothing on a page without one, nothing on a banner whose
// platform ids sit on buttons that say something else, and nothing once
// the banner is answered and hidden.
func TestConsentBanner(t *testing.T) {
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	// The platforms' banners, then a lookalike and a page without one.
	tests := append(slices.Clone(fixtures.ConsentBanners), fixtures.ConsentBanner{Path: "/consent/lookalike"}, fixtures.ConsentBanner{Path: "/account"})
	for _, tt := range tests {
		t.Run(tt.Path, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := tab.Navigate(ctx, site+tt.Path); err != nil {
				t.Fatal(err)
			}
			b, err := tab.ConsentBanner(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tt.Platform == "" {
				if b != nil {
					t.Fatalf("found %+v, want no banner", b)
				}
				return
			}
			if b == nil || b.Platform != tt.Platform || b.Reject == nil || b.Accept == nil || b.Reject.Name != tt.Reject || b.Accept.Name != tt.Accept {
				t.Fatalf("found %+v, want %s with %q and %q", b, tt.Platform, tt.Reject, tt.Accept)
			}
			if b.Text == "" {
				t.Errorf("no banner text")
			}
			if err := tab.Click(ctx, b.Reject.X, b.Reject.Y); err != nil {
				t.Fatal(err)
			}
			var status string
			if err := tab.Evaluate(ctx, "document.getElementById('consent-status').textContent", &status); err != nil || status != "Consent: rejected" {
				t.Errorf("after a click at the reject button's centre the page says %q (%v)", status, err)
			}
			if b, err := tab.ConsentBanner(ctx); err != nil || b != nil {
				t.Errorf("after the answer: %+v, %v; want no banner", b, err)
			}
		})
	}
}
