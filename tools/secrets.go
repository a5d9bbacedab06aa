package tools

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/pause"
	"github.com/chaperone-mcp/chaperone/internal/redact"
	"github.com/chaperone-mcp/chaperone/internal/totp"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// placeholder is how the agent names a secret in a fill value: {{NAME}}.
var placeholder = regexp.MustCompile(`\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`)

// secrets are the values the page may be typed but nothing the session
// outputs may show (docs/architecture.md, "Contracts"): the agent writes
// {{NAME}}, the page gets the value, and every snapshot, message and log line
// shows {{NAME}} again.
type secrets struct {
	values map[string]string
	// codes are the TOTP keys of --totp, by name: {{NAME}} types the code
	// current when it is typed, which is learnt as a secret then, as is
	// the key in every spelling (totp.Key.Texts).
	codes map[string]totp.Key
	// clock and sleep are the time codes are made at and the wait for a
	// fresh one (time.Now and pause.For; a test moves a clock of its own).
	clock func() time.Time
	sleep func(context.Context, time.Duration) error
	// key signs a password's fingerprint; it lives as long as the session
	// and is never written anywhere.
	key []byte
	// hide replaces each value, in every form an encoder gives it, by its
	// placeholder, and each password typed in the open by maskedValue.
	hide *redact.Redactor
	// log is the session's logger, taught every value hide learns so that
	// no log line shows one (redact.Handler).
	log *slog.Logger
	// typed is set once a secret or a password was typed into a page of
	// the session, by the agent or by a person: from then on a page may
	// draw one on a canvas, which screenshots cover (Config.ShowCanvasAfterSecrets).
	typed *atomic.Bool
}

func newSecrets(values map[string]string, codes map[string]totp.Key, log *slog.Logger) secrets {
	s := secrets{values: values, codes: codes, clock: time.Now, sleep: pause.For,
		key: make([]byte, 32), hide: redact.New(values), log: log, typed: new(atomic.Bool)}
	rand.Read(s.key)
	for name, v := range values {
		redact.Teach(log, v, "{{"+name+"}}")
	}
	for _, name := range slices.Sorted(maps.Keys(codes)) {
		for _, t := range codes[name].Texts() {
			s.hide.Add(t, "{{"+name+"}}")
			redact.Teach(log, t, "{{"+name+"}}")
		}
	}
	return s
}

// learnCode hides a one-time code typed as {{name}}, from the moment it is
// made: a page may echo it, and a form sent with GET puts it in the next
// URL. A code is a secret for good, not only while it is current.
func (s secrets) learnCode(code, name string) {
	s.typed.Store(true)
	s.hide.Add(code, "{{"+name+"}}")
	redact.Teach(s.log, code, "{{"+name+"}}")
}

// fresh waits, when value names a one-time code, until each code it names
// will stay current long enough for the form to be sent
// (totp.Key.Fresh): typing is the last thing before the page has it, so
// the code is made when the wait ends, never when the action was planned or
// approved, which a person may take minutes over. ctx ends the wait (a
// takeover, the call's end).
func (s secrets) fresh(ctx context.Context, value string) error {
	// Keys of different periods may each ask for a wait: a few rounds
	// find a moment that suits them all, or the last one is typed.
	for range 3 {
		var wait time.Duration
		now := s.clock()
		for _, m := range placeholder.FindAllStringSubmatch(value, -1) {
			if k, ok := s.codes[m[1]]; ok {
				wait = max(wait, k.Fresh(now))
			}
		}
		if wait == 0 {
			return nil
		}
		s.log.Info("waiting for the next one-time code before typing it", "wait", wait)
		if err := s.sleep(ctx, wait); err != nil {
			return fmt.Errorf("wait for the next one-time code: %w", err)
		}
	}
	return nil
}

// learn hides a password typed in the open, by the agent or by a person in
// the live view, from every output of the session from now on, in every
// form the page may give it back: a form sent with GET puts it, URL-encoded,
// in the next page's URL, and a page may echo it in its text. However short
// it is: a two-digit PIN is hidden too, as a whole token (internal/redact),
// which is the price of never showing it.
func (s secrets) learn(password string) {
	if password == "" {
		return
	}
	s.typed.Store(true)
	s.hide.Add(password, maskedValue)
	redact.Teach(s.log, password, maskedValue)
}

