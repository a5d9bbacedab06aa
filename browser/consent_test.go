package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestConsentBanner finds each modelled platform's banner with both its
// buttons, nothing on a page without one, nothing on a banner whose
// platform ids sit on buttons that say something else, and nothing once
// the banner is answered and hidden.
func TestConsentBanner(t *testing.T) {
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	tests := []struct {
		path, platform, reject, accept string
	}{
		{"/consent/onetrust", "OneTrust", "Reject All", "Accept All Cookies"},
		{"/consent/cookiebot", "Cookiebot", "Use necessary cookies only", "Allow all cookies"},
		{"/consent/didomi", "Didomi", "Continue without agreeing", "Agree and close"},
		{"/consent/quantcast", "Quantcast", "DISAGREE", "AGREE"},
		{"/consent/trustarc", "TrustArc", "Required Only", "Accept All"},
		{"/consent/usercentrics", "Usercentrics", "Deny", "Accept All"},
		{"/consent/lookalike", "", "", ""},
		{"/account", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := tab.Navigate(ctx, site+tt.path); err != nil {
				t.Fatal(err)
			}
			b, err := tab.ConsentBanner(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tt.platform == "" {
				if b != nil {
					t.Fatalf("found %+v, want no banner", b)
				}
				return
			}
			if b == nil || b.Platform != tt.platform || b.Reject == nil || b.Accept == nil || b.Reject.Name != tt.reject || b.Accept.Name != tt.accept {
				t.Fatalf("found %+v, want %s with %q and %q", b, tt.platform, tt.reject, tt.accept)
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
