package browser

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// A page's handler may change where a form goes after the server judged it
// (a keypress, click or submit handler rewrites form.action, or submits
// another form), so the document requests an action causes are judged again
// at the interceptor, as Chromium is about to send them. WatchDocuments arms
// that check for the window of an action's input and settle.

// Document is a document request the browser is about to send.
type Document struct {
	// URL is the request's URL, fragment included.
	URL string
	// Method is the HTTP method; a document is sent with another method
	// than GET only by a form.
	Method string
	// HasBody says that the request carries a body: a form's POST.
	HasBody bool
	// Redirect says that the request is a hop of a server redirect.
	Redirect bool
	// Main says that the request navigates the tab's page itself (its main
	// frame), not a frame inside it or a popup.
	Main bool
}

// documentChecks are the checks armed by WatchDocuments, by tab.
type documentChecks struct {
	mu sync.Mutex
	m  map[*Context]func(Document) error
}

// WatchDocuments judges, with check, every document request of the tab (its
// page, its frames, the popups of its browser context) until the returned
// function is called: an error refuses the request, which then fails as the
// document policy's refusals fail, and TakeBlocked reports it. It needs the
// document policy's interceptor (Options.DocumentPolicy); without it, check
// is not called.
func (t *Context) WatchDocuments(check func(Document) error) (stop func()) {
	r := &t.b.documents
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = make(map[*Context]func(Document) error)
	}
	r.m[t] = check
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.m, t)
	}
}

// checkDocument judges the paused document request ev by the check of the
// tab it belongs to: nil when no armed tab owns it. owner, when not nil, is
// the tab whose guard paused it (Options.Attached), the only one it can be.
func (b *Browser) checkDocument(ctx context.Context, ev requestPaused, owner *Context) error {
	b.documents.mu.Lock()
	armed := make(map[*Context]func(Document) error, len(b.documents.m))
	for t, check := range b.documents.m {
		armed[t] = check
	}
	b.documents.mu.Unlock()
	if len(armed) == 0 {
		return nil
	}
	d := Document{
		URL:      ev.Request.URL + ev.Request.URLFragment,
		Method:   ev.Request.Method,
		HasBody:  ev.Request.HasPostData,
		Redirect: ev.RedirectedRequestID != "",
	}
	var bctx cdp.BrowserContextID
	looked := false
	if owner != nil {
		check, ok := armed[owner]
		if !ok {
			return nil
		}
		armed = map[*Context]func(Document) error{owner: check}
	}
	for t, check := range armed {
		p, _, tb := t.context()
		main := p != nil && (cdp.FrameID(p.id) == ev.FrameID || p.mainFrameID() == ev.FrameID)
		owns := main || owner != nil || b.opts.DefaultContext || (p != nil && p.hasFrame(ev.FrameID))
		if !owns && tb != "" {
			if !looked {
				looked = true
				c, cancel := context.WithTimeout(ctx, defaultCallTimeout)
				info, err := chromedp.CallBrowser(c, cmdGetTargetInfo, map[string]any{"targetId": ev.FrameID})
				cancel()
				if err == nil {
					bctx = info.TargetInfo.BrowserContextID
				}
			}
			owns = bctx == tb
		}
		if owns {
			d.Main = main
			return check(d)
		}
	}
	return nil
}
