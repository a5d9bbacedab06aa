package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// problem is why an action did not happen: a code for the agent and a
// message that says what to do.
type problem struct {
	code toolapi.Code
	msg  string
}

func (p *problem) Error() string { return p.msg }

func fail(c toolapi.Code, format string, a ...any) *problem {
	return &problem{code: c, msg: fmt.Sprintf(format, a...)}
}

// step is one action's own work: it checks its arguments and acts, and
// returns what the agent should hear on success.
type step func(ctx context.Context) (message string, err error)

// act runs the action of c with the result contract: a browser that died is
// brought back first, every failure becomes a code and a message, and the
// result always carries a fresh snapshot whose refs replace the live table.
func (s *Session) act(ctx context.Context, c *call, do step) Output {
	if msg := s.recover(ctx); msg != "" {
		return s.failed(ctx, c, toolapi.ActionFailed, msg)
	}
	// Refusals from before the action (a page's own timers) were logged;
	// only the action's own are its result.
	s.tab.TakeBlocked(ctx)
	s.downloadsReady(ctx)
	msg, err := do(ctx)
	if err == nil {
		msg = joinMessage(msg, s.answerConsent(ctx, c)) // consent.go
	}
	// What the action downloaded is said whether or not it succeeded.
	dl := s.downloadsNote(ctx)
	if b := s.tab.TakeBlocked(ctx); len(b) > 0 {
		err = blockedProblem(b)
	}
	if err != nil {
		p := asProblem(err)
		if m := s.recover(ctx); m != "" {
			p = fail(toolapi.ActionFailed, "%s", m)
		}
		return s.failed(ctx, c, p.code, joinMessage(p.msg, dl))
	}
	snap, serr := s.snapshot(ctx, c, true)
	r := toolapi.ActionResult{Success: true, Snapshot: snap, Message: joinMessage(msg, dl)}
	if serr != nil && snap != nil {
		r.Message = strings.TrimSpace(msg + " " + serr.Error())
	}
	return s.output(r)
}

