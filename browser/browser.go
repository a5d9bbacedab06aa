// Package browser is the only package that speaks the Chrome DevTools
// Protocol: it launches or connects to Chromium, opens isolated contexts,
// captures pages, sends input, answers dialogs and notices crashes.
//
// A [Browser] is one Chromium process (launched or connected to). Each [Context]
// lives in its own browser context, with its own cookies and storage. Every
// protocol call carries a deadline, so that a crashed renderer or an open
// JavaScript dialog never hangs a caller; a crashed tab or a dead browser is
// reported by [Context.Err] and repaired by [Context.Recover].
package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Options says which browser to use and how.
type Options struct {
	// Path is the Chromium or Chrome binary; empty searches CHROME_PATH, then
	// the usual places.
	Path string
	// CDPEndpoint connects to a running browser (ws://… or http://host:port)
	// instead of launching one.
	CDPEndpoint string
	// Headed shows a window.
	Headed bool
	// UserDataDir is the profile to use; empty makes a fresh one that Close
	// removes.
	UserDataDir string
	// DefaultContext opens tabs in the browser's default context, the one
	// of the profile (UserDataDir) or of the browser connected to, so that
	// its cookies and logins apply, instead of each in an isolated context
	// of its own. Tabs there would share one login, so only one may be open
	// at a time: NewTab reports ErrContextBusy while another is.
	DefaultContext bool
	// Attached says that the browser at CDPEndpoint is the person's own:
	// each tab works in a window of its own in the browser's default
	// context (the person's cookies and logins), and nothing outside the
	// pages of the tabs it opens — the person's own tabs — is listed,
	// captured, intercepted or acted in. Close closes only those pages and
	// never the browser. It needs CDPEndpoint and overrides DefaultContext.
	Attached bool
	// ViewportWidth and ViewportHeight size every tab (default 1280×720).
	ViewportWidth, ViewportHeight int
	// NoSandbox turns off Chromium's sandbox. It is always off when the
	// process runs as root, where Chromium refuses to start with it.
	NoSandbox bool
	// Logger receives the browser's diagnostics; nil uses slog.Default().
	Logger *slog.Logger
	// DocumentPolicy, when set, is asked about every document the browser
	// is about to request (pages, popups, frames, each hop of a redirect)
	// before the request is sent; an error refuses it, and its text is the
	// reason a person reads. A refused page stays where it was; the refusal
	// is logged and reported by Context.TakeBlocked. On a browser connected to
	// with CDPEndpoint it applies to every tab of that browser while
	// connected.
	DocumentPolicy func(ctx context.Context, url string) error
}

// Errors that calls on a [Browser] or a [Context] report, possibly wrapped.
var (
	// ErrNoBrowser means that no Chromium or Chrome binary was found.
	ErrNoBrowser = errors.New("no Chromium or Chrome found")
	// ErrClosed means that the tab or the browser was closed by Close.
	ErrClosed = errors.New("closed")
	// ErrTabCrashed means that the tab's renderer crashed or the tab was
	// closed from outside (by the page or by another client); Context.Recover
	// opens a fresh tab.
	ErrTabCrashed = errors.New("the tab crashed or was closed")
	// ErrBrowserGone means that the browser process died or the connection
	// to it was lost; Context.Recover relaunches or reconnects.
	ErrBrowserGone = errors.New("the browser is gone")
	// ErrContextBusy means that Options.DefaultContext is set and a tab is
	// open already.
	ErrContextBusy = errors.New("the browser's default context already has a tab open")
	// ErrPersonsBrowserClosed means that the person's own browser
	// (Options.Attached) was closed, or dropped the connection. It is never
	// reconnected to or started again: its tabs are over. The error a tab
	// reports then wraps ErrBrowserGone too.
	ErrPersonsBrowserClosed = errors.New("the person's browser was closed")
)

// errPersonsBrowserGone is what a tab of the person's browser reports once
// that browser is gone.
var errPersonsBrowserGone = fmt.Errorf("%w: %w", ErrBrowserGone, ErrPersonsBrowserClosed)

