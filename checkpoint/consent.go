package checkpoint

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Consent is what a session does with a cookie-consent banner of a known
// platform, a profile's "consent": leave it to the agent (the default),
// reject the cookies, accept them, or ask a person.
type Consent string

// The consent policies.
const (
	ConsentLeave  Consent = "leave"
	ConsentReject Consent = "reject"
	ConsentAccept Consent = "accept"
	ConsentAsk    Consent = "ask"
)

// consents are the values a profile's consent may take.
var consents = []Consent{ConsentLeave, ConsentReject, ConsentAccept, ConsentAsk}

// parseConsent checks a profile's consent; "" is ConsentLeave.
func parseConsent(s string) (Consent, error) {
	if s == "" {
		return ConsentLeave, nil
	}
	for _, c := range consents {
		if Consent(s) == c {
			return c, nil
		}
	}
	return "", fieldErr("consent", "must be leave, reject, accept or ask, got %q", s)
}

// Consent returns the gate's consent policy: its profile's, or
// ConsentLeave without one.
func (g *Gate) Consent() Consent {
	if g.profile == nil || g.profile.Consent == "" {
		return ConsentLeave
	}
	return g.profile.Consent
}

// AskConsent asks a person, as a checkpoint, whether to accept the cookies
// a banner on page asks about: accept is the click on its accept button,
// which an approval answers; a rejection refuses the cookies. reason says
// what the banner is and what its text says. Nothing is pre-approved by
// the answer: the session clicks the button itself, at once. The error is
// non-nil only when ctx ended before a person decided.
func (g *Gate) AskConsent(ctx context.Context, page *snapshot.Snapshot, accept Action, reason string) (Decision, error) {
	r := g.newRequest(page, KindCheckpoint, &accept, reason)
	d, err := g.ask(ctx, r)
	if err != nil {
		return d, fmt.Errorf("ask about the cookie banner: %w", err)
	}
	return d, nil
}
