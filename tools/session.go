// Package tools holds the tools in transport-free form: the tool table (one
// entry per tool: its definition, input type and run function), a Session
// (one isolated browser context, its live ref table, its gate and its log),
// and the tools' results and error codes. See docs/architecture.md.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/devtools"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/totp"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// Config says how a session behaves.
type Config struct {
	// StartURL is opened when the session starts; empty leaves about:blank.
	StartURL string
	// Snapshot bounds what a snapshot shows; ViewportOnly is set per call.
	Snapshot snapshot.Options
	// Capture says how screenshots are taken.
	Capture browser.CaptureOptions
	// ActionTimeout caps click, fill and select (default 2 s), ScrollTimeout
	// scroll (1 s), SnapshotTimeout a snapshot (3 s).
	ActionTimeout   time.Duration
	ScrollTimeout   time.Duration
	SnapshotTimeout time.Duration
	// Quiet is how long the DOM must stay unchanged after an action that
	// did not navigate before the page counts as settled (default 50 ms).
	Quiet time.Duration
	// NavigationTimeout caps how long an action that starts a navigation
	// waits for the new document to commit and its DOM to be interactive
	// and quiet (default 10 s). Slow subresources never make it fail.
	NavigationTimeout time.Duration
	// Caps turns on opt-in tools by capability (toolapi.CapTabs, toolapi.CapWait, toolapi.CapHover,
	// toolapi.CapUpload, toolapi.CapDrag, or toolapi.CapAll). The default tools are always on.
	Caps []string
	// UploadDir is the only directory browser_upload may take files from;
	// empty refuses every upload.
	UploadDir string
	// URLPolicy decides which documents the session's pages may load: the
	// start URL, navigations, redirects, frames and popups.
	URLPolicy urlpolicy.Policy
	// WriteOrigins join the start URL's site and the profile's allowed
	// origins in the write set: a URL the agent composes that sends data
	// to any other site asks a person first (checkpoint.WriteSet).
	WriteOrigins []string
	// Logger receives the session's log; nil discards it.
	Logger *slog.Logger
	// Screenshots says which results carry the page's screenshot:
	// ScreenshotsAlways (also for ""), ScreenshotsAuto (the default of
	// chaperone serve) or ScreenshotsNever.
	Screenshots string
	// SnapshotDelta lets an action that stayed on the same document answer
	// with only what changed since the last snapshot the agent was sent
	// (toolapi.ActionResult.Delta, delta.go), and keeps an element's ref
	// while its node stays in the document. --snapshot-delta turns it on
	// by default; off, every result is whole and every snapshot numbers
	// its refs anew.
	SnapshotDelta bool
	// Secrets are values the agent may have typed into the page by
	// placeholder, {{NAME}} for Secrets[NAME], but never sees: every
	// snapshot, message, prompt and log line shows the placeholder instead.
	Secrets map[string]string
	// TOTP are the keys of one-time codes (--totp), by placeholder name:
	// {{NAME}} types the code current at typing time, which no output
	// then shows, nor the key.
	TOTP map[string]totp.Key
	// DownloadDir is where downloads, screenshots and PDFs are saved;
	// empty gives each session a directory of its own, removed when it
	// closes. MaxDownloadSize caps one download (default 100 MB);
	// MaxDownloads and MaxDownloadsTotal cap the session's downloads
	// together: how many may begin (default 100) and the bytes of those
	// saved and under way (default 500 MB).
	DownloadDir       string
	MaxDownloadSize   int64
	MaxDownloads      int
	MaxDownloadsTotal int64
	// MaxActionsPerMinute spaces the session's actions (tools that are not
	// read-only) at least a minute / N apart; a call that comes sooner
	// waits, and says so. 0 sets no limit. RespectRobots refuses a URL
	// the agent opens that its site's robots.txt disallows (polite.go).
	MaxActionsPerMinute int
	RespectRobots       bool
	// ShowCanvasAfterSecrets leaves canvases in screenshots once a secret
	// or a password was typed in the session; by default they are covered,
	// since a page may draw one on a canvas, where no text search finds it.
	ShowCanvasAfterSecrets bool
}

