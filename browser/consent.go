package browser

import (
	"context"
	_ "embed" // the page script
	"fmt"
)

// consentJS finds a known platform's cookie banner on the page.
//
//go:embed js/consent.js
var consentJS string

// ConsentBanner is the cookie-consent banner of a known platform (OneTrust,
// Cookiebot, Didomi, Quantcast, TrustArc, Usercentrics) that a page shows.
type ConsentBanner struct {
	// Platform names the consent platform.
	Platform string `json:"platform"`
	// Text is the banner's text, cut to 600 characters: the page's words.
	Text string `json:"text"`
	// Reject and Accept are its controls that refuse and accept the
	// cookies, nil for one it does not show.
	Reject *ConsentControl `json:"reject"`
	Accept *ConsentControl `json:"accept"`
}

// ConsentControl is one button of a consent banner.
type ConsentControl struct {
	// Name is what the button says.
	Name string `json:"name"`
	// X and Y are its centre in viewport CSS pixels, where Click clicks.
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// ConsentBanner returns the consent banner the page's main frame shows, or
// nil when it shows none of a platform it knows. A control counts only
// when it is visible, on top at its centre, and says what it does (reject,
// decline…; accept, agree…), so that a page cannot have the server click
// another button by giving it a platform's id.
func (t *Context) ConsentBanner(ctx context.Context) (*ConsentBanner, error) {
	var b *ConsentBanner
	if err := t.Evaluate(ctx, "("+consentJS+").apply(globalThis, [])", &b); err != nil {
		return nil, fmt.Errorf("look for a consent banner: %w", err)
	}
	return b, nil
}
