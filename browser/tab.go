package browser

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

const (
	// defaultCallTimeout is the deadline of a protocol call whose context
	// has none.
	defaultCallTimeout = 10 * time.Second
	// defaultNavigateTimeout is the deadline of a hidden page's navigation
	// whose context has none.
	defaultNavigateTimeout = 30 * time.Second
	// navigateQuiet is how long a document Navigate opened must go without
	// a DOM change to count as ready.
	navigateQuiet = 50 * time.Millisecond
	// loadGrace is how long Navigate waits for the load event of a page
	// that is ready but still loads subresources.
	loadGrace = 5 * time.Second
)

// Context is a browser context (its own cookies and storage, unless
// Options.DefaultContext) and the set of pages it holds: the first one, the
// popups and new tabs they open, and those OpenPage opens (pages.go). One
// page is current, and every call works on it. Its methods are safe for
// concurrent use, but actions on one page should not overlap.
type Context struct {
	b   *Browser
	log *slog.Logger

	mu     sync.Mutex
	closed bool
	gen    uint64               // the browser generation of bctx and pg
	sess   *session             // the browser session of bctx and pg
	bctx   cdp.BrowserContextID // the tab's browser context; "" is the default one
	pg     *tabPage             // the current page, one of pages
	pages  pageSet              // every page of the tab (pages.go)

	// origins are the origins the tab's pages visited.
	origins origins
	// loaded is the storage state LoadStorageState last loaded, loaded again
	// when Recover has to open a new browser context.
	loaded *StorageState
	// dl is where the tab's downloads go, and what they were (download.go).
	dl tabDownloads
	// judge keeps the judging world of each target (judgeworld.go).
	judge judgeWorlds
	// guards judge the documents of the tab's own pages in the person's
	// own browser (attachguard.go).
	guards guards
	// watch is the developer's view fed the pages' events (devtools.go).
	watch atomic.Pointer[devtoolsFeed]
	// castPace is the least time between two screencast frames, in
	// nanoseconds (screencast.go).
	castPace atomic.Int64
}

// tabPage is one target (page) of a tab. Recover replaces it.
type tabPage struct {
	t *Context
	// id is the target; opener the page that opened it, if one did.
	id, opener target.ID
	// handed marks a page the person handed to the tab from their own
	// tabs (handover.go): the tab detaches from it and never closes it.
	handed bool
	// info is what the browser says of the target (under t.mu).
	info pageInfo

	// ctx is the chromedp context of the target; cancel closes the target.
	ctx    context.Context
	cancel context.CancelFunc
	// live ends, with ErrTabCrashed as its cause, when the renderer
	// crashes or the target goes away; it is a child of ctx, so it also
	// ends when the browser dies. Every call runs under it.
	live context.Context
	kill context.CancelCauseFunc

	// origins is the tab's set of visited origins.
	origins *origins

	mu        sync.Mutex
	url       string
	mainFrame cdp.FrameID
	dialog    *capture.Dialog
	viewport  capture.Viewport // of the last capture
	// dialogOpened is closed when a dialog opens; a new one is made when
	// the dialog closes.
	dialogOpened chan struct{}
	// frames are the page's out-of-process frames (frames.go).
	frames *frameSet
	// docFrames are the ids of the page's frames, main frame included,
	// so that the policy's refusals of their documents are the tab's.
	docFrames map[cdp.FrameID]bool

	// mainDoc is the loader id of the main frame's document (where.go).
	mainDoc cdp.LoaderID

	// left are the password fields documents of the page reported as
	// they went away (passwords.go).
	left leftPasswords
}

// open makes the tab's page in the current browser, in the browser context
// bctx if it belongs to that browser, or in a new one.
func (t *Context) open(ctx context.Context, lastURL string) error {
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
	created := bctx == "" && !t.b.opts.DefaultContext && !t.b.opts.Attached
	if created {
		if bctx, err = t.b.createContext(ctx, s); err != nil {
			return err
		}
	}
	var window target.ID
	if t.b.opts.Attached {
		if window, err = t.openWindow(ctx, s); err != nil {
			return err
		}
	}
	p, err := t.openPage(ctx, s, bctx, window)
	if err != nil {
		if created {
			_ = t.b.disposeContext(s, bctx)
		}
		if window != "" {
			closeTarget(s, window)
		}
		return err
	}
	if lastURL != "" {
		p.setURL(lastURL, "")
	}
	t.mu.Lock()
	t.gen, t.sess, t.bctx = gen, s, bctx
	t.replaceCurrent(p, created)
	t.mu.Unlock()
	// A fresh context saves downloads nowhere until told again.
	return t.applyDownloads(ctx)
}

