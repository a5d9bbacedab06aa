package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/google/uuid"
)

// Options says how a Gate behaves.
type Options struct {
	// DryRun refuses every gated action without asking: a whole flow can be
	// rehearsed without performing the step that matters.
	DryRun bool
	// Session names the agent session in requests and the audit log.
	Session string
	// Audit, when set, receives every approval the gate decides.
	Audit Recorder
	// Logger receives the gate's log; nil discards it.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Recorder keeps a record of the approvals a gate decides, e.g. a session's
// audit log. The gate never lets a failure to record change a decision: it
// logs the error and goes on.
type Recorder interface {
	Approval(Request, Decision) error
}

// WidenRecorder is a Recorder that also keeps a person's widening of the
// write set (Decision.WidenSite) as a record of its own.
type WidenRecorder interface {
	Recorder
	Widened(Request, Decision) error
}

// Gate is one session's checkpoint state: it tells when an action needs a
// human's approval (the page is a checkpoint, or the action is one the
// profile gates anywhere), asks a human, remembers an approval for exactly
// the one action the human was shown, and verifies claimed success. Its
// methods are safe for concurrent use.
type Gate struct {
	profile  *Profile
	approver Approver
	opts     Options
	log      *slog.Logger

	mu sync.Mutex
	// pre is an approved request_human_approval for one concrete action,
	// waiting for the next Authorize.
	pre *preApproval
	// widened are the sites a person allowed the agent to write on for
	// this session, beyond the write set the session starts with.
	widened WriteSet
	// planned are the write sites of the plan a person approved last
	// (ApprovePlan); a later approved plan replaces them.
	planned WriteSet
}

type preApproval struct {
	action   Action
	decision Decision
}

// NewGate returns a gate for profile p (nil: no checkpoints, nothing
// verifiable) asking approver a (nil: every gated action is refused, saying
// that no approver is configured).
func NewGate(p *Profile, a Approver, opts Options) *Gate {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Gate{profile: p, approver: a, opts: opts, log: log}
}

// Profile returns the gate's profile, or nil.
func (g *Gate) Profile() *Profile { return g.profile }

// NeedsPage reports whether the profile has page checkpoints: only then does
// Gated look at the page, so only then must a caller capture the whole page
// before each action.
func (g *Gate) NeedsPage() bool { return g.profile != nil && len(g.profile.Checkpoints) > 0 }

// Checkpoint reports whether s is a checkpoint page, and the first matching
// rule's name (or description). Call it on every snapshot.
func (g *Gate) Checkpoint(s *snapshot.Snapshot) (name string, ok bool) {
	if g.profile == nil || s == nil {
		return "", false
	}
	for _, c := range g.profile.Checkpoints {
		if c.Match(s) {
			return c.Label(), true
		}
	}
	return "", false
}

// Gated reports whether action a needs a human's approval, and the rule that
// says so: page is a checkpoint, or a matches one of the profile's
// gated_actions. page must be the page as it is when the action runs, all of
// it (not the viewport only), with any open JavaScript dialog.
func (g *Gate) Gated(page *snapshot.Snapshot, a Action) (rule string, ok bool) {
	rule, _, ok = g.gated(page, a)
	return rule, ok
}

// gated is Gated, also saying why a person is asked.
func (g *Gate) gated(page *snapshot.Snapshot, a Action) (rule, reason string, ok bool) {
	if name, ok := g.Checkpoint(page); ok {
		return name, fmt.Sprintf("The page matches checkpoint %q: state-changing actions here need a human's approval.", name), true
	}
	if g.profile == nil {
		return "", "", false
	}
	for _, r := range g.profile.GatedActions {
		if r.Match(a) {
			return r.Label(), fmt.Sprintf("The action matches rule %q of profile %q: such actions need a human's approval.", r.Label(), g.profile.Name), true
		}
	}
	return "", "", false
}

// Authorize decides whether the state-changing action a may run on page (a
// fresh capture of the whole page, taken when the action is about to run):
//
//   - not gated (see Gated): approved, no one asked (Channel "none");
//   - dry run: refused (Channel "dry-run");
//   - an approved request_human_approval for the Same action: approved
//     without asking again;
//   - else the approver asks a human "The system wants to proceed with:
//     {action}. Approve?" showing the action, the page and the screenshot
//     with the target marked, and waits.
//
// Every call uses up a pending pre-approval, whether it covered a or not: an
// approval covers at most the one next action. With no approver, or none
// reachable, the action is refused with a Feedback that says why. The error
// is non-nil only when ctx ended before a human decided; the request is then
// withdrawn and the action must not run.
func (g *Gate) Authorize(ctx context.Context, page *snapshot.Snapshot, a Action) (Decision, error) {
	return g.authorize(ctx, page, a, nil)
}

// AuthorizeIn is Authorize for a session whose write set is w: with a
// profile, an action that writes (Writes) in a document of a site outside
// w and the sites a person has added (Widen) asks a person too, the prompt
// naming the site, and the person may allow that site for the rest of the
// session (Decision.WidenSite). Without a profile (--profile none) nothing
// is gated, this rule included.
func (g *Gate) AuthorizeIn(ctx context.Context, page *snapshot.Snapshot, a Action, w WriteSet) (Decision, error) {
	return g.authorize(ctx, page, a, &w)
}

// GatedIn is Gated for a session whose write set is w (see AuthorizeIn).
func (g *Gate) GatedIn(page *snapshot.Snapshot, a Action, w WriteSet) (rule string, ok bool) {
	if rule, ok := g.Gated(page, a); ok {
		return rule, ok
	}
	if site, _, ok := g.writesOutside(a, &w); ok {
		return "write outside " + site, true
	}
	return "", false
}

// Widen returns w with the sites a person has allowed for this session:
// one by one, and by approving a plan.
func (g *Gate) Widen(w WriteSet) WriteSet {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range g.widened.sites {
		w = w.Add(s)
	}
	for _, s := range g.planned.sites {
		w = w.Add(s)
	}
	return w
}

// writesOutside applies the write set's rule: only with a profile, and
// with the sites a person added.
func (g *Gate) writesOutside(a Action, w *WriteSet) (site string, sent, ok bool) {
	if w == nil || g.profile == nil {
		return "", false, false
	}
	return g.Widen(*w).writesOutside(a)
}

// writing says what a writes in a person's words: "typing", "submitting a
// form".
func writing(a Action) string {
	switch a.Verb {
	case VerbFill:
		return "typing"
	case VerbSelect:
		return "selecting an option"
	case VerbUpload:
		return "uploading files"
	case VerbDrag:
		return "dragging"
	case VerbPress:
		if a.Field {
			return "pressing keys into a field"
		}
	case VerbClick:
		if a.Dialog != nil && !a.Submits {
			return "typing into a dialog"
		}
	}
	return "submitting a form"
}

func (g *Gate) authorize(ctx context.Context, page *snapshot.Snapshot, a Action, w *WriteSet) (Decision, error) {
	pre := g.takePreApproval()
	_, reason, gated := g.gated(page, a)
	site, sent, outside := g.writesOutside(a, w)
	if outside {
		doing := writing(a) + " on"
		if sent {
			doing = "submitting a form to"
		}
		why := fmt.Sprintf("This is %s %s, a site outside this task's write set (%s): other sites are read-only for the agent unless a person allows it, since pages can tell an agent to type what it knows elsewhere.",
			doing, site, g.Widen(*w))
		reason = strings.TrimSpace(reason + " " + why)
		gated = true
	}
	if !gated {
		return Decision{Approved: true, Channel: ChannelNone}, nil
	}
	if g.opts.DryRun {
		r := g.newRequest(page, KindCheckpoint, &a, reason)
		d := Decision{Channel: ChannelDryRun, RequestID: r.ID, Feedback: fmt.Sprintf(
			"Dry run: %s was not performed. %s With --dry-run no gated action is ever performed.",
			OneLine(a.String()), reason)}
		g.record(r, d)
		return d, nil
	}
	if pre != nil && pre.action.Same(a) {
		d := pre.decision
		g.log.Info("gated action covered by prior approval", "action", a.String(), "request", d.RequestID, "channel", d.Channel)
		return d, nil
	}
	if pre != nil {
		g.log.Info("prior approval does not cover this action", "approved", pre.action.String(), "action", a.String())
	}
	r := g.newRequest(page, KindCheckpoint, &a, reason)
	if outside {
		if _, err := Site(site); err == nil {
			// Only a site can be allowed; a document with none is asked
			// about every time.
			r.Site = site
		}
	}
	d, err := g.ask(ctx, r)
	if err == nil && d.Approved && d.WidenSite != "" {
		g.widen(r, d)
	}
	return d, err
}

// scriptReason is why a person is asked about every script.
const scriptReason = "The agent wants to run its own JavaScript in this page. A script can do anything a click, a key or a form can here, with this page's cookies and logins, and send what the page holds anywhere: read it whole before approving."

// AuthorizeScript asks a person about a script the agent wants to run
// in the page (a's Verb is VerbScript), always: whatever the profile
// (--profile none too, since the capability that lists the tool was named
// for it), and no approval the agent asked for ahead (request_human_approval)
// covers it, nor can the model give one. Under dry run it is refused. An
// approval covers a, that script in that document, once: the caller
// checks the place again before the script runs.
func (g *Gate) AuthorizeScript(ctx context.Context, page *snapshot.Snapshot, a Action) (Decision, error) {
	g.takePreApproval()
	r := g.newRequest(page, KindCheckpoint, &a, scriptReason)
	if g.opts.DryRun {
		d := Decision{Channel: ChannelDryRun, RequestID: r.ID, Feedback: "Dry run: the script was not run. With --dry-run no gated action is ever performed."}
		g.record(r, d)
		return d, nil
	}
	return g.ask(ctx, r)
}

// widen adds the site a person allowed to the session's write set, and
// records that decision of its own. Only the site the request named can be
// allowed: an approver's answer naming another widens nothing.
func (g *Gate) widen(r Request, d Decision) {
	if r.Site == "" || d.WidenSite != r.Site {
		g.log.Warn("write set not widened: the answer names another site than the request", "id", r.ID, "site", OneLine(r.Site), "widen", OneLine(d.WidenSite))
		return
	}
	g.mu.Lock()
	g.widened = g.widened.Add(r.Site)
	g.mu.Unlock()
	g.log.Info("write set widened by a person", "id", r.ID, "site", r.Site, "channel", d.Channel)
	if wr, ok := g.opts.Audit.(WidenRecorder); ok {
		if err := wr.Widened(r, d); err != nil {
			g.log.Warn("audit: widening not logged", "id", r.ID, "err", err)
		}
	}
}

// RequestApproval asks a human about an action the agent names itself
// (request_human_approval), on page. With a concrete action a, the human is
// shown that action, and an approval covers it, and only it, if it is the
// next action Authorize sees. With a nil, the human is shown the agent's
// words, marked as the agent's, and even an approval covers nothing: the
// Decision's Note tells the agent so. The error is non-nil only when ctx
// ended before a human decided.
func (g *Gate) RequestApproval(ctx context.Context, page *snapshot.Snapshot, a *Action, words, reason string) (Decision, error) {
	g.takePreApproval()
	r := g.newRequest(page, KindAgent, a, reason)
	r.Words = words
	if a == nil {
		r.Action = words
	}
	d, err := g.ask(ctx, r)
	if err != nil || !d.Approved {
		return d, err
	}
	if a == nil {
		d.Note = "Approving your words alone covers no action, so nothing is pre-approved: name the ref (and value) to clear a concrete action."
		return d, nil
	}
	g.mu.Lock()
	g.pre = &preApproval{action: *a, decision: d}
	g.mu.Unlock()
	return d, nil
}

// Covers reports whether a person's approval of the agent's request is
// waiting for exactly a, so that Authorize will let a run without asking.
func (g *Gate) Covers(a Action) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pre != nil && g.pre.action.Same(a)
}

