package browser

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
)

// A server redirect of a navigation the agent asked for is a request the
// agent's URL caused: the server may pass on, to another site, what the
// agent wrote into a URL of its own site. GoChecked lets the caller judge
// each hop at the interceptor, before the browser sends it, as it judged
// the URL itself.

// redirectChecks are the checks on the redirects of navigations under way,
// by the frame that navigates.
type redirectChecks struct {
	mu sync.Mutex
	m  map[cdp.FrameID]func(url string) error
}

// watch judges the redirects of frames with check until the returned
// function is called.
func (r *redirectChecks) watch(frames []cdp.FrameID, check func(url string) error) (stop func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = make(map[cdp.FrameID]func(string) error)
	}
	for _, f := range frames {
		r.m[f] = check
	}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, f := range frames {
			delete(r.m, f)
		}
	}
}

// check judges a redirect hop of frame to url: nil when no check watches
// the frame.
func (r *redirectChecks) check(frame cdp.FrameID, url string) error {
	r.mu.Lock()
	check := r.m[frame]
	r.mu.Unlock()
	if check == nil {
		return nil
	}
	return check(url)
}

// GoChecked is Go, with check judging every server redirect of the
// navigation before the browser follows it: an error refuses that hop,
// which fails as the document policy's refusals fail (the page stays where
// it was; TakeBlocked reports it, the error's text the reason). It needs the
// document policy's interceptor (Options.DocumentPolicy); without it,
// check is not called.
func (t *Context) GoChecked(ctx context.Context, url string, check func(url string) error) error {
	if p, _ := t.page(); p != nil && check != nil {
		frames := []cdp.FrameID{cdp.FrameID(p.id)}
		if main := p.mainFrameID(); main != "" && main != frames[0] {
			frames = append(frames, main)
		}
		defer t.b.redirects.watch(frames, check)()
	}
	return t.Go(ctx, url)
}
