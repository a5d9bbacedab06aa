package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// settler follows one action through its phases: acting, then either
// loading (a frame started loading: wait until the new document is
// interactive and quiet, or every frame that started has stopped),
// settling in place (a quiet-DOM watch in the page), or following a page
// the action opened. A navigation reported before the input is
// acknowledged is counted while acting; one that begins during the quiet
// watch ends the watch, and the settler follows the load.
//
// Every event, and every result of the waits it starts, arrives on a
// channel that Settle's loop reads (next); each has one method, which
// reports whether the settle is over. Only that loop touches the settler's
// fields; the goroutines it starts each send on a channel of their own.
type settler struct {
	t   *Context
	w   Wait
	ctx context.Context // the caller's; it bounds everything
	c   context.Context // protocol calls and events on the page
	out Outcome

	start *tabPage        // the page current when the action began
	since uint64          // the pages' clock then: later pages have a higher seq
	pages <-chan struct{} // closed at the pages' next change

	loads      chan loadEvent      // the page's loading events, in order
	dialogs    chan capture.Dialog // dialogs opening
	windowOpen chan struct{}       // the page asked for a new window
	acted      chan error          // the action's end
	quietDone  chan inPlaceResult  // the watch in place, once started
	readyDone  chan readyResult    // the new document's wait, once started
	opened     chan readyResult    // the wait for the page the action opened

	deadline    *time.Timer      // w.Limit, from the start
	navDeadline <-chan time.Time // w.Navigation, from the navigation's start
	navGrace    <-chan time.Time // the report of a navigation that replaced the watched document

	begin, navStart time.Time
	acting          bool // the action has not returned yet
	navigating      bool // a navigation (or a new page) is followed
	expectPage      bool // the page asked for a window that has not joined yet
	// loading holds the frames that started loading since the action
	// began and have not stopped.
	loading    map[cdp.FrameID]bool
	openedPage *tabPage // the page the action opened, once it joined

	// phaseCtx ends the in-place phase when the settle ends, or when another
	// page becomes current; inPlaceCtx, its child, ends the watch in place
	// when a navigation begins too: its capture would be of a page on its
	// way out, and would hold up the new one's.
	phaseCtx, inPlaceCtx       context.Context
	phaseCancel, inPlaceCancel context.CancelFunc
	cancels                    []context.CancelFunc
}

// inPlaceResult is what the watch in place found.
type inPlaceResult struct {
	capture *capture.Page
	err     error
}

// readyResult is what a wait for a new document found.
type readyResult struct {
	state readyState
	err   error
}

// newSettler starts watching the current page's events for an action that
// is about to run.
func (t *Context) newSettler(ctx context.Context, w Wait) (*settler, error) {
	s := &settler{t: t, w: w, ctx: ctx, loading: map[cdp.FrameID]bool{}, acting: true}
	s.start, s.since, s.pages = t.pagesState()
	c, cancel := t.cdp(ctx)
	s.c = c
	s.cancels = append(s.cancels, cancel)
	s.loads = make(chan loadEvent, 256)
	if err := watchLoads(c, s.loads); err != nil {
		cancel()
		return nil, fmt.Errorf("watch the page load: %w", err)
	}
	// The page asks for a new window before the browser reports the new
	// target: the wait holds out for it.
	s.windowOpen = make(chan struct{}, 8)
	relay(c, evWindowOpen, s.windowOpen, func(json.RawMessage) struct{} { return struct{}{} })
	s.dialogs = make(chan capture.Dialog, 8)
	relay(c, evDialogOpening, s.dialogs, func(d dialogOpening) capture.Dialog {
		return capture.Dialog{Type: d.Type, Message: d.Message, DefaultPrompt: d.DefaultPrompt}
	})
	return s, nil
}

// act runs the action beside the watch: an alert blocks the input event
// that opened it until it is answered.
func (s *settler) act(act func(context.Context) error) {
	s.acted = make(chan error, 1)
	actCtx, actCancel := context.WithCancel(s.ctx)
	go func() { s.acted <- act(actCtx) }()
	s.deadline = time.NewTimer(s.w.Limit)
	s.begin, s.navStart = time.Now(), time.Now()
	s.phaseCtx, s.phaseCancel = context.WithCancel(s.ctx)
	s.inPlaceCtx, s.inPlaceCancel = context.WithCancel(s.phaseCtx)
	s.cancels = append(s.cancels, actCancel, func() { s.deadline.Stop() }, s.phaseCancel, s.inPlaceCancel)
}

// stop ends every watch and wait the settle started.
func (s *settler) stop() {
	for i := len(s.cancels) - 1; i >= 0; i-- {
		s.cancels[i]()
	}
}

