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

// Gate is one session's checkpoint state: it tells when the live page is a
// checkpoint, asks a human before a state-changing action there, remembers a
// human's approval for exactly one action, and verifies claimed success. Its
// methods are safe for concurrent use.
type Gate struct {
	profile  *Profile
	approver Approver
	opts     Options
	log      *slog.Logger

	mu sync.Mutex
	// pre is an approved request_human_approval waiting for the next action
	// on snapshot pre.snapshotID.
	pre *preApproval
}

type preApproval struct {
	snapshotID string
	decision   Decision
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

// Authorize decides whether a state-changing action (click, fill, select)
// described as action (by role and name, e.g. `click button "Finish
// Cancellation"`) may run on the live snapshot s:
//
//   - s matches no checkpoint: approved, no one asked (Channel "none");
//   - dry run: refused (Channel "dry-run");
//   - an approved request_human_approval on this same snapshot: approved,
//     and that approval is used up;
//   - else the approver asks a human "The system wants to proceed with:
//     {action}. Approve?" with the screenshot and URL, and waits.
//
// With no approver, or none reachable, the action is refused with a Feedback
// that says why. The error is non-nil only when ctx ended before a human
// decided; the request is then withdrawn and the action must not run.
func (g *Gate) Authorize(ctx context.Context, s *snapshot.Snapshot, action string) (Decision, error) {
	pre := g.takePreApproval()
	name, gated := g.Checkpoint(s)
	if !gated {
		return Decision{Approved: true, Channel: ChannelNone}, nil
	}
	if g.opts.DryRun {
		d := Decision{Channel: ChannelDryRun, Feedback: fmt.Sprintf(
			"Dry run: %s was not performed. The page is at checkpoint %q, where this action needs a human's approval; with --dry-run no gated action is ever performed.",
			action, name)}
		g.record(g.newRequest(s, KindCheckpoint, action, checkpointReason(name)), d)
		return d, nil
	}
	if pre != nil && s != nil && pre.snapshotID == s.ID {
		d := pre.decision
		g.log.Info("checkpoint action covered by prior approval", "action", action, "snapshot", s.ID, "channel", d.Channel)
		return d, nil
	}
	return g.ask(ctx, g.newRequest(s, KindCheckpoint, action, checkpointReason(name)))
}

// RequestApproval asks a human about an action the agent names itself
// (request_human_approval). If approved, the approval covers the next
// state-changing action on this same snapshot, and nothing else. The error
// is non-nil only when ctx ended before a human decided.
func (g *Gate) RequestApproval(ctx context.Context, s *snapshot.Snapshot, action, reason string) (Decision, error) {
	g.takePreApproval()
	d, err := g.ask(ctx, g.newRequest(s, KindAgent, action, reason))
	if err == nil && d.Approved && s != nil && s.ID != "" {
		g.mu.Lock()
		g.pre = &preApproval{snapshotID: s.ID, decision: d}
		g.mu.Unlock()
	}
	return d, err
}

func checkpointReason(name string) string {
	return fmt.Sprintf("The page matches checkpoint %q: state-changing actions here need a human's approval.", name)
}

func (g *Gate) takePreApproval() *preApproval {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pre
	g.pre = nil
	return p
}

func (g *Gate) newRequest(s *snapshot.Snapshot, kind Kind, action, reason string) Request {
	r := Request{
		ID:      uuid.NewString(),
		Session: g.opts.Session,
		Kind:    kind,
		Action:  action,
		Reason:  reason,
		Time:    g.opts.Now(),
	}
	if s != nil {
		r.URL, r.Title, r.SnapshotID, r.Screenshot = s.Page.URL, s.Page.Title, s.ID, s.Screenshot
	}
	return r
}

// ask puts r to the approver. Only a human's answer can approve; every
// failure to get one is a refusal.
func (g *Gate) ask(ctx context.Context, r Request) (Decision, error) {
	if g.approver == nil {
		d := Decision{Channel: ChannelNone, Feedback: fmt.Sprintf(
			"Not performed: %s needs a human's approval, and no approver is configured (choose one with --approver).", r.Action)}
		g.record(r, d)
		return d, nil
	}
	g.log.Info("asking for approval", "id", r.ID, "kind", r.Kind, "action", r.Action, "url", r.URL)
	d, err := g.approver.Approve(ctx, r)
	switch {
	case ctx.Err() != nil:
		g.log.Info("approval withdrawn", "id", r.ID, "cause", context.Cause(ctx))
		d = Decision{Channel: ChannelNone, Feedback: "Withdrawn: the call was cancelled before a human decided."}
		g.record(r, d)
		return d, fmt.Errorf("approval %s withdrawn: %w", r.ID, context.Cause(ctx))
	case errors.Is(err, ErrNoApprover):
		d = Decision{Channel: ChannelNone, Feedback: fmt.Sprintf(
			"Not performed: %s needs a human's approval, and no human could be asked (%v).", r.Action, err)}
	case err != nil:
		d = Decision{Channel: ChannelNone, Feedback: fmt.Sprintf(
			"Not performed: %s needs a human's approval, and asking failed: %v.", r.Action, err)}
	case d.Channel == "" || d.Channel == ChannelNone || d.Channel == ChannelDryRun:
		// An approver must say which human channel answered; a decision that
		// does not cannot approve.
		d = Decision{Channel: ChannelNone, Feedback: fmt.Sprintf(
			"Not performed: the approver gave an answer without naming its channel (%s).", strings.TrimSpace(d.Feedback))}
	}
	g.log.Info("approval decided", "id", r.ID, "approved", d.Approved, "channel", d.Channel)
	g.record(r, d)
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

// Verify checks a claimed success on a fresh snapshot s: ok when a success
// indicator holds, otherwise a message naming what was expected. With no
// profile, nothing can be checked: ok, and the message says so.
func (g *Gate) Verify(s *snapshot.Snapshot) (ok bool, message string) {
	if g.profile == nil {
		return true, "Acknowledged, but not verified: no profile is loaded, so nothing was checked on the page."
	}
	if len(g.profile.SuccessIndicators) == 0 {
		return true, fmt.Sprintf("Acknowledged, but not verified: profile %q has no success indicators, so nothing was checked on the page.", g.profile.Name)
	}
	for _, c := range g.profile.SuccessIndicators {
		if c.Match(s) {
			return true, fmt.Sprintf("Success verified on the page: %s.", c.Label())
		}
	}
	var page string
	if s != nil {
		page = fmt.Sprintf(" (page %q at %s)", s.Page.Title, s.Page.URL)
	}
	msg := fmt.Sprintf("Not acknowledged: no success indicator holds on the current page%s. Expected: %s.",
		page, describeAny(g.profile.SuccessIndicators))
	if f := g.Failures(s); len(f) > 0 {
		msg += " Failure indicators present: " + strings.Join(f, "; ") + "."
	}
	return false, msg + " Continue the task, or call complete_task with status failed."
}

// Failures lists the failure indicators that hold on s, by name or
// description.
func (g *Gate) Failures(s *snapshot.Snapshot) []string {
	if g.profile == nil {
		return nil
	}
	var out []string
	for _, c := range g.profile.FailureIndicators {
		if c.Match(s) {
			out = append(out, c.Label())
		}
	}
	return out
}

// Indicator is one success or failure indicator evaluated on a snapshot,
// for the audit log.
type Indicator struct {
	// Kind is "success" or "failure".
	Kind string `json:"kind"`
	// Rule is the indicator's name or description.
	Rule string `json:"rule"`
	// Holds says whether it matched.
	Holds bool `json:"holds"`
}

// Evaluate evaluates every success and failure indicator on s.
func (g *Gate) Evaluate(s *snapshot.Snapshot) []Indicator {
	if g.profile == nil {
		return nil
	}
	var out []Indicator
	for _, c := range g.profile.SuccessIndicators {
		out = append(out, Indicator{Kind: "success", Rule: c.Label(), Holds: c.Match(s)})
	}
	for _, c := range g.profile.FailureIndicators {
		out = append(out, Indicator{Kind: "failure", Rule: c.Label(), Holds: c.Match(s)})
	}
	return out
}
