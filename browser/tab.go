package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// ErrNoDialog is returned by HandleDialog when no dialog is open.
var ErrNoDialog = errors.New("no JavaScript dialog is open")

const (
	// defaultCallTimeout is the deadline of a protocol call whose context
	// has none.
	defaultCallTimeout = 10 * time.Second
	// defaultNavigateTimeout is the deadline of a navigation whose context
	// has none.
	defaultNavigateTimeout = 30 * time.Second
)

// Tab is one page in its own browser context. Its methods are safe for
// concurrent use, but actions on one page should not overlap.
type Tab struct {
	b   *Browser
	log *slog.Logger

	mu     sync.Mutex
	closed bool
	gen    uint64               // the browser generation of bctx and pg
	sess   *session             // the browser session of bctx and pg
	bctx   cdp.BrowserContextID // the tab's browser context
	pg     *tabPage
}

// tabPage is one target (page) of a tab. Recover replaces it.
type tabPage struct {
	// ctx is the chromedp context of the target; cancel closes the target.
	ctx    context.Context
	cancel context.CancelFunc
	// live ends, with ErrTabCrashed as its cause, when the renderer
	// crashes or the target goes away; it is a child of ctx, so it also
	// ends when the browser dies. Every call runs under it.
	live context.Context
	kill context.CancelCauseFunc

	mu        sync.Mutex
	url       string
	mainFrame cdp.FrameID
	dialog    *capture.Dialog
	viewport  capture.Viewport // of the last capture
	// dialogOpened is closed when a dialog opens; a new one is made when
	// the dialog closes.
	dialogOpened chan struct{}
	// frames are the ids of the page's frames, main frame included, so
	// that the policy's refusals of their documents are the tab's.
	frames map[cdp.FrameID]bool
}

// open makes the tab's page in the current browser, in the browser context
// bctx if it belongs to that browser, or in a new one.
func (t *Tab) open(ctx context.Context, lastURL string) error {
	s, gen, err := t.b.current()
	if err != nil {
		return err
	}
	t.mu.Lock()
	bctx := t.bctx
	if t.gen != gen {
		bctx = ""
	}
	t.mu.Unlock()
	created := bctx == ""
	if created {
		if bctx, err = t.b.createContext(ctx, s); err != nil {
			return err
		}
	}
	p, err := t.openPage(ctx, s, bctx)
	if err != nil {
		if created {
			_ = t.b.disposeContext(s, bctx)
		}
		return err
	}
	if lastURL != "" {
		p.setURL(lastURL, "")
	}
	t.mu.Lock()
	t.gen, t.sess, t.bctx, t.pg = gen, s, bctx, p
	t.mu.Unlock()
	return nil
}

// openPage opens a target in the browser context bctx and sets its
// viewport.
func (t *Tab) openPage(ctx context.Context, s *session, bctx cdp.BrowserContextID) (*tabPage, error) {
	p := &tabPage{url: "about:blank", dialogOpened: make(chan struct{})}
	p.ctx, p.cancel = chromedp.NewContext(s.root,
		chromedp.WithExistingBrowserContext(bctx),
		chromedp.WithListener(p.onEvent),
	)
	p.live, p.kill = context.WithCancelCause(p.ctx)

	if _, ok := ctx.Deadline(); !ok {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, startTimeout)
		defer c()
	}
	// The first run on p.ctx binds the target's life to p.ctx, so it runs
	// on p.ctx, bounded by ctx from outside.
	errc := make(chan error, 1)
	go func() { errc <- chromedp.Do(p.ctx) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		p.cancel()
		<-errc
		err = ctx.Err()
	}
	if err != nil {
		p.cancel()
		return nil, fmt.Errorf("opening a tab: %w", err)
	}

	detached, err := chromedp.Detached(p.ctx)
	if err != nil {
		p.cancel()
		return nil, fmt.Errorf("opening a tab: %w", err)
	}
	go func() {
		select {
		case <-detached:
			p.kill(fmt.Errorf("%w: the target was detached", ErrTabCrashed))
		case <-p.ctx.Done():
		}
	}()

	c, cancel := within(ctx, p.live, defaultCallTimeout)
	defer cancel()
	_, err = chromedp.Call(c, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width:             int64(t.b.opts.ViewportWidth),
		Height:            int64(t.b.opts.ViewportHeight),
		DeviceScaleFactor: 1,
	})
	if err != nil {
		p.cancel()
		return nil, fmt.Errorf("setting the viewport: %w", err)
	}
	return p, nil
}