// openPage opens a target in the browser context bctx, or attaches to the
// existing target id (a popup), and sets it up.
func (t *Context) openPage(ctx context.Context, s *session, bctx cdp.BrowserContextID, id target.ID, extra ...chromedp.ContextOption) (*tabPage, error) {
	p := &tabPage{t: t, url: "about:blank", dialogOpened: make(chan struct{}), origins: &t.origins}
	which := chromedp.WithExistingBrowserContext(bctx)
	if id != "" {
		which = chromedp.WithTargetID(id)
	}
	p.ctx, p.cancel = chromedp.NewContext(s.root, append([]chromedp.ContextOption{which, chromedp.WithListener(p.onEvent)}, extra...)...)
	p.live, p.kill = context.WithCancelCause(p.ctx)

	if _, ok := ctx.Deadline(); !ok {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, startTimeout)
		defer c()
	}
	// The first run on p.ctx binds the target's life to p.ctx.
	if err := firstRun(ctx, p.cancel, func() error { return chromedp.Do(p.ctx) }); err != nil {
		p.cancel()
		return nil, fmt.Errorf("opening a tab: %w", err)
	}
	p.id = chromedp.FromContext(p.ctx).Target.TargetID

	detached, err := chromedp.Detached(p.ctx)
	if err != nil {
		p.cancel()
		return nil, fmt.Errorf("opening a tab: %w", err)
	}
	go func() {
		select {
		case <-detached:
			p.kill(errPageClosed)
		case <-p.ctx.Done():
		}
	}()

	if err := t.setupPage(ctx, p); err != nil {
		p.cancel()
		return nil, err
	}
	return p, nil
}

// setupPage readies a page the tab opened or adopted, before anything runs
// on it: every page of a tab, popups included, goes through here.
func (t *Context) setupPage(ctx context.Context, p *tabPage) error {
	c, cancel := within(ctx, p.live, defaultCallTimeout)
	defer cancel()
	_, err := chromedp.Call(c, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width:             int64(t.b.opts.ViewportWidth),
		Height:            int64(t.b.opts.ViewportHeight),
		DeviceScaleFactor: 1,
	})
	if err != nil {
		return fmt.Errorf("setting the viewport: %w", err)
	}
	return nil
}

// onEvent keeps the page's state. It runs in chromedp's event loop of the
// target, in the order of the events, and must not block or call the
// browser.
func (p *tabPage) onEvent(ev any) {
	p.t.devtools(p.id, p.id, ev)
	switch ev := ev.(type) {
	case *page.EventJavascriptDialogOpening:
		p.openDialog(capture.Dialog{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt})
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
			p.setDocument(ev.Frame.LoaderID)
			p.origins.add(u)
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
		p.kill(fmt.Errorf("%w (%s)", errPageClosed, ev.Reason))
	case *target.EventTargetCreated, *target.EventTargetInfoChanged, *target.EventTargetDestroyed:
		p.t.onTarget(ev)
	case *network.EventResponseReceived, *network.EventLoadingFinished, *network.EventLoadingFailed:
		p.t.dl.noteNetwork(ev) // download.go
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

// page returns the current page and the session it belongs to. A current
// page that closed gives way to its opener or the page used last.
func (t *Context) page() (*tabPage, *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.leaveClosed()
	return t.pg, t.sess
}

// URL returns the main frame's last committed URL (with its fragment; for a
// failed navigation, the URL that failed). It survives a crash, so that
// Recover can go back.
func (t *Context) URL() string {
	p, _ := t.page()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Done returns a channel that is closed when the tab's page goes away: its
// renderer crashed, it was closed from outside (a person closed its
// window), or the browser died. A page that Recover opens has a channel of
// its own.
func (t *Context) Done() <-chan struct{} {
	p, _ := t.page()
	return p.live.Done()
}

// Close closes the tab and disposes of its browser context.
func (t *Context) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	p, s, bctx := t.pg, t.sess, t.bctx
	others := t.pages.attached(p)
	all := slices.Clone(t.pages.list)
	t.mu.Unlock()
	t.b.forget(t)
	if t.b.opts.Attached {
		handed := map[target.ID]bool{}
		for _, q := range all {
			handed[q.id] = q.handed
		}
		t.stopGuards(handed)
		t.closeUnattached(s, all)
	}
	if p == nil {
		return nil
	}
	for _, o := range others {
		go o.cancel()
	}
	p.cancel()
	if err := t.b.disposeContext(s, bctx); err != nil {
		return fmt.Errorf("closing the tab: %w", err)
	}
	return nil
}

// mainFrameID is the page's main frame, "" until it is known.
func (p *tabPage) mainFrameID() cdp.FrameID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mainFrame
}