// gone is the error of a tab whose browser died or was relaunched.
func (b *Browser) gone() error {
	if b.opts.Attached {
		return errPersonsBrowserGone
	}
	return ErrBrowserGone
}

const (
	defaultWidth  = 1280
	defaultHeight = 720
	// closeTimeout bounds each step of closing a tab or a browser.
	closeTimeout = 5 * time.Second
	// startTimeout bounds a launch or a new tab when the caller's context
	// has no deadline.
	startTimeout = 30 * time.Second
)

// Browser is a launched or connected browser.
type Browser struct {
	opts     Options
	path     string // the binary, when launched
	log      *slog.Logger
	launched bool

	// relaunchMu serialises relaunches, so that tabs that notice the same
	// death relaunch once.
	relaunchMu sync.Mutex

	mu     sync.Mutex
	closed bool
	gen    uint64 // counts (re)launches; a tab of an older one is gone
	sess   *session
	tabs   map[*Context]struct{}
	// hold holds the new pages of the person's own browser until the
	// agent's popups among them are judged (popuphold.go).
	hold *pageHold
	// defaultTaken says that a tab holds the default context
	// (Options.DefaultContext), or is being opened there.
	defaultTaken bool

	// refused holds the document requests the policy refused, until the
	// tabs they belong to take them.
	refused refusals
	// redirects judge the server redirects of the navigations GoChecked
	// started (redirect.go).
	redirects redirectChecks
	// documents judge the document requests of an action under way
	// (actioncheck.go).
	documents documentChecks
	// dl holds the downloads under way (download.go).
	dl downloads
}

// Launch starts or connects to a browser. ctx bounds the start only; the
// browser lives until Close.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	if opts.ViewportWidth <= 0 {
		opts.ViewportWidth = defaultWidth
	}
	if opts.ViewportHeight <= 0 {
		opts.ViewportHeight = defaultHeight
	}
	if opts.Attached {
		if opts.CDPEndpoint == "" {
			return nil, errors.New("the person's own browser (Options.Attached) needs its DevTools endpoint (Options.CDPEndpoint)")
		}
		opts.DefaultContext = false // each tab has a window of its own
	}
	b := &Browser{
		opts:     opts,
		log:      opts.Logger,
		launched: opts.CDPEndpoint == "",
		tabs:     make(map[*Context]struct{}),
	}
	if b.log == nil {
		b.log = slog.Default()
	}
	if b.launched {
		path, err := FindBinary(opts.Path)
		if err != nil {
			return nil, err
		}
		b.path = path
	}
	s, err := b.start(ctx)
	if err != nil {
		return nil, err
	}
	b.sess = s
	b.gen = 1
	return b, nil
}

// current returns the live session and its generation.
func (b *Browser) current() (*session, uint64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, 0, fmt.Errorf("browser: %w", ErrClosed)
	}
	return b.sess, b.gen, nil
}

// Alive reports whether the browser is running (or connected) and not
// closed.
func (b *Browser) Alive() bool {
	s, _, err := b.current()
	return err == nil && s.root.Err() == nil
}

// Gone returns a channel that is closed when the current run of the
// browser ends: the process died, the connection was lost or ended by the
// other side, or the browser was closed. A relaunch (Context.Recover) is a
// new run with a channel of its own.
func (b *Browser) Gone() <-chan struct{} {
	s, _, err := b.current()
	if err != nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return s.root.Done()
}

// Launched reports whether this Browser started the browser process, as
// opposed to connecting to one.
func (b *Browser) Launched() bool { return b.launched }

// Process returns the browser process, or nil when the browser was connected
// to rather than launched. Tests use it to kill the browser.
func (b *Browser) Process() *os.Process {
	s, _, err := b.current()
	if err != nil {
		return nil
	}
	c := chromedp.FromContext(s.root)
	if c == nil || c.Browser == nil {
		return nil
	}
	return c.Browser.Process()
}

// Relaunch replaces the browser with a fresh one: it closes the current
// process (if it still runs) and launches a new one, or reconnects to
// Options.CDPEndpoint. Every tab of the old browser is gone; Context.Recover
// moves a tab to the new one.
func (b *Browser) Relaunch(ctx context.Context) error {
	return b.relaunch(ctx, 0)
}

