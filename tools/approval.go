package tools

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// SessionOption sets up one session.
type SessionOption func(*Session)

// WithGate puts the session's state-changing actions behind g and checks
// complete_task with it. Without one, no page is a checkpoint, nothing can be
// approved and success cannot be verified.
func WithGate(g *checkpoint.Gate) SessionOption {
	return func(s *Session) { s.gate = g }
}

// WithAudit writes every tool call and completion of the session to a.
func WithAudit(a *audit.Log) SessionOption {
	return func(s *Session) { s.audit = a }
}

// gated plans an action and asks the gate about it (docs/architecture.md,
// "One tool call"). When a person was asked, which may have taken long, it
// plans again and goes on only if that is still the very action the person
// approved. The approval that covers it is c's.
func (s *Session) gated(ctx context.Context, c *call, plan func(context.Context) (planned, error)) (planned, error) {
	p, _, err := s.gatedAsked(ctx, c, plan)
	return p, err
}

// gatedAsked is gated, also reporting whether a person decided.
func (s *Session) gatedAsked(ctx context.Context, c *call, plan func(context.Context) (planned, error)) (planned, bool, error) {
	p, err := s.placed(ctx, plan)
	if err != nil {
		return p, false, err
	}
	asked, err := s.authorize(ctx, c, p.action)
	if err != nil || !asked {
		return p, asked, err
	}
	again, err := s.placed(ctx, plan)
	if err != nil {
		return again, true, err
	}
	if !again.action.Same(p.action) {
		if again.action.Where != p.action.Where {
			return again, true, fail(toolapi.RefInvalid, "The page changed while a human was asked: they approved %s on %s, but %s. Nothing was done; check the new snapshot.",
				s.clip(p.action.String(), messageLimit), s.clip(p.action.Where.URL, urlLimit), placeChange(p.action.Where, again.action.Where))
		}
		return again, true, fail(toolapi.RefInvalid, "The page changed while a human was asked: they approved %s, but it is now %s. Nothing was done; check the new snapshot.",
			s.clip(p.action.String(), messageLimit), s.clip(again.action.String(), messageLimit))
	}
	return again, true, nil
}

// placed plans an action and says where it acts (checkpoint.Action.Where):
// the page, frame and document of its element, or of the current page for
// an action on no element (a key press to the page, a navigation, a
// JavaScript dialog). An approval holds only there, since node ids repeat
// across tabs and documents. Every gated action, and every action
// request_human_approval names, is placed here, whatever tool plans it.
func (s *Session) placed(ctx context.Context, plan func(context.Context) (planned, error)) (planned, error) {
	p, err := plan(ctx)
	if err != nil {
		return p, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	var w browser.Where
	if p.action.Node != 0 {
		w, err = s.tab.Where(ctx, p.action.Node)
	} else {
		w, err = s.tab.PageWhere(ctx)
	}
	if err != nil {
		return p, fmt.Errorf("%s: find the page and document it acts in: %w", s.clip(p.action.String(), messageLimit), err)
	}
	p.action.Where = checkpoint.Where{Target: w.Target, Frame: w.Frame, Document: w.Document, URL: s.secrets.redact(w.URL)}
	return p, nil
}

// placeChange says how the place of an action changed: another tab, frame
// or document (a navigation or a reload), or another URL.
func placeChange(was, now checkpoint.Where) string {
	switch {
	case was.Target != now.Target:
		return "another tab is current now"
	case was.Frame != now.Frame:
		return "the element is in another frame now"
	case was.Document != now.Document:
		return "the page has loaded a new document since (a navigation or a reload)"
	}
	return "the page is at another URL now"
}

// authorize asks the gate whether the concrete action a may run on the page
// as it is now. The gate judges the whole page, freshly captured, when its
// profile has page checkpoints; a person, when one must be asked, also sees
// a screenshot. It reports whether a decision came from a person, so that
// the caller looks at the page again before acting. An approval is c's.
func (s *Session) authorize(ctx context.Context, c *call, a checkpoint.Action) (asked bool, err error) {
	ctx, end := s.phase(ctx, PhaseGate)
	defer end()
	c.submits, c.submitsTo = a.Submits, a.SubmitsTo
	var page *snapshot.Snapshot
	if s.gate.NeedsPage() {
		if page, err = s.page(ctx, false); err != nil {
			// Without the page nothing says it is not a checkpoint.
			return false, fail(toolapi.ActionFailed, "%s was not performed: the page could not be checked for a checkpoint (%v). Try again.", s.clip(a.String(), messageLimit), err)
		}
	}
	// A person will be asked, and must see the page, unless the agent's
	// approved request covers this very action.
	w := s.writeSet()
	if _, ok := s.gate.GatedIn(page, a, w); ok && !s.gate.Covers(a) {
		page = s.shown(ctx, page)
	}
	d, err := s.gate.AuthorizeIn(ctx, page, a, w)
	if err != nil {
		return true, fail(toolapi.HumanRejected, "The approval request was withdrawn before a human answered (%v); %s was not performed.", err, s.clip(a.String(), messageLimit))
	}
	if !d.Approved {
		return true, fail(toolapi.HumanRejected, "%s", d.Message())
	}
	c.approval = d.RequestID
	return d.Channel != checkpoint.ChannelNone, nil
}

// shown returns page (captured now when nil) with a screenshot, for a
// person to see what they are asked about. A page that cannot be captured
// or photographed is shown as far as it can be.
func (s *Session) shown(ctx context.Context, page *snapshot.Snapshot) *snapshot.Snapshot {
	if page == nil {
		p, err := s.page(ctx, true)
		if err != nil {
			s.log.Warn("no page to show the person", "err", err)
			return &snapshot.Snapshot{Page: snapshot.Page{URL: s.secrets.redact(s.tab.URL())}}
		}
		return p
	}
	ctx, end := s.phase(ctx, PhaseCapture)
	defer end()
	ctx, cancel := context.WithTimeout(ctx, s.config.SnapshotTimeout)
	defer cancel()
	shot, err := s.tab.Screenshot(ctx, s.config.Capture)
	if err != nil {
		s.log.Info("no screenshot for the person", "err", err)
		return page
	}
	page.Screenshot = &snapshot.Screenshot{MIMEType: shot.MIMEType, Width: shot.Width, Height: shot.Height, Data: shot.Data}
	return page
}

// checkpointNote marks a snapshot of a checkpoint page, so the agent knows
// before it acts that a human will be asked.
func (s *Session) checkpointNote(snap *snapshot.Snapshot) {
	if name, ok := s.gate.Checkpoint(snap); ok {
		snap.Notes = append(snap.Notes, fmt.Sprintf("Checkpoint %q: a human must approve every click, fill, select, key press, drag or upload on this page.", name))
		s.log.Info("checkpoint", "rule", name, "snapshot", snap.ID, "url", snap.Page.URL)
	}
}