// blockedProblem is the failure of an action that made the page load a
// document the URL policy refused.
func blockedProblem(b []browser.Blocked) *problem {
	var reasons []string
	for _, x := range b {
		r := fmt.Sprintf("%s (%s)", x.Reason, clip(x.URL, urlLimit))
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	return fail(toolapi.ActionFailed, "blocked by policy: %s. The page stayed where it was; that address may not be opened from this session.", strings.Join(reasons, "; "))
}

// asProblem says what an error means to the agent: its code and message.
func asProblem(err error) *problem {
	var p *problem
	switch {
	case errors.As(err, &p):
		return p
	case errors.Is(err, context.DeadlineExceeded):
		return fail(toolapi.Timeout, "%v. The page may be busy; take a snapshot and try again.", err)
	case errors.Is(err, browser.ErrDetached):
		return fail(toolapi.RefInvalid, "The element is no longer on the page. Use a ref from the new snapshot.")
	}
	return fail(toolapi.ActionFailed, "%v", err)
}

// target looks a ref up in the live table.
func (s *Session) target(ref string) (snapshot.Target, error) {
	if !refPattern.MatchString(ref) {
		return snapshot.Target{}, fail(toolapi.RefInvalid, "%q is not a ref: refs look like @e7. Use a ref from the latest snapshot.", ref)
	}
	t, ok := s.live[ref]
	if !ok {
		return snapshot.Target{}, fail(toolapi.RefInvalid, "%s is not in the latest snapshot: it is gone, or from an older one. Use a ref from the latest snapshot (a delta keeps every ref it does not list as gone).", ref)
	}
	if why := s.delta.unseen(t); why != "" {
		return snapshot.Target{}, fail(toolapi.RefInvalid, "%s. Nothing was done; check the new snapshot.", s.clip(why, messageLimit))
	}
	return t, nil
}

// check looks at the node a ref points to, in one round trip, and refuses an
// element the agent did not see or cannot act on.
func (s *Session) check(ctx context.Context, t snapshot.Target, needBox bool) (*browser.Inspection, error) {
	return s.checkFor(ctx, t, needBox, false)
}

// checkFor is check; with keys, the element is to take keys, which reach it
// by the focus rather than at a point: what the page draws over a control
// a person cannot see (a stand-in, browser.Inspection.StandIn) does not
// stop them.
func (s *Session) checkFor(ctx context.Context, t snapshot.Target, needBox, keys bool) (*browser.Inspection, error) {
	ctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	in, err := s.tab.Inspect(ctx, t.BackendNodeID, needBox)
	if errors.Is(err, browser.ErrDetached) {
		return nil, fail(toolapi.RefInvalid, "%s (%s %q) is no longer on the page. Use a ref from the new snapshot.", t.Ref, t.Role, t.Name)
	}
	if err != nil {
		return nil, err
	}
	if t.DocumentURL != "" && in.DocumentURL != t.DocumentURL {
		return nil, fail(toolapi.RefInvalid, "%s belonged to %s, but the page is now %s. Use a ref from the new snapshot.", t.Ref, s.clip(t.DocumentURL, urlLimit), s.clip(in.DocumentURL, urlLimit))
	}
	if needBox && !in.Visible && (in.AXRole == "none" || in.AXRole == "") {
		// Hidden since the snapshot: the tree ignores it now, so its role
		// and name are gone too; hidden is what changed.
		return nil, fail(toolapi.ElementNotVisible, "%s (%s %q) is hidden now: it has no visible box to act on.", t.Ref, t.Role, t.Name)
	}
	if in.AXRole != t.AXRole || in.AXName != t.AXName {
		return nil, fail(toolapi.RefInvalid, "%s changed since the snapshot: it was %s %q and is now %s %q. Nothing was done; check the new snapshot.",
			t.Ref, t.AXRole, s.clip(t.AXName, textLimit), in.AXRole, s.clip(in.AXName, textLimit))
	}
	if in.Disabled {
		return nil, fail(toolapi.ElementDisabled, "%s (%s %q) is disabled.", t.Ref, t.Role, t.Name)
	}
	if needBox && !in.Visible && in.Tag == "option" {
		// A closed select lists its options in the snapshot, but they
		// have no box until the select opens: choosing one is a select.
		return nil, fail(toolapi.ElementNotVisible, "%s (option %q) is an option of a closed select, which has no box to click: use browser_select on the select with value %q.", t.Ref, t.Name, t.Name)
	}
	if needBox && !in.Visible {
		return nil, fail(toolapi.ElementNotVisible, "%s (%s %q) has no visible box to act on: it is hidden or has no size.", t.Ref, t.Role, t.Name)
	}
	if needBox && in.Covered != "" && !(keys && in.StandIn) {
		return nil, fail(toolapi.ElementObscured, "%s (%s %q) is covered by %s. %s", t.Ref, t.Role, t.Name, s.clip(in.Covered, textLimit), obscuredAdvice(t, in))
	}
	return in, nil
}

// obscuredAdvice says what to do about an element something covers: for a
// control a person cannot see, what covers it is what the page draws in
// its place, and the way in is that stand-in or the keyboard; anything
// else covered waits for what covers it to go.
func obscuredAdvice(t snapshot.Target, in *browser.Inspection) string {
	if !in.StandIn {
		return "Deal with that first (close it or act inside it)."
	}
	const drawn = "It is transparent or too small to see: what covers it is what the page draws in its place, so nothing needs closing."
	key := ""
	switch t.Role {
	case "checkbox", "radio", "switch", "button", "menuitemcheckbox", "menuitemradio":
		key = "Space"
	case "link":
		key = "Enter"
	}
	if key == "" {
		return drawn + " Click that stand-in if the snapshot lists it."
	}
	return fmt.Sprintf("%s Press %s on it instead (browser_press_key with ref %s and key %q), or click that stand-in if the snapshot lists it.", drawn, key, t.Ref, key)
}

// settle runs the input within limit and waits for what it started; the
// message says what happened, alerts included.
func (s *Session) settle(ctx context.Context, c *call, limit time.Duration, input func(context.Context) error, done string) (string, error) {
	return s.wait(ctx, c, limit, input, done, false)
}

// settleScroll is settle for a scroll, which moves the page a frame after
// its input: the early capture waits for that move.
func (s *Session) settleScroll(ctx context.Context, c *call, limit time.Duration, input func(context.Context) error, done string) (string, error) {
	return s.wait(ctx, c, limit, input, done, true)
}

// wait runs the input within limit and waits for what it started: a
// navigation within the navigation timeout, a page in place within limit.
// The result's capture is taken while the page settles in place and kept if
// nothing changed meanwhile (after the first change, for a scroll), in c.
func (s *Session) wait(ctx context.Context, c *call, limit time.Duration, input func(context.Context) error, done string, scroll bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit+s.config.NavigationTimeout)
	defer cancel()
	// sent is when the input returned, in Unix nanoseconds: the settle
	// wait is what follows (Outcome.Waited counts the input too).
	var sent atomic.Int64
	guarded := func(ctx context.Context) error {
		// Whatever the call waited for (an approval, the page), it acts
		// only if the agent still has the browser (takeover.go).
		if err := s.mayAct(ctx); err != nil {
			return err
		}
		c.sent = true
		err := input(ctx)
		sent.Store(time.Now().UnixNano())
		return err
	}
	if check := s.formCheck(c); check != nil {
		defer s.tab.WatchDocuments(check)()
	}
	sctx, end := s.phase(ctx, PhaseSettle)
	out, err := s.tab.Settle(sctx, guarded, browser.Wait{
		Quiet: s.config.Quiet, Limit: limit, Navigation: s.config.NavigationTimeout,
		Capture: &s.config.Capture, FirstChange: scroll})
	if at := sent.Load(); s.tel != nil && at != 0 {
		s.tel.Settled(sctx, c.tool, time.Since(time.Unix(0, at)))
	}
	end()
	// A capture taken while the page settled, and still true at the end of
	// the quiet window, serves as the result's snapshot.
	c.settled = out.Capture
	msg := done + s.pagesNote(out) + s.alertsNote(out.Alerts)
	if out.Dialog != nil {
		msg += fmt.Sprintf(" The page opened a %s dialog: %q. It is in the snapshot as an alertdialog; answer it with its buttons.", out.Dialog.Type, s.clip(out.Dialog.Message, textLimit))
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", fail(toolapi.Timeout, "%s But %v. The page may be busy or unreachable; the snapshot shows where it is.", strings.TrimSpace(msg), err)
		}
		return "", err
	}
	if out.Loading {
		msg += " " + stillLoading
	}
	return strings.TrimSpace(msg), nil
}