// texts are the forms of every value hidden that a page may show, for
// screenshots to mask (browser.CaptureOptions.SecretTexts).
func (s secrets) texts() []string { return s.hide.Forms() }

// expand returns value with each placeholder replaced by its secret, and
// whether there was one. An unknown name is invalid_params naming the known
// ones.
func (s secrets) expand(value string) (string, bool, error) {
	var unknown []string
	found := false
	out := placeholder.ReplaceAllStringFunc(value, func(p string) string {
		name := p[2 : len(p)-2]
		v, ok := s.values[name]
		if k, isCode := s.codes[name]; isCode && !ok {
			v, ok = k.Code(s.clock()), true
			s.learnCode(v, name)
		}
		if !ok {
			unknown = append(unknown, p)
			return p
		}
		found = true
		s.typed.Store(true)
		return v
	})
	if len(unknown) > 0 {
		known := "none: the server was started without --secret or --totp"
		if len(s.values)+len(s.codes) > 0 {
			var names []string
			for _, n := range slices.Sorted(maps.Keys(s.values)) {
				names = append(names, "{{"+n+"}}")
			}
			for _, n := range slices.Sorted(maps.Keys(s.codes)) {
				names = append(names, "{{"+n+"}} (a one-time code)")
			}
			known = strings.Join(names, ", ")
		}
		return "", false, fail(toolapi.InvalidParams, "unknown secret %s: the known secrets are %s.", strings.Join(unknown, ", "), known)
	}
	return out, found, nil
}

// redact returns text with every secret's value replaced by its placeholder,
// and every password typed in the open by maskedValue, in whatever form
// they take (URL-encoded, JSON- or HTML-escaped, in either case).
func (s secrets) redact(text string) string { return s.hide.String(text) }

// redactParts returns a redact for text a page writes freely where the
// agent reads it (the developer's view, a script's result): besides every
// secret, every run of one long enough to tell a good part of it
// (redact.Redactor.Fragments), since a page that holds a secret may write
// it in parts, a console message or a request per half, each of which
// redact alone leaves whole. It knows the secrets known when it is made.
func (s secrets) redactParts() func(string) string {
	parts := s.hide.Fragments()
	return func(text string) string { return parts.String(s.hide.String(text)) }
}

// redactSnapshot hides every secret in what a snapshot shows: the page,
// element names and values, the text, the dialog and the notes.
func (s secrets) redactSnapshot(snap *snapshot.Snapshot) {
	if snap == nil {
		return
	}
	snap.Page.URL, snap.Page.Title = s.redact(snap.Page.URL), s.redact(snap.Page.Title)
	snap.Text = s.redact(snap.Text)
	for i := range snap.Elements {
		e := &snap.Elements[i]
		e.Name = s.redact(e.Name)
		// What scripts find the element by: a page may name it by a
		// value it echoes, and a frame's URL carries its query.
		e.DOMID, e.CSS, e.Frame = s.redact(e.DOMID), s.redact(e.CSS), s.redact(e.Frame)
		// An icon's words come from its image's URL, and where a value
		// was read from names the page's text: both are the page's.
		e.Icon, e.ValueSource = s.redact(e.Icon), s.redact(e.ValueSource)
		if e.Value != nil {
			v := s.redact(*e.Value)
			e.Value = &v
		}
	}
	// The fields' values in document order are pieces of one text: a page
	// spreads a code typed into its first box over six one-digit boxes,
	// which no box alone shows.
	var fields []*string
	for i := range snap.Elements {
		if v := snap.Elements[i].Value; v != nil {
			fields = append(fields, v)
		}
	}
	s.redactRun(fields)
	for i := range snap.Notes {
		snap.Notes[i] = s.redact(snap.Notes[i])
	}
	if len(snap.Positions) > 0 {
		// The runs of the page text: a value may run across several.
		texts := make([]string, len(snap.Positions))
		for i, r := range snap.Positions {
			texts[i] = r.Text
		}
		for i, t := range s.hide.Pieces(texts) {
			snap.Positions[i].Text = t
		}
	}
	if snap.Dialog != nil {
		d := *snap.Dialog
		d.Message = s.redact(d.Message)
		snap.Dialog = &d
	}
}