func (c Config) withDefaults() Config {
	if c.ActionTimeout <= 0 {
		c.ActionTimeout = 2 * time.Second
	}
	if c.ScrollTimeout <= 0 {
		c.ScrollTimeout = time.Second
	}
	if c.SnapshotTimeout <= 0 {
		c.SnapshotTimeout = 3 * time.Second
	}
	if c.Quiet <= 0 {
		c.Quiet = 50 * time.Millisecond
	}
	if c.NavigationTimeout <= 0 {
		c.NavigationTimeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Capture.Screenshot = c.Screenshots != ScreenshotsNever
	return c
}

// Open opens a session on a browser of f: a new isolated browser context,
// its download directory, and the start URL, once the browser runs.
func Open(ctx context.Context, f *fleet.Fleet, cfg Config, opts ...SessionOption) (*Session, error) {
	lease, err := f.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	s := NewSession(lease.Context, cfg, opts...)
	s.lease = lease
	if err := s.openDownloads(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("new session: %w", err)
	}
	if start := s.config.StartURL; start != "" {
		nctx, cancel := context.WithTimeout(ctx, s.config.NavigationTimeout)
		err := lease.Context.Navigate(nctx, start)
		cancel()
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("new session: open %s: %w", start, err)
		}
	}
	return s, nil
}

// Session is one agent's browser: an isolated context with its tab, its live
// ref table, and its checkpoint state. Calls on one session must not overlap;
// the caller serialises them.
type Session struct {
	tab    *browser.Context
	config Config
	log    *slog.Logger
	// live is the ref table of the newest snapshot; no other table is live.
	live snapshot.Table
	// last is the newest snapshot.
	last *snapshot.Snapshot
	// next is the number of the next ref, so that refs are unique within
	// the session.
	next int
	// prompt is what the agent typed into an open prompt dialog, sent when
	// it clicks OK.
	prompt  typed
	gate    *checkpoint.Gate
	audit   *audit.Log
	secrets secrets
	// typed is what the agent typed, which no verdict takes as evidence.
	typed typedLog
	// caps are the opt-in capabilities of Config.Caps: a tool they do not
	// turn on is unknown to the session.
	caps capSet
	// lease is the tab's place in its fleet; nil for a session made from
	// a tab by NewSession.
	lease *fleet.Lease
	// dl is the session's download directory (download.go).
	dl downloads
	// wheel says whether a person has the browser (takeover.go).
	wheel takeover
	// polite is the action rate and robots.txt state (polite.go).
	polite polite
	// pdfText is the PDFs the pages showed, read once each (pdftext.go).
	pdfText pdfState
	// consent is the document whose cookie banner was answered (consent.go).
	consent consentState
	// tel hears where the calls spend their time; nil when nothing does
	// (telemetry.go).
	tel Telemetry
	// delta is what snapshot deltas need (delta.go).
	delta deltas
	// devtools is the developer's view of the session's pages, fed by its
	// tab when --caps devtools is on; nil otherwise (devtools.go).
	devtools *devtools.Log
	// recording records the session, when it is recorded (record.go).
	recording *Recording
	// seen is what the agent saw of the page under ScreenshotsAuto
	// (screenshots.go).
	seen seenShot
}

// NewSession wraps an open tab as a session.
func NewSession(tab *browser.Context, cfg Config, opts ...SessionOption) *Session {
	cfg = cfg.withDefaults()
	s := &Session{tab: tab, config: cfg, log: cfg.Logger, secrets: newSecrets(cfg.Secrets, cfg.TOTP, cfg.Logger)}
	s.config.Capture.SecretTexts = s.secrets.texts // secrets.go
	if !cfg.ShowCanvasAfterSecrets {
		s.config.Capture.CoverCanvases = s.secrets.typed.Load
	}
	caps, err := newCapSet(cfg.Caps)
	if err != nil {
		// Transports refuse such a configuration before any session
		// opens (DefinitionsFor); a session alone keeps the default tools.
		s.log.Warn("opt-in tools turned off", "err", err)
	}
	s.caps = caps
	s.watchDevtools() // devtools.go
	for _, o := range opts {
		o(s)
	}
	if s.gate == nil {
		s.gate = checkpoint.NewGate(nil, nil, checkpoint.Options{Logger: s.log})
	}
	s.audit.Redact(s.secrets.hide) // secrets.go
	s.startRecording()             // record.go
	return s
}

// Close closes the session's browser context.
func (s *Session) Close() error {
	var err error
	if s.lease != nil {
		err = s.lease.Close()
		s.lease = nil
	} else {
		err = s.tab.Close()
	}
	s.closeDownloads()
	s.closeRecording()
	return err
}