// UseUp drops a pending approval of the agent's request: the agent's next
// tool call uses an approval up, whatever the tool, so that nothing the page
// or the agent does in between (a scroll, a tab switch, a wait) can leave it
// standing for a later action. The session calls it after every tool call
// but request_human_approval; the action an approval covers takes it
// (Authorize) before that.
func (g *Gate) UseUp() {
	if p := g.takePreApproval(); p != nil {
		g.log.Info("prior approval used up by another call", "approved", p.action.String(), "request", p.decision.RequestID)
	}
}

func (g *Gate) takePreApproval() *preApproval {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pre
	g.pre = nil
	return p
}

// newRequest makes the request a person is shown about action a (nil: the
// agent's words only) on page.
func (g *Gate) newRequest(page *snapshot.Snapshot, kind Kind, a *Action, reason string) Request {
	r := Request{
		ID:      uuid.NewString(),
		Session: g.opts.Session,
		Kind:    kind,
		Reason:  reason,
		Time:    g.opts.Now(),
	}
	if a != nil {
		c := *a
		r.Concrete = &c
		r.Action = c.String()
	}
	if page != nil {
		r.URL, r.Title, r.SnapshotID, r.Screenshot = page.Page.URL, page.Page.Title, page.ID, page.Screenshot
		if a != nil && a.Box != nil && page.Screenshot != nil {
			r.Screenshot = MarkTarget(page.Screenshot, *a.Box, page.Viewport)
		}
	}
	return r
}