// onEvent keeps the page's state. It runs in chromedp's event loop of the
// target, in the order of the events, and must not block or call the
// browser.
func (p *tabPage) onEvent(ev any) {
	switch ev := ev.(type) {
	case *page.EventJavascriptDialogOpening:
		p.mu.Lock()
		p.dialog = &capture.Dialog{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt}
		select {
		case <-p.dialogOpened:
		default:
			close(p.dialogOpened)
		}
		p.mu.Unlock()
	case *page.EventJavascriptDialogClosed:
		p.clearDialog()
	case *page.EventFrameAttached:
		p.noteFrame(ev.FrameID)
	case *page.EventFrameNavigated:
		if ev.Frame != nil {
			p.noteFrame(ev.Frame.ID)
		}
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			u := ev.Frame.URL + ev.Frame.URLFragment
			if ev.Frame.UnreachableURL != "" {
				u = ev.Frame.UnreachableURL
			}
			p.setURL(u, ev.Frame.ID)
		}
	case *page.EventNavigatedWithinDocument:
		p.mu.Lock()
		if ev.FrameID == p.mainFrame {
			p.url = ev.URL
		}
		p.mu.Unlock()
	case *inspector.EventTargetCrashed:
		p.clearDialog()
		p.kill(fmt.Errorf("%w: the renderer crashed", ErrTabCrashed))
	case *inspector.EventDetached:
		p.kill(fmt.Errorf("%w: detached: %s", ErrTabCrashed, ev.Reason))
	}
}

func (p *tabPage) setURL(u string, frame cdp.FrameID) {
	p.mu.Lock()
	p.url = u
	if frame != "" {
		p.mainFrame = frame
	}
	p.mu.Unlock()
}

func (p *tabPage) clearDialog() {
	p.mu.Lock()
	if p.dialog != nil {
		p.dialog = nil
		p.dialogOpened = make(chan struct{})
	}
	p.mu.Unlock()
}

// state returns the open dialog (nil if none) and a channel that is closed
// when a dialog opens.
func (p *tabPage) state() (*capture.Dialog, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dialog == nil {
		return nil, p.dialogOpened
	}
	d := *p.dialog
	return &d, p.dialogOpened
}

// page returns the current page and the session it belongs to.
func (t *Tab) page() (*tabPage, *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pg, t.sess
}

// URL returns the main frame's last committed URL (with its fragment; for a
// failed navigation, the URL that failed). It survives a crash, so that
// Recover can go back.
func (t *Tab) URL() string {
	p, _ := t.page()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Dialog returns the JavaScript dialog open on the page, or nil.
func (t *Tab) Dialog() *capture.Dialog {
	p, _ := t.page()
	d, _ := p.state()
	return d
}

// HandleDialog answers the open JavaScript dialog: accept presses OK (with
// promptText in a prompt), otherwise Cancel. It returns ErrNoDialog when no
// dialog is open.
func (t *Tab) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	p, _ := t.page()
	if d, _ := p.state(); d == nil {
		return ErrNoDialog
	}
	c, cancel := t.cdp(ctx)
	defer cancel()
	_, err := chromedp.Call(c, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{
		Accept: accept, PromptText: promptText,
	})
	if err != nil {
		return t.fail("answering the dialog", err)
	}
	p.clearDialog()
	return nil
}

// Navigate loads url and waits for its load event. It fails on a network
// error (the error page's text is in the error), on an open dialog that
// blocks the navigation, and at ctx's deadline or, without one, after 30 s.
func (t *Tab) Navigate(ctx context.Context, url string) error {
	p, _ := t.page()
	c, cancel := within(ctx, p.live, defaultNavigateTimeout)
	defer cancel()
	if err := chromedp.Do(c, chromedp.Navigate(url)); err != nil {
		if b := t.TakeBlocked(ctx); len(b) > 0 {
			return fmt.Errorf("navigating to %s: blocked by policy: %s", b[0].URL, b[0].Reason)
		}
		return t.fail("navigating to "+url, err)
	}
	return nil
}

// Close closes the tab and disposes of its browser context.
func (t *Tab) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	p, s, bctx := t.pg, t.sess, t.bctx
	t.mu.Unlock()
	t.b.forget(t)
	if p == nil {
		return nil
	}
	p.cancel()
	if err := t.b.disposeContext(s, bctx); err != nil {
		return fmt.Errorf("closing the tab: %w", err)
	}
	return nil
}
