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
	"sync"
	"time"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
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
	URLPolicy URLPolicy
	// WriteOrigins join the start URL's site and the profile's allowed
	// origins in the write set: a URL the agent composes that sends data
	// to any other site asks a person first (checkpoint.WriteSet).
	WriteOrigins []string
	// StorageState is a storage-state file in the format Playwright writes
	// (cookies and localStorage per origin), loaded into every new session;
	// empty loads nothing.
	StorageState string
	// BrowserPool lists remote DevTools endpoints to open sessions on,
	// least-loaded first, instead of the one browser of the browser
	// options (see StartPool).
	BrowserPool []string
	// Logger receives the session's log; nil discards it.
	Logger *slog.Logger
	// Screenshots says which results carry the page's screenshot:
	// ScreenshotsAlways (the default, also for ""), ScreenshotsAuto or
	// ScreenshotsNever.
	Screenshots string
	// Secrets are values the agent may have typed into the page by
	// placeholder, {{NAME}} for Secrets[NAME], but never sees: every
	// snapshot, message, prompt and log line shows the placeholder instead.
	Secrets map[string]string
	// DownloadDir is where downloads, screenshots and PDFs are saved;
	// empty gives each session a directory of its own, removed when it
	// closes. MaxDownloadSize caps one download (default 100 MB).
	DownloadDir     string
	MaxDownloadSize int64
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

// Manager opens sessions, each in its own isolated browser context, on one
// browser, or on the browsers of a pool (StartPool).
type Manager struct {
	config Config
	// started is closed when the first start of every member has ended;
	// then err says why none started, if none did.
	started chan struct{}
	err     error
	// stop abandons a start under way.
	stop context.CancelFunc
	// storage is the parsed Config.StorageState, nil when there is none.
	storage *browser.StorageState
	// oneSession names the flag that limits the browser to one session at a
	// time (its default context holds one tab), or is "".
	oneSession string

	// life ends when the Manager closes; pool endpoints are retried
	// under it, by goroutines that retries waits for.
	life    context.Context
	endLife context.CancelFunc
	retries sync.WaitGroup

	mu      sync.Mutex
	members []*member
	closed  bool
}

// StartManager starts launching or connecting to a browser as opts say and
// returns at once; sessions wait for the browser. A server starts the
// browser this way while its client connects, rather than after. ctx bounds
// the start only. A storage-state file that cannot be read fails the start
// (Started reports it) before any browser starts. The browser enforces
// cfg.URLPolicy on every document (unless opts.DocumentPolicy says
// otherwise).
// With cfg.BrowserPool set it starts a pool instead (StartPool).
func StartManager(ctx context.Context, opts browser.Options, cfg Config) *Manager {
	if len(cfg.BrowserPool) > 0 {
		return StartPool(ctx, cfg.BrowserPool, opts, cfg)
	}
	return start(ctx, []*member{{opts: opts}}, cfg)
}

