package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// The document policy is enforced by one interceptor on the browser's own
// session: Fetch.enable there pauses the document requests of every target
// of the browser (pages, popups from their first navigation, frames in and
// out of process, each hop of a redirect) before they are sent, so no
// target has to be set up for it and none can slip through while it is
// being set up.

var (
	evRequestPaused    = cdp.Event[requestPaused]{Method: "Fetch.requestPaused"}
	cmdFetchEnable     = cdp.Command[map[string]any, json.RawMessage]{Method: "Fetch.enable"}
	cmdContinueRequest = cdp.Command[map[string]any, json.RawMessage]{Method: "Fetch.continueRequest"}
	cmdFailRequest     = cdp.Command[map[string]any, json.RawMessage]{Method: "Fetch.failRequest"}
	cmdGetTargetInfo   = cdp.Command[map[string]any, targetInfoResult]{Method: "Target.getTargetInfo"}
	cmdCloseTarget     = cdp.Command[map[string]any, json.RawMessage]{Method: "Target.closeTarget"}
	cmdActivateTarget  = cdp.Command[map[string]any, json.RawMessage]{Method: "Target.activateTarget"}
)

type requestPaused struct {
	RequestID string      `json:"requestId"`
	FrameID   cdp.FrameID `json:"frameId"`
	// RedirectedRequestID is set on a hop of a server redirect.
	RedirectedRequestID string `json:"redirectedRequestId"`
	Request             struct {
		URL         string `json:"url"`
		URLFragment string `json:"urlFragment"`
		Method      string `json:"method"`
		HasPostData bool   `json:"hasPostData"`
	} `json:"request"`
	// ResponseStatusCode is set on a request paused at its response (the
	// guards' download check, Options.Attached).
	ResponseStatusCode int `json:"responseStatusCode"`
	ResponseHeaders    []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"responseHeaders"`
}

// fetchAnswer sends a Fetch command to where a request was paused.
type fetchAnswer func(ctx context.Context, method string, params map[string]any) error

type targetInfoResult struct {
	TargetInfo struct {
		Type             string               `json:"type"`
		URL              string               `json:"url"`
		OpenerID         string               `json:"openerId"`
		Attached         bool                 `json:"attached"`
		BrowserContextID cdp.BrowserContextID `json:"browserContextId"`
	} `json:"targetInfo"`
}

const (
	// policyTimeout bounds the policy's decision on one request (it may
	// resolve a host name), and the wait for decisions under way.
	policyTimeout = 5 * time.Second
	// maxRefusals bounds the refusals kept for tabs to take; older ones
	// have been logged and are dropped.
	maxRefusals = 64
)

// Blocked is a document request the policy refused.
type Blocked struct {
	// URL is the document's origin and path; the query and fragment,
	// which may carry secrets, are left out.
	URL string
	// Reason is the policy's reason.
	Reason string
	// Page is true for a page's own navigation (the tab's, or a popup's),
	// which was abandoned so that the page stayed where it was; false for a
	// frame's document, which shows Chromium's "blocked" page instead.
	Page bool
}

// refusal is a Blocked kept until the tab it belongs to takes it.
type refusal struct {
	Blocked
	frame cdp.FrameID
	// bctx is the browser context of the frame's target, when the frame
	// is a target's (a page, a popup); empty for frames inside a page.
	bctx cdp.BrowserContextID
	// owner is the tab whose guard paused the request (Options.Attached),
	// nil when the browser's own interceptor did.
	owner *Context
}

// refusals are the refusals of a browser not taken yet, and the decisions
// under way.
type refusals struct {
	mu   sync.Mutex
	list []refusal
	// pending counts the decisions under way; idle is closed when it
	// drops to zero.
	pending int
	idle    chan struct{}
	// popups are the popups closed because their first document was
	// refused, so that Settle, which follows a popup, knows why it went.
	popups map[cdp.FrameID]bool
	// unlinked are the pages a tab's page opened with no opener
	// (Context.openedUnlinked), whose refused first document closes them
	// as a popup's does.
	unlinked map[cdp.FrameID]bool
}

// opened notes a page a tab's page opened with no opener.
func (r *refusals) opened(id cdp.FrameID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.unlinked == nil || len(r.unlinked) >= maxRefusals {
		r.unlinked = make(map[cdp.FrameID]bool)
	}
	r.unlinked[id] = true
}

// openedUnlinked reports whether r noted the page id as opened with no
// opener.
func (r *refusals) openedUnlinked(id cdp.FrameID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unlinked[id]
}

// closing notes a popup the policy is about to close.
func (r *refusals) closing(id cdp.FrameID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.popups == nil || len(r.popups) >= maxRefusals {
		r.popups = make(map[cdp.FrameID]bool)
	}
	r.popups[id] = true
}

// closedPopup reports whether the policy closed the popup with target id.
func (r *refusals) closedPopup(id cdp.FrameID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.popups[id]
}

// begin notes a decision under way; end, that it is done.
func (r *refusals) begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == 0 {
		r.idle = make(chan struct{})
	}
	r.pending++
}

func (r *refusals) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending--
	if r.pending == 0 {
		close(r.idle)
	}
}

// settled waits until no decision is under way, or ctx ends.
func (r *refusals) settled(ctx context.Context) {
	r.mu.Lock()
	idle, pending := r.idle, r.pending
	r.mu.Unlock()
	if pending == 0 {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

func (r *refusals) add(x refusal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.list) >= maxRefusals {
		r.list = r.list[1:]
	}
	r.list = append(r.list, x)
}

// take removes and returns the refusals that mine says are the caller's.
func (r *refusals) take(mine func(refusal) bool) []Blocked {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Blocked
	kept := r.list[:0]
	for _, x := range r.list {
		if mine(x) {
			out = append(out, x.Blocked)
		} else {
			kept = append(kept, x)
		}
	}
	clear(r.list[len(kept):])
	r.list = kept
	return out
}

// intercept starts enforcing Options.DocumentPolicy on every document
// request of the session's browser, for as long as the session lives.
// In the person's own browser (Options.Attached) each tab's guards judge
// its own targets instead (attachguard.go).
func (b *Browser) intercept(ctx context.Context, root context.Context) error {
	if b.opts.DocumentPolicy == nil || b.opts.Attached {
		return nil
	}
	paused := chromedp.BrowserEvents(root, evRequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			b.refused.begin()
			go func() {
				defer b.refused.end()
				b.decide(root, ev, nil, func(c context.Context, method string, params map[string]any) error {
					_, err := chromedp.CallBrowser(c, cdp.Command[map[string]any, json.RawMessage]{Method: method}, params)
					return err
				})
			}()
		}
	}()
	c, cancel := within(ctx, root, defaultCallTimeout)
	defer cancel()
	_, err := chromedp.CallBrowser(c, cmdFetchEnable, map[string]any{
		"patterns": []map[string]any{{"urlPattern": "*", "resourceType": "Document"}},
	})
	if err != nil {
		return fmt.Errorf("enabling the document policy: %w", err)
	}
	return nil
}

// decide applies the policy to one paused document request and lets it go
// or fails it. A refused page navigation fails as Aborted, which leaves the
// page where it was (BlockedByClient would replace it by an error page); a
// refused frame fails as BlockedByClient, so the frame says it was blocked.
// owner is the tab whose guard paused it (nil: the browser's interceptor),
// and answer sends Fetch's answer where the request was paused.
func (b *Browser) decide(root context.Context, ev requestPaused, owner *Context, answer fetchAnswer) {
	u := ev.Request.URL + ev.Request.URLFragment
	pc, cancel := context.WithTimeout(root, policyTimeout)
	perr := b.opts.DocumentPolicy(pc, u)
	cancel()
	if perr == nil && ev.RedirectedRequestID != "" {
		perr = b.redirects.check(ev.FrameID, u)
	}
	if perr == nil {
		perr = b.checkDocument(root, ev, owner)
	}
	// The answer has time of its own: a request left unanswered would
	// hang its page.
	c, cancel := context.WithTimeout(root, defaultCallTimeout)
	defer cancel()
	if perr == nil {
		if err := answer(c, cmdContinueRequest.Method, map[string]any{"requestId": ev.RequestID}); err != nil && root.Err() == nil {
			b.log.Debug("continuing a document request", "url", shortURL(u), "err", err)
		}
		return
	}
	r := refusal{Blocked: Blocked{URL: shortURL(u), Reason: perr.Error()}, frame: ev.FrameID, owner: owner}
	info, err := chromedp.CallBrowser(c, cmdGetTargetInfo, map[string]any{"targetId": ev.FrameID})
	if err == nil {
		r.bctx = info.TargetInfo.BrowserContextID
		r.Page = info.TargetInfo.Type == "page"
	}
	// A popup refused its first document would stay blank in front of
	// its opener, whose input then waits for frames a background page
	// does not draw: it goes.
	popup := r.Page && info.TargetInfo.OpenerID != "" && (info.TargetInfo.URL == "" || info.TargetInfo.URL == "about:blank")
	// A link a Control or middle click opened in a new tab has no opener:
	// a page no session attached to yet, whose only URL is the one
	// refused, in a context of the browser's own (the person's tabs in
	// the default context are never closed).
	unlinked := b.refused.openedUnlinked(ev.FrameID) || (!info.TargetInfo.Attached && info.TargetInfo.URL == ev.Request.URL)
	popup = popup || (r.Page && info.TargetInfo.OpenerID == "" && unlinked && !b.opts.DefaultContext && !b.opts.Attached)
	b.refused.add(r)
	if popup {
		b.refused.closing(ev.FrameID)
	}
	b.log.Info("document blocked by policy", "url", r.URL, "reason", r.Reason)
	reason := "BlockedByClient"
	if r.Page {
		reason = "Aborted"
	}
	if err := answer(c, cmdFailRequest.Method, map[string]any{"requestId": ev.RequestID, "errorReason": reason}); err != nil && root.Err() == nil {
		b.log.Debug("failing a document request", "url", r.URL, "err", err)
	}
	if popup {
		_, err := chromedp.CallBrowser(c, cmdCloseTarget, map[string]any{"targetId": ev.FrameID})
		if err == nil {
			// Its opener was sent to the background; it comes back.
			if info.TargetInfo.OpenerID != "" {
				_, err = chromedp.CallBrowser(c, cmdActivateTarget, map[string]any{"targetId": info.TargetInfo.OpenerID})
			}
		}
		if err != nil && root.Err() == nil {
			b.log.Debug("closing a refused popup", "url", r.URL, "err", err)
		}
	}
}

// TakeBlocked returns the document requests of the tab (its page, its
// frames and the popups of its browser context) that the policy refused
// since the last call, oldest first, and forgets them. It first waits, until
// ctx ends, for the decisions under way to be done (a refused popup closed).
func (t *Context) TakeBlocked(ctx context.Context) []Blocked {
	c, cancel := context.WithTimeout(ctx, policyTimeout)
	defer cancel()
	t.b.refused.settled(c)
	t.mu.Lock()
	bctx, p := t.bctx, t.pg
	t.mu.Unlock()
	// In the default context (Options.DefaultContext) the tab is the
	// browser's only one: every refusal is its.
	// In the person's own browser the tab's guards name it.
	all := t.b.opts.DefaultContext && !t.b.opts.Attached
	return t.b.refused.take(func(r refusal) bool {
		if r.owner != nil {
			return r.owner == t
		}
		return all || (r.bctx != "" && r.bctx == bctx) || (p != nil && p.hasFrame(r.frame))
	})
}

// noteFrame remembers a frame of the page, so that its refusals are the
// tab's.
func (p *tabPage) noteFrame(id cdp.FrameID) {
	p.mu.Lock()
	if p.docFrames == nil {
		p.docFrames = make(map[cdp.FrameID]bool)
	}
	p.docFrames[id] = true
	p.mu.Unlock()
}

func (p *tabPage) hasFrame(id cdp.FrameID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.docFrames[id]
}

// shortURL is u without its query and fragment (or u's scheme alone, when
// it does not parse), for logs and messages.
func shortURL(u string) string {
	x, err := url.Parse(u)
	if err != nil {
		return "(a URL that does not parse)"
	}
	x.RawQuery, x.ForceQuery, x.Fragment, x.RawFragment, x.User = "", false, "", "", nil
	if x.Opaque != "" {
		return x.Scheme + ":…"
	}
	return x.String()
}