// next waits for the next event and handles it. done says the settle is
// over, with err as its error; an error without done (the action's own, or
// ctx's) is returned as it is.
func (s *settler) next() (done bool, err error) {
	select {
	case err := <-s.acted:
		return s.onActed(err)
	case <-s.windowOpen:
		s.onWindowOpen()
	case e := <-s.loads:
		return s.onLoad(e), nil
	case res := <-s.readyDone:
		return s.onReady(res), nil
	case res := <-s.quietDone:
		return s.onQuiet(res)
	case <-s.navGrace:
		// The document went away but nothing loads: what replaced it is
		// there already.
		return true, nil
	case <-s.pages:
		return s.onPagesChanged(), nil
	case res := <-s.opened:
		return true, s.onOpened(res)
	case d := <-s.dialogs:
		return s.onDialog(d), nil
	case <-s.navDeadline:
		return s.onNavigationDeadline()
	case <-s.deadline.C:
		return s.onDeadline()
	case <-s.ctx.Done():
		return false, s.ctx.Err()
	}
	return false, nil
}

// finish completes the outcome of a settle that is over.
func (s *settler) finish(err error) (Outcome, error) {
	s.out.Waited = time.Since(s.begin)
	if info, gone := s.t.gone(s.start); gone && s.openedPage == nil {
		s.out.Closed, s.out.Capture = &info, nil
	}
	return s.out, err
}

// onActed follows the action's end: unless a navigation or a new page is
// followed already, the page must now settle in place.
func (s *settler) onActed(err error) (bool, error) {
	if _, gone := s.t.gone(s.start); err != nil && gone {
		return true, nil // the action closed the page
	}
	if err != nil {
		return false, err
	}
	s.acting, s.begin = false, time.Now()
	if s.navigating || s.openedPage != nil {
		return false, nil
	}
	done := make(chan inPlaceResult, 1)
	s.quietDone = done
	remaining := s.w.Limit - time.Since(s.begin)
	go func() {
		qctx, qcancel := context.WithTimeout(s.inPlaceCtx, remaining)
		defer qcancel()
		c, err := s.t.settleInPlace(qctx, s.w, remaining)
		done <- inPlaceResult{c, err}
	}()
	return false, nil
}

// onWindowOpen holds out for the page the action asked for.
func (s *settler) onWindowOpen() {
	if s.openedPage == nil {
		s.expectPage = true
		s.inPlaceCancel()
		s.startNavigation()
	}
}

// startNavigation starts the navigation's deadline, once.
func (s *settler) startNavigation() {
	if !s.navigating {
		s.navigating, s.navStart = true, time.Now()
		s.navDeadline = time.After(s.w.Navigation)
	}
}

// onLoad follows the frames that load: a main frame that starts loading is
// a navigation, whose new document is followed once it is interactive.
func (s *settler) onLoad(e loadEvent) bool {
	switch {
	case e.frame == "": // DOMContentLoaded of the main document
		if s.openedPage == nil && !s.expectPage {
			s.startNavigation()
			s.followDocument()
		}
	case e.started:
		s.loading[e.frame] = true
		if main := s.start.mainFrameID(); main != "" && e.frame != main {
			// A frame inside the page loads: the page itself settles in
			// place, and says so if the frame still loads then.
			return false
		}
		s.inPlaceCancel()
		s.startNavigation()
	case !s.loading[e.frame]:
		// A load that began before the action: not its own.
	default:
		delete(s.loading, e.frame)
		switch {
		case len(s.loading) > 0 || s.openedPage != nil || !s.navigating || s.expectPage:
		case !s.acting:
			return true // loaded, subresources and all
		default:
			// Loaded before the input was acknowledged (a page from the
			// back-forward cache): what follows is in place.
			s.navigating, s.navDeadline = false, nil
		}
	}
	return false
}

// followDocument waits for the new document of the page, which became
// interactive, to be quiet.
func (s *settler) followDocument() {
	remaining := s.w.Navigation - time.Since(s.navStart)
	// A document that replaces this one starts a wait of its own; the
	// result of this one then goes unread.
	done := make(chan readyResult, 1)
	s.readyDone = done
	go func() {
		qctx, qcancel := context.WithTimeout(s.phaseCtx, remaining)
		defer qcancel()
		st, err := s.t.readyQuiet(qctx, s.w.Quiet, min(s.w.Limit, remaining))
		done <- readyResult{st, err}
	}()
}