// relaunch relaunches unless the generation moved past seen already (another
// tab relaunched first). seen 0 always relaunches.
func (b *Browser) relaunch(ctx context.Context, seen uint64) error {
	b.relaunchMu.Lock()
	defer b.relaunchMu.Unlock()
	old, gen, err := b.current()
	if err != nil {
		return err
	}
	if seen != 0 && gen != seen {
		return nil
	}
	if b.opts.Attached {
		// The person closed it, or took the connection back: that ends
		// the tabs, and Chaperone never reopens or reconnects on its own.
		return b.gone()
	}
	old.stop()
	s, err := b.start(ctx)
	if err != nil {
		return fmt.Errorf("relaunch: %w", err)
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		s.stop()
		return fmt.Errorf("relaunch: browser %w", ErrClosed)
	}
	b.sess = s
	b.gen++
	b.mu.Unlock()
	b.log.Info("browser relaunched", "launched", b.launched)
	return nil
}

// Close closes every tab it opened (disposing of their browser contexts)
// and, if it launched the browser, the browser, removing a temporary
// profile. A connected browser keeps running.
func (b *Browser) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	tabs := make([]*Context, 0, len(b.tabs))
	for t := range b.tabs {
		tabs = append(tabs, t)
	}
	b.mu.Unlock()

	var errs []error
	for _, t := range tabs {
		if err := t.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	b.relaunchMu.Lock()
	defer b.relaunchMu.Unlock()
	b.mu.Lock()
	b.closed = true
	s := b.sess
	b.mu.Unlock()
	s.stop()
	return errors.Join(errs...)
}

// NewContext opens a tab in a new isolated browser context (in the default
// context with Options.DefaultContext), with the viewport of the Options.
// ctx bounds the opening only.
func (b *Browser) NewContext(ctx context.Context) (*Context, error) {
	if s, _, err := b.current(); err == nil && b.opts.Attached && s.root.Err() != nil {
		return nil, fmt.Errorf("new tab: %w", b.gone())
	}
	t := &Context{b: b, log: b.log}
	if b.opts.DefaultContext {
		b.mu.Lock()
		taken := b.defaultTaken
		b.defaultTaken = true
		b.mu.Unlock()
		if taken {
			return nil, fmt.Errorf("new tab: %w", ErrContextBusy)
		}
	}
	if err := t.open(ctx, ""); err != nil {
		b.forget(t)
		return nil, fmt.Errorf("new tab: %w", err)
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		t.Close()
		return nil, fmt.Errorf("new tab: browser %w", ErrClosed)
	}
	b.tabs[t] = struct{}{}
	b.mu.Unlock()
	return t, nil
}

// forget drops a closed tab from the browser's list.
func (b *Browser) forget(t *Context) {
	b.mu.Lock()
	delete(b.tabs, t)
	if b.opts.DefaultContext {
		// At most one tab lives there, and it is t.
		b.defaultTaken = false
	}
	b.mu.Unlock()
}

// createContext makes a new browser context in the session.
func (b *Browser) createContext(ctx context.Context, s *session) (cdp.BrowserContextID, error) {
	c, cancel := within(ctx, s.root, closeTimeout)
	defer cancel()
	res, err := chromedp.CallBrowser(c, target.CreateBrowserContext, target.CreateBrowserContextParams{
		DisposeOnDetach: new(true),
	})
	if err != nil {
		return "", fmt.Errorf("creating a browser context: %w", err)
	}
	return res.BrowserContextID, nil
}

// disposeContext disposes of a browser context, if its browser still runs.
func (b *Browser) disposeContext(s *session, id cdp.BrowserContextID) error {
	if s.root.Err() != nil || id == "" {
		return nil
	}
	c, cancel := context.WithTimeout(s.root, closeTimeout)
	defer cancel()
	_, err := chromedp.CallBrowser(c, target.DisposeBrowserContext, target.DisposeBrowserContextParams{
		BrowserContextID: id,
	})
	if err != nil && s.root.Err() == nil {
		return fmt.Errorf("disposing of browser context %s: %w", id, err)
	}
	return nil
}
