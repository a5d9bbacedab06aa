package browser

import (
	"context"
	"errors"
	"slices"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// The bookkeeping of a tab's pages: which joined, which is current, which
// closed and who takes over; the signal Settle waits on when they change.
// Every function here that says so runs with the tab's mu held.

// pageInfo is what the browser says of a page's target.
type pageInfo struct {
	title, url string
	// gone is set when the target was destroyed.
	gone bool
	// seq orders the pages by when they joined; used by when they were
	// last current.
	seq, used uint64
}

// pageSet is the tab's pages, in the order they joined, and the change
// signal that Settle waits on. It is guarded by the tab's mu.
type pageSet struct {
	list  []*tabPage
	clock uint64
	// changed is closed when a page joins, changes or goes; a new one
	// replaces it.
	changed chan struct{}
}

// signal wakes whoever waits for a change of the pages.
func (s *pageSet) signal() {
	if s.changed != nil {
		close(s.changed)
	}
	s.changed = make(chan struct{})
}

// watch returns the channel closed at the next change.
func (s *pageSet) watch() <-chan struct{} {
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

func (s *pageSet) tick() uint64 {
	s.clock++
	return s.clock
}

func (s *pageSet) find(id target.ID) int {
	if id == "" {
		return -1
	}
	return slices.IndexFunc(s.list, func(p *tabPage) bool { return p.id == id })
}

// attached returns the attached pages other than but.
func (s *pageSet) attached(but *tabPage) []*tabPage {
	var ps []*tabPage
	for _, p := range s.list {
		if p != but && p.ctx != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// replaceCurrent makes p the current page in place of the one it replaces
// (Recover's fresh page, or the tab's first page); fresh says the browser
// context is new, which leaves no other page. t.mu is held.
func (t *Context) replaceCurrent(p *tabPage, fresh bool) {
	p.info.seq = t.pages.tick()
	p.info.used = p.info.seq
	if fresh {
		for _, o := range t.pages.attached(t.pg) {
			go o.cancel()
		}
		t.pages.list = nil
	}
	if i := slices.Index(t.pages.list, t.pg); i >= 0 && t.pg != nil {
		p.opener = t.pg.opener
		t.pages.list[i] = p
	} else {
		t.pages.list = append(t.pages.list, p)
	}
	t.pg = p
	t.pages.signal()
}

// onTarget follows the browser's targets: a page that one of the tab's
// pages opened joins the tab; the title, URL and end of its pages are
// noted. It runs in a page's event loop (every page of the tab reports
// every target), so it must not block.
func (t *Context) onTarget(ev any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev := ev.(type) {
	case *target.EventTargetCreated:
		in := ev.TargetInfo
		if in == nil || in.Type != "page" || t.pages.find(in.TargetID) >= 0 {
			return
		}
		opener := in.OpenerID
		if t.pages.find(opener) < 0 {
			if !t.openedUnlinked(in) {
				return
			}
			// A link opened in a new tab by a Control or middle click
			// has no opener: the page current when it came stands in.
			opener = t.pg.id
			t.b.refused.opened(cdp.FrameID(in.TargetID))
		}
		seq := t.pages.tick()
		t.pages.list = append(t.pages.list, &tabPage{t: t, id: in.TargetID, opener: opener,
			info: pageInfo{title: unmark(in.Title), url: in.URL, seq: seq}})
		t.guardPopup(in.TargetID)
	case *target.EventTargetInfoChanged:
		i := t.pages.find(ev.TargetInfo.TargetID)
		if i < 0 {
			return
		}
		info := &t.pages.list[i].info
		info.title, info.url = unmark(ev.TargetInfo.Title), ev.TargetInfo.URL
	case *target.EventTargetDestroyed:
		i := t.pages.find(ev.TargetID)
		if i < 0 {
			return
		}
		t.pages.list[i].info.gone = true
	default:
		return
	}
	t.pages.signal()
}

// openedUnlinked reports whether in is a page one of the tab's pages
// opened with no opener (a link a Control or middle click opens in a new
// tab, or a window opened with noopener): a page of the tab's own browser
// context, which no other tab shares, that the browser created at a URL.
// The pages the tab opens itself start blank and join it as they open;
// in the default context and in the person's own browser other tabs are
// not the session's. t.mu is held.
func (t *Context) openedUnlinked(in *target.Info) bool {
	if t.bctx == "" || in.BrowserContextID != t.bctx || t.b.opts.DefaultContext || t.b.opts.Attached || t.pg == nil {
		return false
	}
	return in.URL != "" && in.URL != "about:blank"
}

// closedPage reports whether p has closed: its target is gone, or its
// session ended with no crash while the browser lives. t.mu is held.
func (t *Context) closedPage(p *tabPage) bool {
	if p.info.gone {
		return true
	}
	if p.live == nil || p.live.Err() == nil || t.sess == nil || t.sess.root.Err() != nil {
		return false
	}
	cause := context.Cause(p.live)
	return errors.Is(cause, errPageClosed)
}

// leaveClosed drops the pages that closed and, when the current page is one
// of them, makes its opener current, or else the page used last, among the
// attached pages. A tab with no other attached page keeps its current page,
// dead, for Recover. t.mu is held.
func (t *Context) leaveClosed() {
	if t.closed || len(t.pages.list) < 2 {
		return
	}
	var keep []*tabPage
	for _, p := range t.pages.list {
		if !t.closedPage(p) {
			keep = append(keep, p)
		}
	}
	if len(keep) == len(t.pages.list) {
		return
	}
	next := t.pg
	if !slices.Contains(keep, t.pg) {
		next = t.successor(t.pg, keep)
		if next == nil {
			return
		}
	}
	for _, p := range t.pages.list {
		if !slices.Contains(keep, p) && p.ctx != nil {
			go p.cancel()
		}
		if !slices.Contains(keep, p) && p.handed {
			go t.stopGuard(p.id)
		}
	}
	t.pages.list = keep
	if next != t.pg {
		t.use(next)
	}
	t.pages.signal()
}

// successor is the attached page among pages that takes over from p: its
// opener, or else the page used last; nil if none is attached. t.mu is held.
func (t *Context) successor(p *tabPage, pages []*tabPage) *tabPage {
	var next *tabPage
	for _, q := range pages {
		if q == p || q.ctx == nil || t.closedPage(q) {
			continue
		}
		if q.id == p.opener {
			return q
		}
		if next == nil || q.info.used > next.info.used {
			next = q
		}
	}
	return next
}

// use makes an attached page current. t.mu is held.
func (t *Context) use(p *tabPage) {
	t.pg = p
	p.info.used = t.pages.tick()
}

// gone reports whether p has left the tab (it closed), and describes it.
func (t *Context) gone(p *tabPage) (PageInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.leaveClosed()
	if slices.Contains(t.pages.list, p) {
		return PageInfo{}, false
	}
	info := PageInfo{Index: -1, Title: p.info.title, URL: p.info.url}
	if p.ctx != nil {
		info.URL = p.currentURL()
	}
	return info, true
}

// pagesState returns the current page, the clock (pages that join later
// have a higher seq) and the channel closed at the next change.
func (t *Context) pagesState() (*tabPage, uint64, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.leaveClosed()
	return t.pg, t.pages.clock, t.pages.watch()
}

// openedSince returns the first page that joined after the clock read
// since, opened by one of the tab's pages, or nil.
func (t *Context) openedSince(since uint64) *tabPage {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.pages.list {
		if p.info.seq > since && p.opener != "" && !p.info.gone {
			return p
		}
	}
	return nil
}

// committedURL returns the URL the browser reports for the page with id
// ("" while no document has committed), whether the page is still there,
// and the channel closed at the pages' next change.
func (t *Context) committedURL(id target.ID) (string, bool, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch := t.pages.watch()
	i := t.pages.find(id)
	if i < 0 || t.pages.list[i].info.gone {
		return "", false, ch
	}
	return t.pages.list[i].info.url, true, ch
}
