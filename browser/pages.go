package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A tab's browser context may hold several pages: the one it opened, the
// popups and new tabs its pages opened (target=_blank links, window.open,
// forms with a target), and pages opened with OpenPage. One of them is
// current: every call of the tab works on it. A popup an action opens
// becomes current (Settle follows it); when the current page closes, its
// opener, or else the page used last, becomes current.
//
// Each page of the session reports the targets of the browser
// (Target.setDiscoverTargets, which chromedp turns on): a page target whose
// opener is one of the tab's pages joins the tab at once, as a page not yet
// attached, and is attached when it becomes current.

// PageInfo describes one page of a tab.
type PageInfo struct {
	// Index is the page's place in Pages, in the order the pages opened.
	Index int
	// Title and URL are the page's, as the browser last reported them.
	Title, URL string
	// Current marks the page the tab works on.
	Current bool
}

// Errors of the calls on a tab's pages.
var (
	// ErrNoSuchPage is returned for an index that names no page.
	ErrNoSuchPage = errors.New("no page at that index")
	// ErrLastPage is returned by ClosePage for the tab's only page.
	ErrLastPage = errors.New("the tab's only page cannot be closed")
)

// errPageClosed is the cause of a page's end when its target went away
// while its renderer had not crashed: the page closed (window.close, or
// closed from outside). It is an ErrTabCrashed, so that a tab left without
// any page recovers as before.
var errPageClosed = fmt.Errorf("%w: the page was closed", ErrTabCrashed)

// refreshTimeout bounds the look at the browser's targets that Pages and
// Current take: a title changes without an event.
const refreshTimeout = 2 * time.Second

