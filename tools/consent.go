package tools

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Cookie consent. A profile's consent (checkpoint.Consent) says what the
// session does with the cookie banner of a known platform: after each
// action, and before get_snapshot, a document not answered yet is looked
// at; a banner found is rejected (reject preferred: the profile says so),
// accepted, or put to a person as a checkpoint, by clicking its own
// button, and the result says what was done. Each document is answered
// once: a banner that comes back after the answer is the page's business.

// consentState remembers the document whose banner was answered.
type consentState struct {
	// document is the loader id of the last document answered.
	document string
}

// answerConsent answers the current page's consent banner as the profile
// says, and returns the sentence that says what was done; "" when nothing
// was (no banner, a document answered already, or the policy leaves it).
func (s *Session) answerConsent(ctx context.Context, c *call) string {
	policy := s.gate.Consent()
	if policy == checkpoint.ConsentLeave || s.tab.Dialog() != nil {
		return ""
	}
	lctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	w, err := s.tab.PageWhere(lctx)
	if err != nil || w.Document == s.consent.document {
		return ""
	}
	b, err := s.tab.ConsentBanner(lctx)
	if err != nil {
		s.log.Debug("consent: looking for a banner", "err", err)
		return ""
	}
	if b == nil {
		// A banner may come later, as its script loads: the document is
		// looked at again after the next action.
		return ""
	}
	s.consent.document = w.Document
	what := fmt.Sprintf("A %s cookie banner", b.Platform)
	var ctl *browser.ConsentControl
	verb := ""
	switch policy {
	case checkpoint.ConsentReject:
		ctl, verb = b.Reject, "rejected"
	case checkpoint.ConsentAccept:
		ctl, verb = b.Accept, "accepted"
	case checkpoint.ConsentAsk:
		var said string
		ctl, verb, said = s.askConsent(ctx, b)
		if ctl == nil {
			return fmt.Sprintf("%s asked about cookies; %s", what, said)
		}
	}
	if ctl == nil {
		return fmt.Sprintf("%s asked about cookies and has no button to say %s; it was left as it is (profile consent: %s).",
			what, map[string]string{"rejected": "no", "accepted": "yes"}[verb], policy)
	}
	// The server clicks only what the gate would let the agent click
	// unasked: the button is judged as a click at its place is, by what is
	// there and what it activates, on the whole page (a checkpoint page
	// included) and within the write set. A banner that dresses a gated
	// control as "Reject All" is left for a person.
	p, err := s.placed(ctx, func(ctx context.Context) (planned, error) { return s.planPoint(ctx, ctl.X, ctl.Y) })
	var page *snapshot.Snapshot
	if err == nil && s.gate.NeedsPage() {
		page, err = s.page(ctx, false)
	}
	if err != nil {
		return fmt.Sprintf("%s asked about cookies; its button %q could not be checked (%s), so it was left as it is.", what, s.clip(ctl.Name, textLimit), s.clip(err.Error(), textLimit))
	}
	if rule, gated := s.gate.GatedIn(page, p.action, s.writeSet()); gated {
		return fmt.Sprintf("%s asked about cookies; clicking its button %q is a step the profile has a person approve (%s), so it was left for you.", what, s.clip(ctl.Name, textLimit), rule)
	}
	msg, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.ClickAt(ctx, p.at)
	}, "")
	if err != nil {
		return fmt.Sprintf("%s asked about cookies; clicking its button %q failed: %s", what, s.clip(ctl.Name, textLimit), s.clip(err.Error(), textLimit))
	}
	s.log.Info("consent banner answered", "platform", b.Platform, "answer", verb, "button", ctl.Name)
	said := fmt.Sprintf("%s asked about cookies: %s them with its button %q (profile consent: %s).", what, verb, s.clip(ctl.Name, textLimit), policy)
	if after, err := s.tab.ConsentBanner(lctx); err == nil && after != nil && after.Platform == b.Platform {
		said += " The banner is still shown."
	}
	return joinMessage(said, msg)
}

// askConsent puts the banner to a person: approved, its accept button;
// rejected, its reject button. It returns the button to click and the
// verb, or no button and what to tell the agent.
func (s *Session) askConsent(ctx context.Context, b *browser.ConsentBanner) (*browser.ConsentControl, string, string) {
	if b.Accept == nil {
		if b.Reject == nil {
			return nil, "", "it has no button to answer it, so it was left as it is."
		}
		// Nothing to ask: refusing is all the banner lets the session do
		// without a person, and it shares nothing.
		return b.Reject, "rejected", ""
	}
	ctx, end := s.phase(ctx, PhaseGate)
	defer end()
	page, err := s.page(ctx, true)
	if err != nil {
		s.log.Debug("consent: a screenshot for the person", "err", err)
	}
	reason := fmt.Sprintf("A %s cookie banner asks for consent (profile consent: ask). Approve to accept the cookies with its button; reject to refuse them. The banner says: %q",
		b.Platform, s.clip(b.Text, messageLimit))
	accept := checkpoint.Action{Verb: checkpoint.VerbClick, Role: "button", Name: b.Accept.Name}
	d, err := s.gate.AskConsent(ctx, page, accept, reason)
	switch {
	case err != nil:
		return nil, "", "no person answered in time, so it was left as it is."
	case d.Approved:
		return b.Accept, "accepted", ""
	case d.Channel == checkpoint.ChannelNone:
		return nil, "", fmt.Sprintf("no person could be asked (%s), so it was left as it is.", s.clip(d.Feedback, textLimit))
	case b.Reject == nil:
		return nil, "", "the person refused the cookies, but the banner has no button to say no, so it was left as it is."
	}
	return b.Reject, "rejected", ""
}