// Call runs the tool name with its JSON arguments. Every failure the agent can
// act on is inside the Output; the error is only for an unknown tool, which
// an opt-in tool that Config.Caps does not turn on is too.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) (Output, error) {
	// The README's promise: an approval covers the agent's next call only,
	// whatever it is, a call that fails or names no tool too. The action it
	// covers takes it while it runs; a new request for approval replaces
	// it, whether or not it gets as far as asking.
	if name == toolapi.RequestApproval {
		s.gate.UseUp()
	} else {
		defer s.gate.UseUp()
	}
	t, ok := lookup(name, s.caps)
	if !ok {
		return Output{}, fmt.Errorf("unknown tool %q", name)
	}
	// The one place defaults are filled in, for every transport. Arguments
	// that are no JSON object stay as they are: they fail to decode, and
	// the tool answers invalid_params in the shape of its result.
	if a, err := fillDefaults(args, t.defaults); err == nil {
		args = a
	}
	c := &call{tool: name, args: args, start: time.Now()}
	ctx, told := s.callTelemetry(ctx, c)
	c.masked = s.fillsPassword(name, args)
	target := ""
	if s.recording != nil {
		target = s.callTarget(args)
		s.beforeCall(ctx, c, t.def.ReadOnly)
	}
	// A person's takeover stops the call wherever it is, and the call
	// acts only while the agent has the browser (takeover.go).
	run, release, _ := s.hold(ctx, name)
	out, refused := s.refuseTaken(ctx, c)
	if !refused {
		out = s.paced(run, t.def.ReadOnly, func(ctx context.Context) Output {
			if s.mayAct(ctx) != nil {
				return Output{}
			}
			return t.run(s, ctx, c)
		})
	}
	release()
	if !refused && stoppedByPerson(run) {
		out = s.stopped(ctx, c)
	}
	out = s.redactOutput(out)
	took := time.Since(c.start)
	code := resultCode(out)
	s.log.LogAttrs(ctx, slog.LevelInfo, "tool call", slog.String("tool", name),
		slog.Duration("took", took), slog.String("result", code))
	if err := s.audit.ToolCall(c.record(code, took, s.last, s.secrets.redact)); err != nil {
		s.log.Warn("audit: tool call not logged", "tool", name, "err", err)
	}
	s.afterCall(ctx, c, target, code)
	out = s.screenshotFor(name, out)
	out = s.deltaFor(name, out)
	if told != nil {
		shot := 0
		if out.Image != nil {
			shot = len(out.Image.Data)
		}
		told(code, shot)
	}
	return out, nil
}