// onReady ends the settle once the new document is interactive and quiet.
func (s *settler) onReady(res readyResult) bool {
	s.readyDone = nil
	if s.openedPage != nil || s.expectPage {
		return false
	}
	if res.err == nil && res.state.Changes >= 0 {
		s.out.Loading = len(s.loading) > 0 || res.state.Loading
		return true
	}
	// The document went away meanwhile: the next one's events follow, or
	// the navigation deadline ends the wait.
	return false
}

// onQuiet ends the settle once the page is quiet in place, unless a
// navigation or a new page took over meanwhile.
func (s *settler) onQuiet(res inPlaceResult) (bool, error) {
	s.quietDone = nil
	switch {
	case s.navigating || s.openedPage != nil:
		return false, nil // a navigation began, or a page opened: follow it
	case res.err == nil:
		s.out.Capture, s.out.Loading = res.capture, len(s.loading) > 0
		return true, nil
	case errors.Is(res.err, context.DeadlineExceeded) || time.Since(s.begin) >= s.w.Limit:
		return true, fmt.Errorf("the page did not settle within %s: %w", s.w.Limit, context.DeadlineExceeded)
	}
	// The watch ended with its document: a navigation replaced it, and its
	// first loading event may still be on the way.
	s.navGrace = time.After(navigationReport)
	return false, nil
}

// onPagesChanged follows a page the action opened, which becomes current,
// and ends the settle when the action closed its page.
func (s *settler) onPagesChanged() bool {
	_, _, s.pages = s.t.pagesState()
	if s.openedPage != nil {
		return false
	}
	if p := s.t.openedSince(s.since); p != nil {
		s.followOpened(p)
		return false
	}
	_, gone := s.t.gone(s.start)
	return gone // the page closed: finish says so
}

// followOpened makes p, the page the action opened, current, and waits for
// its first document instead.
func (s *settler) followOpened(p *tabPage) {
	s.openedPage = p
	s.phaseCancel()
	s.startNavigation()
	limit := s.w.Navigation - time.Since(s.navStart)
	done := make(chan readyResult, 1)
	s.opened = done
	go func() {
		st, err := s.t.adopt(s.ctx, p, s.w.Quiet, s.w.Limit, limit)
		done <- readyResult{st, err}
	}()
}

// onOpened ends the settle on the page the action opened.
func (s *settler) onOpened(res readyResult) error {
	t, id := s.t, cdp.FrameID(s.openedPage.id)
	if res.err != nil && (t.b.refused.closedPopup(id) || t.downloadedFrom(s.ctx, id)) {
		// The policy refused the popup's first document and closed it, or
		// the popup became a download and the browser closed it: the page
		// that opened it stays current.
		t.mu.Lock()
		if i := t.pages.find(s.openedPage.id); i >= 0 {
			t.pages.list[i].info.gone = true
		}
		t.leaveClosed()
		t.pages.signal()
		t.mu.Unlock()
		return nil
	}
	cur := t.Current()
	s.out.Opened = &cur
	if res.state.URL != "" {
		cur.Title, cur.URL = res.state.Title, res.state.URL
	}
	if res.err != nil {
		return res.err
	}
	s.out.Loading = res.state.Loading
	return nil
}

// onDialog answers an alert and reports whether a dialog now waits for the
// agent, which ends the settle.
func (s *settler) onDialog(d capture.Dialog) bool {
	if d.Type != "alert" {
		s.out.Dialog = &d
		s.start.openDialog(d)
		return true
	}
	s.out.Alerts = append(s.out.Alerts, d.Message)
	_, _ = chromedp.Call(s.c, cmdHandleDialog, map[string]any{"accept": true})
	return false
}

// onNavigationDeadline stops a navigation that overran w.Navigation.
func (s *settler) onNavigationDeadline() (bool, error) {
	if s.openedPage != nil {
		return false, nil // adopt has its own deadline
	}
	s.t.stopLoading(s.ctx)
	what := "no new document committed and became interactive"
	if s.readyDone != nil {
		what = "the new page did not become quiet"
	}
	return true, fmt.Errorf("%s within %s: %w", what, s.w.Navigation, context.DeadlineExceeded)
}

// onDeadline ends an action, or a settle in place, that overran w.Limit.
func (s *settler) onDeadline() (bool, error) {
	switch {
	case s.acting && !s.navigating && s.openedPage == nil:
		// A navigation the action began but nothing reported yet would
		// commit after the answer: the page stays put.
		s.t.stopLoading(s.ctx)
		return true, fmt.Errorf("the action did not finish within %s: %w", s.w.Limit, context.DeadlineExceeded)
	case !s.navigating && s.openedPage == nil:
		return true, fmt.Errorf("the page did not settle within %s: %w", s.w.Limit, context.DeadlineExceeded)
	}
	// A navigation or a new page has its own deadline.
	return false, nil
}