// ask puts r to the approver. Only a human's answer can approve; every
// failure to get one is a refusal. The decision names r.
func (g *Gate) ask(ctx context.Context, r Request) (Decision, error) {
	d, err := g.decide(ctx, r)
	d.RequestID = r.ID
	g.record(r, d)
	return d, err
}

func (g *Gate) decide(ctx context.Context, r Request) (Decision, error) {
	action := OneLine(r.Action)
	if g.approver == nil {
		return Decision{Channel: ChannelNone, Feedback: fmt.Sprintf(
			"Not performed: %s needs a human's approval, and no approver is configured (choose one with --approver).", action)}, nil
	}
	g.log.Info("asking for approval", "id", r.ID, "kind", r.Kind, "action", action, "url", OneLine(r.URL))
	d, err := g.approver.Approve(ctx, r)
	switch {
	case ctx.Err() != nil:
		g.log.Info("approval withdrawn", "id", r.ID, "cause", context.Cause(ctx))
		return Decision{Channel: ChannelNone, Feedback: "Withdrawn: the call was cancelled before a human decided."},
			fmt.Errorf("approval %s withdrawn: %w", r.ID, context.Cause(ctx))
	case errors.Is(err, ErrNoApprover):
		d = Decision{Channel: ChannelNone, Feedback: fmt.Sprintf(
			"Not performed: %s needs a human's approval, and no human could be asked (%v).", action, err)}
	case err != nil:
		d = Decision{Channel: ChannelNone, Feedback: fmt.Sprintf(
			"Not performed: %s needs a human's approval, and asking failed: %v.", action, err)}
	case d.Channel == "" || d.Channel == ChannelNone || d.Channel == ChannelDryRun:
		// An approver must say which human channel answered; a decision that
		// does not cannot approve.
		d = Decision{Channel: ChannelNone, Feedback: fmt.Sprintf(
			"Not performed: the approver gave an answer without naming its channel (%s).", strings.TrimSpace(d.Feedback))}
	}
	g.log.Info("approval decided", "id", r.ID, "approved", d.Approved, "channel", d.Channel)
	return d, nil
}

func (g *Gate) record(r Request, d Decision) {
	if g.opts.Audit == nil {
		return
	}
	if err := g.opts.Audit.Approval(r, d); err != nil {
		g.log.Warn("audit: approval not logged", "id", r.ID, "err", err)
	}
}