// redactDelta hides every secret in what a delta shows, as redactSnapshot
// does in a snapshot: the page, the elements added, changed and updated,
// the lines of text it removes and adds, and the notes. Its strings come
// from snapshots already hidden; this is the backstop.
func (s secrets) redactDelta(d *snapshot.Delta) {
	if d == nil {
		return
	}
	d.Page.URL, d.Page.Title = s.redact(d.Page.URL), s.redact(d.Page.Title)
	for _, els := range []*[]snapshot.Element{&d.Added, &d.Changed, &d.Updated} {
		part := snapshot.Snapshot{Elements: *els}
		s.redactSnapshot(&part)
	}
	for i := range d.Text {
		e := &d.Text[i]
		for _, ls := range [][]string{e.Delete, e.Insert} {
			for j := range ls {
				ls[j] = s.redact(ls[j])
			}
		}
	}
	for i := range d.Notes {
		d.Notes[i] = s.redact(d.Notes[i])
	}
}

// redactRun hides every secret that runs across values, read in their
// order as pieces of one text (redact.Redactor.Pieces): a page may spread
// a code over six one-digit fields, none of which holds it alone.
func (s secrets) redactRun(values []*string) {
	if len(values) < 2 {
		return
	}
	texts := make([]string, len(values))
	for i, v := range values {
		texts[i] = *v
	}
	for i, v := range s.hide.Pieces(texts) {
		*values[i] = v
	}
}

// typed is a value a fill types: the text the page gets, and what a person,
// the agent and the logs may see of it.
type typed struct {
	text  string
	shown string
	// masked is set when shown is not the text: a password, or a secret.
	masked bool
	// secret is set when the text holds a secret's value.
	secret bool
	// code is set when the text holds a one-time code (--totp): it is
	// made again when it is typed (secrets.fresh).
	code bool
}

// codeNote tells the agent, after it typed value, how long the one-time
// codes it named stay current: "" when it named none.
func (s secrets) codeNote(value string) string {
	left := time.Duration(-1)
	now := s.clock()
	for _, m := range placeholder.FindAllStringSubmatch(value, -1) {
		if k, ok := s.codes[m[1]]; ok && (left < 0 || k.Left(now) < left) {
			left = k.Left(now)
		}
	}
	if left < 0 {
		return ""
	}
	return fmt.Sprintf(" It is a one-time code, current for about %d s more: send the form now.", int(left.Round(time.Second)/time.Second))
}

// codeIn reports whether value names a one-time code.
func (s secrets) codeIn(value string) bool {
	for _, m := range placeholder.FindAllStringSubmatch(value, -1) {
		if _, ok := s.codes[m[1]]; ok {
			return true
		}
	}
	return false
}

// fingerprint is what a person and the logs see of a password typed in
// the open: dots and a keyed hash, which tells two passwords apart (so that
// an approval of one does not cover another) but tells nothing of either,
// not even its length.
func (s secrets) fingerprint(password string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(password))
	return "•••••••• #" + hex.EncodeToString(m.Sum(nil))[:8]
}

// value turns what the agent asked to type into a field (password tells a
// password field) into a typed value.
func (s secrets) value(v string, password bool) (typed, error) {
	text, secret, err := s.expand(v)
	if err != nil {
		return typed{}, err
	}
	t := typed{text: text, shown: v, masked: secret, secret: secret, code: s.codeIn(v)}
	if password {
		// The whole value: it may be a secret with more around it.
		s.learn(text)
		if !secret {
			t.shown, t.masked = s.fingerprint(text), true
		}
	}
	return t, nil
}

// String is what a message says was typed.
func (t typed) String() string {
	if t.masked && !t.secret {
		return "the password"
	}
	return fmt.Sprintf("%q", t.shown)
}
