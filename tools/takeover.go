package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// ErrNotTaken reports a person's input while the person does not have the
// browser: they must take it over first.
var ErrNotTaken = errors.New("take over the browser first")

// maxHandBackNote bounds the note a person leaves the agent.
const maxHandBackNote = 500

// errPersonHasBrowser is the cause the context of the agent's call in
// flight ends with when a person takes the browser over.
var errPersonHasBrowser = errors.New("a person took the browser over")

// stopWait bounds how long TakeOver waits for the agent's call in flight to
// stop once its context is cancelled: every step of a call ends with its
// context, so this is only a backstop against one that does not.
const stopWait = 30 * time.Second

// agentCall is the agent's call in flight, as a takeover stops it.
type agentCall struct {
	stop context.CancelCauseFunc
	// done is closed when the call no longer touches the browser.
	done chan struct{}
}

// takeover is whether a person has the session's browser. A person takes it
// and hands it back from the console, on goroutines of their own, while the
// agent's calls run on theirs: it has its own lock.
type takeover struct {
	mu    sync.Mutex
	taken bool
	// back is set when a person handed the browser back and the agent has
	// not heard of it yet; note is what they left it.
	back bool
	note string
	// viewers are the live views watching the page; one screencast feeds
	// them all, since a page has one. last is its newest frame, which a
	// new viewer gets at once: a still page sends none.
	viewers  map[chan browser.Frame]struct{}
	stopCast context.CancelFunc
	last     *browser.Frame
	// people counts the viewers that are a person's live view, not the
	// session's recording: while there is one, the screencast sends every
	// frame; else it keeps to the recording's pace (record.go).
	people int
	pace   time.Duration
	// cast counts the screencasts started, so that one that ends late
	// leaves the viewers of the next alone.
	cast uint64
	// passwords are the newest values of the fields that were password
	// fields while the person had the browser, by field
	// (browser.PasswordField.Key): learnt as secrets when they hand back.
	passwords map[string]string
	// running is the agent's call in flight that a takeover stops; nil
	// between calls, and for request_human_approval, which touches
	// nothing once it asks and which a hand-back answers.
	running *agentCall
}

// maxPersonPasswords bounds the fields whose values a takeover keeps.
const maxPersonPasswords = 256

// handBackRead bounds the last reading of the password fields at a
// hand-back, which has no caller's deadline.
const handBackRead = 10 * time.Second

// TakeOver gives the browser to a person: until HandBack, the agent's calls
// answer that a person has it, and PersonInput reaches the page. The
// agent's call in flight is stopped, wherever it is (waiting for the
// action rate, an approval or the page, or acting), and TakeOver returns
// once it no longer touches the browser, so that the person starts from a
// browser nobody else drives. Only the console, under the session's
// capability, calls it; nothing the agent or a page sends does.
func (s *Session) TakeOver() {
	s.wheel.mu.Lock()
	s.wheel.taken = true
	a := s.wheel.running
	s.wheel.mu.Unlock()
	s.log.Info("a person took over the browser")
	if a != nil {
		a.stop(errPersonHasBrowser)
		select {
		case <-a.done:
		case <-time.After(stopWait):
			s.log.Warn("the agent's call did not stop when a person took over; it cannot act, since every input checks first")
		}
	}
	// The password fields shown now are remembered as such, whatever the
	// page turns them into before the person types.
	ctx, cancel := context.WithTimeout(context.Background(), handBackRead)
	defer cancel()
	s.notePersonPasswords(ctx)
}

// hold registers the agent's call name as the one in flight, unless a
// person has the browser (taken). It returns the context the call runs
// with, which a takeover ends (cause errPersonHasBrowser), and release, to
// call once the call no longer touches the browser.
func (s *Session) hold(ctx context.Context, name string) (run context.Context, release func(), taken bool) {
	w := &s.wheel
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.taken {
		return ctx, func() {}, true
	}
	if name == toolapi.RequestApproval {
		return ctx, func() {}, false
	}
	run, stop := context.WithCancelCause(ctx)
	a := &agentCall{stop: stop, done: make(chan struct{})}
	w.running = a
	return run, func() {
		w.mu.Lock()
		if w.running == a {
			w.running = nil
		}
		w.mu.Unlock()
		close(a.done)
		stop(nil)
	}, false
}

// stoppedByPerson reports whether a person took the browser while the call
// whose context is ctx ran.
func stoppedByPerson(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errPersonHasBrowser)
}

// mayAct is the last check before input reaches the page: the agent acts
// only while it has the browser. A cancelled context alone is not enough,
// since a protocol command may still go out on one.
func (s *Session) mayAct(ctx context.Context) error {
	if stoppedByPerson(ctx) || s.Taken() {
		return errPersonHasBrowser
	}
	return nil
}