// NewManager launches or connects to a browser as opts say, and returns
// once it runs.
func NewManager(ctx context.Context, opts browser.Options, cfg Config) (*Manager, error) {
	m := StartManager(ctx, opts, cfg)
	if err := m.Started(ctx); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// Started waits for the browser's start to end and reports why it failed,
// if it did.
func (m *Manager) Started(ctx context.Context) error {
	select {
	case <-m.started:
		return m.err
	case <-ctx.Done():
		return fmt.Errorf("wait for the browser to start: %w", context.Cause(ctx))
	}
}

// Close closes every session's context and the browser, if this process
// started it; a start under way is abandoned.
func (m *Manager) Close() error {
	m.stop()
	<-m.started
	m.mu.Lock()
	m.closed = true
	m.endLife()
	var browsers []*browser.Browser
	for _, mb := range m.members {
		if mb.b != nil {
			browsers = append(browsers, mb.b)
		}
	}
	m.mu.Unlock()
	m.retries.Wait()
	var errs []error
	for _, b := range browsers {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}

// NewSession opens an isolated browser context and goes to the start URL,
// once the browser runs.
func (m *Manager) NewSession(ctx context.Context, opts ...SessionOption) (*Session, error) {
	if err := m.Started(ctx); err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	tab, mb, err := m.openTab(ctx, nil)
	if errors.Is(err, browser.ErrContextBusy) {
		return nil, fmt.Errorf("%s allows one session at a time; another session is open, and this one was not "+
			"opened: end the other (close its MCP client) or wait until it idles out, then try again (%w)", m.oneSession, err)
	}
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	s := NewSession(tab, m.config, opts...)
	s.home = &home{m, mb}
	if err := s.openDownloads(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("new session: %w", err)
	}
	if m.storage != nil {
		if err := tab.LoadStorageState(ctx, *m.storage); err != nil {
			s.Close()
			return nil, fmt.Errorf("new session: load the storage state %s: %w", m.config.StorageState, err)
		}
	}
	if m.config.StartURL != "" {
		nctx, cancel := context.WithTimeout(ctx, m.config.NavigationTimeout)
		err := tab.Navigate(nctx, m.config.StartURL)
		cancel()
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("new session: open %s: %w", m.config.StartURL, err)
		}
	}
	return s, nil
}

// Session is one agent's browser: an isolated context with its tab, its live
// ref table, and its checkpoint state. Calls on one session must not overlap;
// the caller serialises them.
type Session struct {
	tab    *browser.Tab
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
	prompt typed
	gate   *checkpoint.Gate
	audit  *audit.Log
	// settled is a capture the last action took while the page settled,
	// for the snapshot that follows it; nil when that snapshot must be
	// taken anew.
	settled *capture.Page
	secrets secrets
	// approvalID names the approval that covered the gated action of the
	// call under way, for its audit record; "" when none did.
	approvalID string
	// maskKey is set by a call that presses a character into a password
	// field: its key is masked in the audit log.
	maskKey bool
	// typed is what the agent typed, which no verdict takes as evidence.
	typed typedLog
	// caps are the opt-in capabilities of Config.Caps: a tool they do not
	// turn on is unknown to the session.
	caps capSet
	// home is the Manager and browser the tab lives on; nil for a session
	// made from a tab by NewSession.
	home *home
	// dl is the session's download directory (download.go).
	dl downloads
	// wheel says whether a person has the browser (takeover.go).
	wheel takeover
	// pdfText is the PDF the page showed when last looked at (pdftext.go).
	pdfText pdfState
	// consent is the document whose cookie banner was answered (consent.go).
	consent consentState
}

// NewSession wraps an open tab as a session.
func NewSession(tab *browser.Tab, cfg Config, opts ...SessionOption) *Session {
	cfg = cfg.withDefaults()
	s := &Session{tab: tab, config: cfg, log: cfg.Logger, secrets: newSecrets(cfg.Secrets, cfg.Logger)}
	s.config.Capture.SecretTexts = s.secrets.texts // secrets.go
	caps, err := newCapSet(cfg.Caps)
	if err != nil {
		// Transports refuse such a configuration before any session
		// opens (DefinitionsFor); a session alone keeps the default tools.
		s.log.Warn("opt-in tools turned off", "err", err)
	}
	s.caps = caps
	for _, o := range opts {
		o(s)
	}
	if s.gate == nil {
		s.gate = checkpoint.NewGate(nil, nil, checkpoint.Options{Logger: s.log})
	}
	s.audit.Redact(s.secrets.hide) // secrets.go
	return s
}

// Close closes the session's browser context.
func (s *Session) Close() error {
	if s.home != nil {
		s.home.m.release(s.home.mb)
		s.home = nil
	}
	err := s.tab.Close()
	s.closeDownloads()
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
	start := time.Now()
	masked := s.fillsPassword(name, args)
	s.approvalID, s.maskKey = "", false
	var before string
	if s.last != nil {
		before = s.last.Page.URL
	}
	out, refused := s.refuseTaken(ctx) // takeover.go
	if !refused {
		out = s.redactOutput(t.run(s, ctx, args))
	}
	masked = masked || s.maskKey
	took := time.Since(start)
	code := resultCode(out)
	s.log.LogAttrs(ctx, slog.LevelInfo, "tool call", slog.String("tool", name),
		slog.Duration("took", took), slog.String("result", code))
	call := audit.ToolCall{Tool: name, Args: json.RawMessage(s.secrets.redact(string(args))), Start: start, Duration: took}
	if masked {
		call.Args = maskPassword(call.Args)
	}
	if code != "ok" {
		call.Code = code
	} else {
		call.ApprovalID = s.approvalID
	}
	if s.last != nil {
		call.SnapshotID = s.last.ID
		if s.last.Screenshot != nil {
			call.Screenshot = s.last.Screenshot.Data
		}
	}
	if err := s.audit.ToolCall(call); err != nil {
		s.log.Warn("audit: tool call not logged", "tool", name, "err", err)
	}
	return s.screenshotFor(name, before, out), nil
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

// snapshot captures the page and makes its ref table the live one. When the
// capture fails it still returns a snapshot: an empty one that says why, so
// that every result carries one.
func (s *Session) snapshot(ctx context.Context, viewportOnly bool) (*snapshot.Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, s.config.SnapshotTimeout)
	defer cancel()
	page, err := s.settled, error(nil)
	s.settled = nil
	if page == nil {
		page, err = s.tab.Capture(ctx, s.config.Capture)
	}
	if err != nil {
		err = fmt.Errorf("snapshot: %w", err)
		page = &capture.Page{URL: s.tab.URL(), ScreenshotError: err.Error()}
	}
	opts := s.config.Snapshot
	opts.ViewportOnly = viewportOnly
	snap, table, next := snapshot.Build(page, opts, s.next)
	s.secrets.redactSnapshot(snap)
	s.live, s.last, s.next = table, snap, next
	s.checkpointNote(snap)
	s.downloadNotes(snap)
	s.pdfNotes(ctx, snap)
	s.takeoverNote(snap)
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

// recover brings back a crashed tab or a dead browser before a call. It
// returns the message the agent must see when that happened, or "".
func (s *Session) recover(ctx context.Context) string {
	if s.tab.Alive() {
		return ""
	}
	if s.home != nil && s.home.m.pooled(s.home.mb) && errors.Is(s.tab.Err(), browser.ErrBrowserGone) {
		s.live = nil
		return s.move(ctx)
	}
	restarted, url, err := s.tab.Recover(ctx)
	s.live = nil
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
func (s *Session) failed(ctx context.Context, c toolapi.Code, msg string) Output {
	snap, _ := s.snapshot(ctx, true)
	return s.output(toolapi.ActionResult{Snapshot: snap, Error: &c, Message: msg})
}

func code(c toolapi.Code) *toolapi.Code { return &c }