// fillsPassword reports whether a call carries a value meant for a password
// field, which must never reach a log: a browser_fill of one, or a
// request_human_approval that names one with the value it would type.
func (s *Session) fillsPassword(name string, args json.RawMessage) bool {
	if name != toolapi.Fill && name != toolapi.RequestApproval {
		return false
	}
	var in struct {
		Ref   string          `json:"ref"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return true // unreadable: mask to be safe
	}
	t, ok := s.live[in.Ref]
	return len(in.Value) > 0 && ok && t.InputType == "password"
}

// resultCode is what a log line says of a result.
func resultCode(out Output) string {
	if r, ok := out.Value.(toolapi.ActionResult); ok && r.Error != nil {
		return string(*r.Error)
	}
	return "ok"
}

// snapshot captures the page and makes its ref table the live one; the
// capture c's action took while the page settled serves, if there is one.
// When the capture fails it still returns a snapshot: an empty one that says
// why, so that every result carries one.
func (s *Session) snapshot(ctx context.Context, c *call, viewportOnly bool) (*snapshot.Snapshot, error) {
	ctx, end := s.phase(ctx, PhaseCapture)
	defer end()
	ctx, cancel := context.WithTimeout(ctx, s.config.SnapshotTimeout)
	defer cancel()
	page, err := c.settled, error(nil)
	c.settled = nil
	if page == nil {
		page, err = s.tab.Capture(ctx, s.config.Capture)
	}
	if err != nil {
		err = fmt.Errorf("snapshot: %w", err)
		page = &capture.Page{URL: s.tab.URL(), ScreenshotError: err.Error()}
	}
	doc := s.document(ctx)
	opts := s.config.Snapshot
	opts.ViewportOnly, opts.Positions, opts.Keep = viewportOnly, c.positions, s.keep(doc)
	snap, table, next := snapshot.Build(page, opts, s.next)
	s.secrets.redactSnapshot(snap)
	s.live, s.last, s.next = table, snap, next
	s.built(snap, doc, opts.Keep != nil)
	s.checkpointNote(snap)
	s.downloadNotes(snap)
	s.pdfNotes(ctx, snap, page)
	s.takeoverNote(snap)
	// The notes just added quote what a page named (a download named
	// after a secret typed into it): hidden as the rest.
	for i := range snap.Notes {
		snap.Notes[i] = s.secrets.redact(snap.Notes[i])
	}
	return snap, err
}

// judged is how much of a page the gate and verification look at: all of it,
// not what fits the agent's budget, since a rule may hold anywhere on it.
var judged = snapshot.Options{MaxElements: 100_000, TokenBudget: 1 << 30, TextBudget: 1 << 30}

// page captures the whole page as it is now, for the gate, verification and
// a person: built into a ref table of its own that is thrown away, so the
// live table and the ref count stay as the agent knows them. With shot it
// carries a screenshot. It works while a JavaScript dialog is open: the page
// is then the dialog.
func (s *Session) page(ctx context.Context, shot bool) (*snapshot.Snapshot, error) {
	opts := s.config.Capture
	opts.Screenshot = shot
	return s.capturePage(ctx, opts)
}

// capturePage captures the whole page with opts and builds it as page does.
func (s *Session) capturePage(ctx context.Context, opts browser.CaptureOptions) (*snapshot.Snapshot, error) {
	ctx, end := s.phase(ctx, PhaseCapture)
	defer end()
	ctx, cancel := context.WithTimeout(ctx, s.config.SnapshotTimeout)
	defer cancel()
	c, err := s.tab.Capture(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("look at the whole page: %w", err)
	}
	page, _, _ := snapshot.Build(c, judged, 0)
	s.secrets.redactSnapshot(page)
	return page, nil
}

// redactOutput hides every secret in a tool's answer and bounds its
// message; the snapshots in it were redacted when they were built.
func (s *Session) redactOutput(out Output) Output {
	// Every message is bounded too, whatever page text reached it: each
	// place that quotes the page cuts its quote, and this is the backstop.
	switch v := out.Value.(type) {
	case toolapi.ActionResult:
		v.Message = s.clip(v.Message, resultLimit)
		out.Value = v
	case toolapi.ApprovalResult:
		v.Message = s.clip(v.Message, resultLimit)
		out.Value = v
	case toolapi.CompletionResult:
		v.Message = s.clip(v.Message, resultLimit)
		out.Value = v
	}
	return out
}

// personsBrowserClosed is the answer to every call of a session in the
// person's own browser once they closed it (--connect): the session is over.
const personsBrowserClosed = "The person's browser was closed (or it took back the connection), so this session has ended and nothing more can be done in it. Chaperone never reopens or reconnects to a person's browser by itself. Tell the person: to go on, they open it again with remote debugging allowed, then restart Chaperone."

// recover brings back a crashed tab or a dead browser before a call. It
// returns the message the agent must see when that happened, or "".
func (s *Session) recover(ctx context.Context) string {
	if s.tab.Alive() {
		return ""
	}
	// A pool endpoint that is gone may have been let go of (closed) by the
	// fleet before this session noticed: its tab then says closed.
	if s.lease != nil && s.lease.Pooled() && (errors.Is(s.tab.Err(), browser.ErrBrowserGone) || s.lease.Gone()) {
		s.live = nil
		return s.move(ctx)
	}
	restarted, url, err := s.tab.Recover(ctx)
	s.live = nil
	if errors.Is(err, browser.ErrPersonsBrowserClosed) || errors.Is(s.tab.Err(), browser.ErrPersonsBrowserClosed) {
		return personsBrowserClosed
	}
	if err != nil {
		return fmt.Sprintf("The browser crashed and could not be restarted: %v. Every ref from earlier snapshots is invalid.", err)
	}
	// Say which died: after a restart, cookies set during the session are
	// gone; after a page crash they are kept.
	what := "The page crashed and was reloaded in the same browser"
	if restarted {
		what = "The browser crashed and was restarted"
	}
	return fmt.Sprintf("%s; every ref from earlier snapshots is invalid. The page was at %s and has been reopened: read the new snapshot before acting.", what, url)
}

// output wraps an action result with its screenshot.
func (s *Session) output(r toolapi.ActionResult) Output {
	out := Output{Value: r}
	if r.Snapshot != nil {
		out.Image = r.Snapshot.Screenshot
	}
	return out
}

// failed answers with the error code and message and a fresh snapshot.
func (s *Session) failed(ctx context.Context, c *call, code toolapi.Code, msg string) Output {
	snap, _ := s.snapshot(ctx, c, true)
	return s.output(toolapi.ActionResult{Snapshot: snap, Error: &code, Message: msg})
}

func code(c toolapi.Code) *toolapi.Code { return &c }