// stopped answers the agent's call that a person's takeover stopped: what
// it was doing, and a fresh snapshot (the call's own context has ended).
func (s *Session) stopped(ctx context.Context, c *call) Output {
	msg := "A person has the browser: they took it over from the approval console while this call waited (for the action rate, an approval or the page), and it was stopped before it acted. Nothing was done; try again after they hand back."
	if c.sent {
		msg = "A person has the browser: they took it over from the approval console while this call acted, and it was stopped there. The snapshot shows the page as it is now; try again after they hand back."
	}
	if s.Taken() {
		return s.blind(toolapi.ActionFailed, msg)
	}
	return s.failed(context.WithoutCancel(ctx), c, toolapi.ActionFailed, msg)
}

// HandBack gives the browser back to the agent with the person's note,
// which its next snapshot carries, with the page as it is then. Handing
// back a browser nobody took does nothing.
func (s *Session) HandBack(note string) {
	if !s.Taken() {
		return
	}
	// What the person typed into a password field becomes a secret before
	// the agent can look at the page again.
	ctx, cancel := context.WithTimeout(context.Background(), handBackRead)
	s.notePersonPasswords(ctx)
	cancel()
	s.learnPersonPasswords()
	s.wheel.mu.Lock()
	defer s.wheel.mu.Unlock()
	if !s.wheel.taken {
		return
	}
	s.wheel.taken, s.wheel.back = false, true
	s.wheel.note = clipNote(note)
	s.log.Info("a person handed the browser back")
}

// Taken reports whether a person has the browser.
func (s *Session) Taken() bool {
	s.wheel.mu.Lock()
	defer s.wheel.mu.Unlock()
	return s.wheel.taken
}

// PersonInput sends a person's mouse or key event to the page; it fails
// with ErrNotTaken unless they took the browser over, and with
// browser.ErrBadInput for an event that is not a known, well-formed one.
func (s *Session) PersonInput(ctx context.Context, ev browser.PersonInput) error {
	if err := ev.Validate(); err != nil {
		return err
	}
	s.wheel.mu.Lock()
	taken, a := s.wheel.taken, s.wheel.running
	s.wheel.mu.Unlock()
	if !taken {
		return ErrNotTaken
	}
	if a != nil {
		// The agent's call is still stopping: the person's input comes
		// after its last.
		select {
		case <-a.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// A click may be the page's "Show password", and a key may make the
	// page turn the field into a text field: the password fields are
	// remembered before each press, and read after each press and
	// release, since a page may fill a field on either (a PIN pad's
	// digit on its click) and leave with it at once (the pad's last digit
	// sends the PIN), before anything reads it again.
	press := ev.Type == "mousePressed" || ev.Type == "keyDown"
	if press {
		s.notePersonPasswords(ctx)
	}
	if err := s.tab.DispatchPersonInput(ctx, ev); err != nil {
		return err
	}
	if press || ev.Type == "mouseReleased" || ev.Type == "keyUp" {
		s.notePersonPasswords(ctx)
	}
	return nil
}

// notePersonPasswords keeps the newest value of every field of the page, in
// every frame, that is or was a password field (browser.PasswordFields).
// It learns none of them yet: a value read while the person types is only
// the start of their password, and hiding that would hide its prefix
// everywhere.
func (s *Session) notePersonPasswords(ctx context.Context) {
	fields, err := s.tab.PasswordFields(ctx)
	if err != nil {
		s.log.Debug("takeover: reading the password fields", "err", err)
	}
	if len(fields) == 0 {
		return
	}
	w := &s.wheel
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.passwords == nil {
		w.passwords = map[string]string{}
	}
	for _, f := range fields {
		if _, ok := w.passwords[f.Key]; ok || len(w.passwords) < maxPersonPasswords {
			w.passwords[f.Key] = f.Value
		}
	}
}

// learnPersonPasswords makes every password the person typed one of the
// session's secrets (secrets.learn).
func (s *Session) learnPersonPasswords() {
	w := &s.wheel
	w.mu.Lock()
	values := slices.Collect(maps.Values(w.passwords))
	w.passwords = nil
	w.mu.Unlock()
	for _, v := range values {
		s.secrets.learn(v)
	}
	if len(values) > 0 {
		s.log.Info("takeover: the person's passwords are hidden from the agent", "fields", len(values))
	}
}

// Screencast streams pictures of the session's current page until ctx
// ends or the session closes. Several viewers share one screencast; a
// viewer that falls behind misses frames, never delays the others.
func (s *Session) Screencast(ctx context.Context) (<-chan browser.Frame, error) {
	return s.screencast(ctx, true)
}

// screencast is Screencast for a person's live view (person) or for the
// session's recording.
func (s *Session) screencast(ctx context.Context, person bool) (<-chan browser.Frame, error) {
	ch := make(chan browser.Frame, 1)
	w := &s.wheel
	w.mu.Lock()
	defer w.mu.Unlock()
	if person {
		w.people++
	}
	s.paceCast()
	if len(w.viewers) == 0 {
		cast, stop := context.WithCancel(context.Background())
		frames, err := s.tab.StartScreencast(cast)
		if err != nil {
			stop()
			if person {
				w.people--
			}
			return nil, fmt.Errorf("live view: %w", err)
		}
		w.viewers, w.stopCast, w.last = map[chan browser.Frame]struct{}{}, stop, nil
		w.cast++
		go s.fanOut(frames, w.cast)
	}
	w.viewers[ch] = struct{}{}
	if w.last != nil {
		ch <- *w.last
	}
	context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if _, ok := w.viewers[ch]; !ok {
			return // the screencast ended first
		}
		delete(w.viewers, ch)
		close(ch)
		if person {
			w.people--
			s.paceCast()
		}
		if len(w.viewers) == 0 {
			w.stopCast()
		}
	})
	return ch, nil
}