// refresh reads the titles and URLs of the tab's pages from the browser; on
// failure the last ones reported stay.
func (t *Context) refresh() {
	t.mu.Lock()
	s := t.sess
	t.mu.Unlock()
	if s == nil || s.root.Err() != nil {
		return
	}
	if t.b.opts.Attached {
		t.refreshAttached(s)
		return
	}
	c, cancel := context.WithTimeout(s.root, refreshTimeout)
	defer cancel()
	res, err := chromedp.CallBrowser(c, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, in := range res.TargetInfos {
		if i := t.pages.find(in.TargetID); i >= 0 {
			info := &t.pages.list[i].info
			info.title, info.url = in.Title, in.URL
		}
	}
}

// Pages lists the tab's pages, in the order they opened.
func (t *Context) Pages() []PageInfo {
	t.refresh()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.leaveClosed()
	infos := make([]PageInfo, len(t.pages.list))
	for i, p := range t.pages.list {
		infos[i] = t.infoOf(i, p)
	}
	return infos
}

// infoOf describes the page p at index i. t.mu is held.
func (t *Context) infoOf(i int, p *tabPage) PageInfo {
	in := PageInfo{Index: i, Title: p.info.title, URL: p.info.url, Current: p == t.pg}
	if p.ctx != nil {
		if u := p.currentURL(); u != "" && u != "about:blank" {
			in.URL = u
		}
	}
	return in
}

// currentURL is the page's URL as its own events say.
func (p *tabPage) currentURL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Current describes the current page.
func (t *Context) Current() PageInfo {
	t.refresh()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.leaveClosed()
	return t.infoOf(slices.Index(t.pages.list, t.pg), t.pg)
}

// SwitchTo makes the page at index i (of Pages) current, attaching to it
// first if the tab has not yet.
func (t *Context) SwitchTo(ctx context.Context, i int) error {
	t.mu.Lock()
	t.leaveClosed()
	if i < 0 || i >= len(t.pages.list) {
		n := len(t.pages.list)
		t.mu.Unlock()
		return fmt.Errorf("switching to page %d: %w (the tab has %d)", i, ErrNoSuchPage, n)
	}
	p := t.pages.list[i]
	t.mu.Unlock()
	p, err := t.attach(ctx, p)
	if err != nil {
		return fmt.Errorf("switching to page %d: %w", i, err)
	}
	t.mu.Lock()
	t.use(p)
	t.pages.signal()
	t.mu.Unlock()
	c, cancel := t.cdp(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, page.BringToFront, struct{}{}); err != nil {
		return t.fail("bringing the page to the front", err)
	}
	return nil
}

// attach attaches to a page the tab knows of but has no session with yet
// (a popup), sets it up, and puts it in the place of the one it stands for.
// An attached page is returned as it is.
func (t *Context) attach(ctx context.Context, p *tabPage) (*tabPage, error) {
	t.mu.Lock()
	s, bctx := t.sess, t.bctx
	t.mu.Unlock()
	if p.ctx != nil {
		return p, nil
	}
	var extra []chromedp.ContextOption
	if p.handed {
		// The person's own tab: leaving it detaches, never closes it.
		extra = append(extra, chromedp.WithDetachOnCancel())
	}
	q, err := t.openPage(ctx, s, bctx, p.id, extra...)
	if err != nil {
		return nil, fmt.Errorf("attaching to page %s: %w", p.id, err)
	}
	// What committed before the attach sent no event the page heard.
	c, cancel := within(ctx, q.live, defaultCallTimeout)
	tree, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	cancel()
	if err != nil {
		go q.cancel()
		return nil, fmt.Errorf("attaching to page %s: %w", p.id, err)
	}
	if f := tree.FrameTree.Frame; f != nil {
		q.setURL(f.URL+f.URLFragment, f.ID)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	i := t.pages.find(p.id)
	if i < 0 {
		// It closed meanwhile.
		go q.cancel()
		return nil, fmt.Errorf("attaching to page %s: %w", p.id, errPageClosed)
	}
	cur := t.pages.list[i]
	q.opener, q.info, q.handed = cur.opener, cur.info, cur.handed
	t.pages.list[i] = q
	if t.pg == cur {
		t.use(q)
	}
	return q, nil
}

// ClosePage closes the page at index i (of Pages); closing the current
// page makes its opener, or else the page used last, current. The tab's
// only page cannot be closed (ErrLastPage): close the tab instead.
func (t *Context) ClosePage(ctx context.Context, i int) error {
	t.mu.Lock()
	t.leaveClosed()
	n := len(t.pages.list)
	if i < 0 || i >= n {
		t.mu.Unlock()
		return fmt.Errorf("closing page %d: %w (the tab has %d)", i, ErrNoSuchPage, n)
	}
	if n == 1 {
		t.mu.Unlock()
		return fmt.Errorf("closing page %d: %w", i, ErrLastPage)
	}
	p, s := t.pages.list[i], t.sess
	var next *tabPage
	if p == t.pg && t.successor(p, t.pages.list) == nil {
		// Nothing attached takes over: attach the page that will.
		next = t.pages.list[0]
		if next == p {
			next = t.pages.list[1]
		}
	}
	t.mu.Unlock()
	if next != nil {
		if _, err := t.attach(ctx, next); err != nil {
			return fmt.Errorf("closing page %d: %w", i, err)
		}
	}
	t.mu.Lock()
	attached := p.ctx != nil
	p.info.gone = true
	t.leaveClosed()
	t.mu.Unlock()
	if attached || p.handed {
		return nil // leaveClosed closed it, or left the person's tab open
	}
	c, cancel := within(ctx, s.root, closeTimeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(c, target.CloseTarget, target.CloseTargetParams{TargetID: p.id}); err != nil {
		return fmt.Errorf("closing page %d: %w", i, err)
	}
	return nil
}

// OpenPage opens a new, blank page in the tab's browser context and makes
// it current; Navigate or Settle with Go loads something into it.
func (t *Context) OpenPage(ctx context.Context) error {
	t.mu.Lock()
	s, bctx := t.sess, t.bctx
	t.mu.Unlock()
	var window target.ID
	if t.b.opts.Attached {
		// A new tab would open in whichever window was used last, which
		// may be the person's: the page gets a window of its own.
		var err error
		if window, err = t.openWindow(ctx, s); err != nil {
			return fmt.Errorf("opening a page: %w", err)
		}
	}
	p, err := t.openPage(ctx, s, bctx, window)
	if err != nil {
		if window != "" {
			closeTarget(s, window)
		}
		return fmt.Errorf("opening a page: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p.info.seq = t.pages.tick()
	p.info.url = "about:blank"
	t.pages.list = append(t.pages.list, p)
	t.use(p)
	t.pages.signal()
	return nil
}
