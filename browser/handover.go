package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The tab picker: in the person's own browser (Options.Attached) the
// person may hand the agent one of their own tabs, from the approval
// console. The person's tabs are listed for the person only (PersonTabs,
// which the console shows behind its capability, never a tool); a tab
// handed over joins one session's pages as a popup joins them, and becomes
// its current page; from then on it is that session's, and no other
// session's nor the person's list holds it. Leaving it (the session ends,
// or the agent closes the page) detaches from it: the tab is the person's
// and stays open.

// PersonTab is one of the person's own tabs, as the browser reports it.
// Title and URL are the page's: a person reads them escaped.
type PersonTab struct {
	// ID names the tab for HandOver; it means nothing outside this
	// browser.
	ID    string
	Title string
	URL   string
}

// Errors of the tab picker.
var (
	// ErrNotAttached is returned when the browser is not the person's own
	// (Options.Attached): there are no tabs of theirs to hand over.
	ErrNotAttached = errors.New("only the person's own browser (--connect) has tabs of theirs to hand over")
	// ErrNotPersonTab is returned for a tab that is not one of the
	// person's: unknown, closed, or already a session's.
	ErrNotPersonTab = errors.New("not one of the person's own tabs (closed, or already handed over)")
)

// PersonTabs lists the person's own tabs: the pages of the browser's
// default context that are no session's (neither a page a session opened
// nor one handed to it), and no DevTools window. Only in the person's own
// browser (Options.Attached). It is for the person alone: nothing of it may
// reach an agent.
func (b *Browser) PersonTabs(ctx context.Context) ([]PersonTab, error) {
	if !b.opts.Attached {
		return nil, ErrNotAttached
	}
	s, _, err := b.current()
	if err != nil {
		return nil, fmt.Errorf("listing the person's tabs: %w", err)
	}
	c, cancel := within(ctx, s.root, defaultCallTimeout)
	defer cancel()
	res, err := chromedp.CallBrowser(c, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, fmt.Errorf("listing the person's tabs: %w", err)
	}
	// The contexts made with Target.createBrowserContext (the isolated
	// sessions', another client's) are not the person's profile.
	made, err := chromedp.CallBrowser(c, target.GetBrowserContexts, struct{}{})
	if err != nil {
		return nil, fmt.Errorf("listing the person's tabs: %w", err)
	}
	sessions := b.sessionTargets()
	var out []PersonTab
	for _, in := range res.TargetInfos {
		switch {
		case in.Type != "page", sessions[in.TargetID], slices.Contains(made.BrowserContextIDs, in.BrowserContextID),
			strings.HasPrefix(in.URL, "devtools:"):
			continue
		}
		out = append(out, PersonTab{ID: string(in.TargetID), Title: in.Title, URL: in.URL})
	}
	return out, nil
}

// sessionTargets are the targets of every session's pages.
func (b *Browser) sessionTargets() map[target.ID]bool {
	b.mu.Lock()
	tabs := make([]*Context, 0, len(b.tabs))
	for t := range b.tabs {
		tabs = append(tabs, t)
	}
	b.mu.Unlock()
	ids := map[target.ID]bool{}
	for _, t := range tabs {
		t.mu.Lock()
		for _, p := range t.pages.list {
			ids[p.id] = true
		}
		t.mu.Unlock()
	}
	return ids
}

// Attached reports whether t is in the person's own browser
// (Options.Attached).
func (t *Context) Attached() bool { return t.b.opts.Attached }

// PersonTabs lists the person's own tabs of the browser t is in (see
// Browser.PersonTabs).
func (t *Context) PersonTabs(ctx context.Context) ([]PersonTab, error) {
	return t.b.PersonTabs(ctx)
}

// HandOver makes the person's tab id one of t's pages, and current, as the
// person chose in the console; it returns what the page is. Only one of the
// person's tabs (PersonTabs) can be handed over, once.
func (t *Context) HandOver(ctx context.Context, id string) (PageInfo, error) {
	tabs, err := t.b.PersonTabs(ctx)
	if err != nil {
		return PageInfo{}, fmt.Errorf("handing a tab over: %w", err)
	}
	i := slices.IndexFunc(tabs, func(p PersonTab) bool { return p.ID == id })
	if i < 0 {
		return PageInfo{}, fmt.Errorf("handing a tab over: %w", ErrNotPersonTab)
	}
	p, err := t.claim(tabs[i])
	if err != nil {
		return PageInfo{}, fmt.Errorf("handing a tab over: %w", err)
	}
	// Judged and marked like the agent's own window before the agent can
	// act in it: from here on the URL policy holds there too.
	t.mu.Lock()
	s := t.sess
	t.mu.Unlock()
	err = t.guardPage(ctx, s, p.id)
	var q *tabPage
	if err == nil {
		q, err = t.attach(ctx, p)
	}
	if err != nil {
		t.stopGuard(p.id)
		t.mu.Lock()
		if j := t.pages.find(p.id); j >= 0 && t.pages.list[j].ctx == nil {
			t.pages.list = slices.Delete(t.pages.list, j, j+1)
		}
		t.mu.Unlock()
		return PageInfo{}, fmt.Errorf("handing a tab over: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.use(q)
	t.pages.signal()
	return t.infoOf(slices.Index(t.pages.list, q), q), nil
}

// claim adds the person's tab to t's pages, not yet attached, unless a
// session holds it already: under the browser's lock, so that two sessions
// cannot both take one tab.
func (t *Context) claim(tab PersonTab) (*tabPage, error) {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	id := target.ID(tab.ID)
	for o := range t.b.tabs {
		if o == t {
			continue
		}
		o.mu.Lock()
		held := o.pages.find(id) >= 0
		o.mu.Unlock()
		if held {
			return nil, ErrNotPersonTab
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || t.sess == nil {
		return nil, ErrClosed
	}
	if t.pages.find(id) >= 0 {
		return nil, ErrNotPersonTab
	}
	p := &tabPage{t: t, id: id, handed: true, info: pageInfo{title: tab.Title, url: tab.URL, seq: t.pages.tick()}}
	t.pages.list = append(t.pages.list, p)
	return p, nil
}