// paceCast sets the screencast's pace: every frame for a person, the
// recording's rate for the recording alone. s.wheel.mu is held.
func (s *Session) paceCast() {
	if s.wheel.people > 0 {
		s.tab.SetScreencastPace(0)
	} else {
		s.tab.SetScreencastPace(s.wheel.pace)
	}
}

// fanOut hands each frame to every viewer, keeping only the newest waiting
// for each; when the screencast ends (the session closed), the viewers'
// channels close.
func (s *Session) fanOut(frames <-chan browser.Frame, cast uint64) {
	w := &s.wheel
	for f := range frames {
		w.mu.Lock()
		if w.cast != cast {
			w.mu.Unlock()
			continue // a newer screencast feeds the viewers
		}
		w.last = &f
		for ch := range w.viewers {
			select {
			case <-ch:
			default:
			}
			ch <- f
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cast != cast {
		return
	}
	for ch := range w.viewers {
		close(ch)
	}
	w.viewers, w.last, w.people = nil, nil, 0
}

// refuseTaken answers a call made while a person has the browser: at once,
// never waiting for them, with what the agent can do. It also takes up a
// hand-back the agent has not heard of: every ref is then invalid, and any
// approval used up, since the person may have changed anything. refused is
// false when the call may run; a refused call is logged as any other.
func (s *Session) refuseTaken(ctx context.Context, c *call) (out Output, refused bool) {
	s.wheel.mu.Lock()
	taken, back := s.wheel.taken, s.wheel.back
	s.wheel.mu.Unlock()
	if back {
		// What the agent saw, and what a person approved before taking
		// over, describe a page the person has since acted on.
		s.live = nil
		s.gate.UseUp()
	}
	if !taken {
		return Output{}, false
	}
	return s.blind(toolapi.ActionFailed, "A person has the browser: they took it over from the approval console and "+
		"act on the page themselves; try again after they hand back. Nothing was done."), true
}

// blind answers the agent while a person has the browser: with a snapshot
// that shows nothing of the page. What they do there is theirs until they
// hand back (a password they type, which a page may echo, is learnt only
// then), so the agent sees no text, URL or screenshot of it.
func (s *Session) blind(code toolapi.Code, msg string) Output {
	snap, _, _ := snapshot.Build(&capture.Page{}, s.config.Snapshot, s.next)
	snap.Notes = append(snap.Notes, "A person has the browser: the page is not shown until they hand it back.")
	return s.output(toolapi.ActionResult{Snapshot: snap, Error: &code, Message: msg})
}

// takeoverNote tells the agent, in the first snapshot after a hand-back,
// that a person acted, what they said, and where the page is now.
func (s *Session) takeoverNote(snap *snapshot.Snapshot) {
	s.wheel.mu.Lock()
	back, note := s.wheel.back, s.wheel.note
	if back && !s.wheel.taken {
		s.wheel.back, s.wheel.note = false, ""
	}
	taken := s.wheel.taken
	s.wheel.mu.Unlock()
	if !back || taken || snap == nil {
		return
	}
	said := "."
	if note != "" {
		// The person may have pasted a secret into their note: the agent
		// sees its placeholder, as everywhere else.
		said = ": " + strings.TrimSuffix(s.secrets.redact(note), ".") + "."
	}
	title := checkpoint.OneLine(s.clip(snap.Page.Title, 120))
	snap.Notes = append(snap.Notes, fmt.Sprintf("A person took the browser and handed it back%s The page is now %q %s; earlier refs are invalid.",
		said, title, checkpoint.OneLine(s.clip(snap.Page.URL, 300))))
}

// clipNote makes a person's note one bounded line.
func clipNote(note string) string {
	note = strings.Join(strings.Fields(note), " ")
	if len(note) <= maxHandBackNote {
		return note
	}
	cut := maxHandBackNote
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + "…"
}