// alertsNote says which alerts the page showed (each was accepted), within
// bounds whatever the page raises: a page may raise alerts without end, each
// as long as it likes.
func (s *Session) alertsNote(alerts []string) string {
	switch len(alerts) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" The page showed an alert, which was accepted: %q.", s.clip(alerts[0], textLimit))
	}
	const shown = 3
	var b strings.Builder
	fmt.Fprintf(&b, " The page showed %d alerts, which were accepted: ", len(alerts))
	for i, a := range alerts[:min(len(alerts), shown)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s.clip(a, textLimit))
	}
	if len(alerts) > shown {
		fmt.Fprintf(&b, " and %d more", len(alerts)-shown)
	}
	b.WriteString(".")
	return b.String()
}

// Bounds, in characters, on what a page controls in a message to the agent
// (every output stays within the token budget, whatever the page holds):
// a dialog's text, an element's name and the like; a URL; an action as a
// person is asked about it; and a whole message, the last line of defence.
const (
	textLimit    = 200
	urlLimit     = 300
	messageLimit = 600
	resultLimit  = 4000
)

// clip is text from the page (or shaped by it) as a message may quote it:
// the session's secrets redacted first, so that a cut never leaves part of a
// secret behind, then cut to at most n characters (see clip).
func (s *Session) clip(text string, n int) string {
	return clip(s.secrets.redact(text), n)
}

// clip cuts text to at most n characters, saying with "…" and a count how
// much was left off.
func clip(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	r := []rune(text)
	return fmt.Sprintf("%s… (%d more characters)", string(r[:n]), len(r)-n)
}

// stillLoading is what the agent hears when a new page is there but its
// images or scripts still load.
const stillLoading = "The page is still loading (images or scripts); what is shown may change."

// pagesNote says that the action opened a page or closed the current one,
// and which page the session is on now.
func (s *Session) pagesNote(out browser.Outcome) string {
	switch {
	case out.Opened != nil:
		return fmt.Sprintf(" Opened a new tab: %q %s; %s.", s.clip(out.Opened.Title, textLimit), s.clip(out.Opened.URL, urlLimit), tabCount(len(s.tab.Pages())))
	case out.Closed != nil:
		cur := s.tab.Current()
		return fmt.Sprintf(" The page %s closed; back on %q %s; %s.", s.clip(out.Closed.URL, urlLimit), s.clip(cur.Title, textLimit), s.clip(cur.URL, urlLimit), tabCount(len(s.tab.Pages())))
	}
	return ""
}

// tabCount says how many tabs the session has.
func tabCount(n int) string {
	if n == 1 {
		return "1 tab"
	}
	return fmt.Sprintf("%d tabs", n)
}

// answerDialog answers the open JavaScript dialog with the synthetic button
// p is planned on, OK or Cancel; OK sends the text the agent filled into a
// prompt.
func (s *Session) answerDialog(ctx context.Context, c *call, p planned) (string, error) {
	accept := p.t.Dialog == "accept"
	text, v := s.prompt.text, s.prompt
	s.prompt = typed{}
	if v.code {
		// A one-time code is the one current as OK sends it.
		if err := s.secrets.fresh(ctx, v.shown); err != nil {
			return "", err
		}
		now, err := s.secrets.value(v.shown, false)
		if err != nil {
			return "", err
		}
		text = now.text
	}
	if _, err := s.settleDialog(ctx, c, accept, text); err != nil {
		return "", err
	}
	verb := "Accepted"
	if !accept {
		verb = "Dismissed"
	}
	return fmt.Sprintf("%s the %s dialog %q.", verb, p.action.Dialog.Type, s.clip(p.action.Dialog.Message, textLimit)), nil
}

// settleDialog answers the open dialog and waits for what that started (a
// navigation, for beforeunload).
func (s *Session) settleDialog(ctx context.Context, c *call, accept bool, text string) (string, error) {
	return s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.HandleDialog(ctx, accept, text)
	}, "")
}

// article puts "a" or "an" before a role.
func article(role string) string {
	if role != "" && strings.ContainsRune("aeiou", rune(role[0])) {
		return "an " + role
	}
	return "a " + role
}
