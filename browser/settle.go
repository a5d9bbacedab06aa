package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

var (
	evWindowOpen    = cdp.Event[json.RawMessage]{Method: "Page.windowOpen"}
	evDialogOpening = cdp.Event[dialogOpening]{Method: "Page.javascriptDialogOpening"}
	cmdHandleDialog = cdp.Command[map[string]any, json.RawMessage]{Method: "Page.handleJavaScriptDialog"}
)

// loadEvent is one of a page's loading events, in the order the browser
// sent them: a frame that started or stopped loading, or the main
// document's DOMContentLoaded (frame is empty).
type loadEvent struct {
	frame   cdp.FrameID
	started bool
}

// watchLoads sends the loading events of the target of c to to, in order,
// until c ends; an event that finds to full is dropped. The order matters:
// a frame's stop seen before its start would end a wait for a load that
// has not begun.
func watchLoads(c context.Context, to chan<- loadEvent) error {
	return chromedp.Listen(c, func(ev any) {
		var e loadEvent
		switch ev := ev.(type) {
		case *page.EventFrameStartedLoading:
			e = loadEvent{frame: ev.FrameID, started: true}
		case *page.EventFrameStoppedLoading:
			e = loadEvent{frame: ev.FrameID}
		case *page.EventDomContentEventFired:
		default:
			return
		}
		select {
		case to <- e:
		default:
		}
	})
}

// dialogOpening is the payload of Page.javascriptDialogOpening, with the
// dialog type as a plain string.
type dialogOpening struct {
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"defaultPrompt"`
}

// navigationReport bounds how long after a document goes away its
// replacement's first loading event may take to arrive.
const navigationReport = 500 * time.Millisecond

// defaultNavigation is Wait.Navigation when it is not set.
const defaultNavigation = 10 * time.Second

// Outcome is what followed an action.
type Outcome struct {
	// Waited is how long the wait after the action took.
	Waited time.Duration
	// Alerts holds the messages of alerts the page showed; each was
	// accepted, since an alert asks nothing.
	Alerts []string
	// Dialog is a confirm, prompt or beforeunload dialog the action opened
	// and left for the agent to answer.
	Dialog *capture.Dialog
	// Capture is the page captured while it settled in place, with no
	// change from the start of the capture to the end of the quiet window
	// (only when Wait.Capture asked for it); nil when the page changed
	// meanwhile, the action navigated, or another page became current.
	Capture *capture.Page
	// Loading says that the action's new document is interactive and quiet
	// but its subresources (images, scripts, frames) still load: what a
	// capture shows may change.
	Loading bool
	// Opened is the page the action opened (a popup or new tab), now the
	// current page; nil when it opened none.
	Opened *PageInfo
	// Closed is the page that closed during the action (it was current);
	// its opener, or the page used last, is current now.
	Closed *PageInfo
}

// Wait says how Settle waits after an action.
type Wait struct {
	// Quiet is how long the page must go without a DOM change or a scroll
	// to count as settled in place; Limit caps the action and, when it
	// navigates nowhere, the wait.
	Quiet, Limit time.Duration
	// Navigation caps the wait for a navigation the action started, from
	// its start until the new document has committed, its DOM is
	// interactive (DOMContentLoaded) and it is quiet: slow subresources
	// never make it fail (Outcome.Loading). The same holds for a popup the
	// action opened. Zero means 10 s.
	Navigation time.Duration
	// Capture, when set, has the result's capture taken while the page
	// settles in place, kept only if nothing changed from its start to the
	// end of the quiet window (Outcome.Capture).
	Capture *CaptureOptions
	// FirstChange makes that capture wait, for at most the quiet window,
	// for the action's first change: a scroll lands a frame after its input.
	FirstChange bool
}

// Settle runs act and then waits for what it started. A navigation (a frame
// started loading) is followed, within w.Navigation, until the new document
// is interactive and quiet, or every frame stopped loading, whichever comes
// first; a popup or new tab the action opened becomes the current page and
// is waited for the same way; otherwise the page must be quiet for w.Quiet,
// within w.Limit. An alert that opens meanwhile is accepted and reported; a
// confirm, prompt or beforeunload dialog ends the wait and is left open for
// the agent. An act error is returned as it is; an act that outlasts
// w.Limit, a settle in place past it, or a navigation that commits no
// interactive document within w.Navigation returns an error wrapping
// context.DeadlineExceeded.
func (t *Tab) Settle(ctx context.Context, act func(context.Context) error, w Wait) (Outcome, error) {
	if w.Navigation <= 0 {
		w.Navigation = defaultNavigation
	}
	if w.Capture == nil {
		return t.settle(ctx, act, w, func(ctx context.Context, remaining time.Duration) (*capture.Page, error) {
			return nil, t.WaitQuiet(ctx, w.Quiet, remaining)
		})
	}
	return t.settle(ctx, act, w, func(ctx context.Context, remaining time.Duration) (*capture.Page, error) {
		start := time.Now()
		if err := t.armQuiet(ctx); err != nil {
			return nil, fmt.Errorf("wait for the page to settle: %w", err)
		}
		before := 0
		if w.FirstChange {
			var err error
			if before, err = t.firstChange(ctx, w.Quiet); err != nil {
				return nil, fmt.Errorf("wait for the page to change: %w", err)
			}
		}
		c, cerr := t.Capture(ctx, *w.Capture)
		after, err := t.quiet(ctx, w.Quiet, remaining-time.Since(start), false)
		if err != nil {
			return nil, fmt.Errorf("wait for the page to settle: %w", err)
		}
		if cerr != nil || before < 0 || after != before {
			return nil, nil // changed while captured: the caller captures anew
		}
		return c, nil
	})
}

// readyState is what waitReadyQuiet reports of a document.
type readyState struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Loading bool   `json:"loading"`
	Changes int    `json:"changes"`
}

// settle runs act and follows what it started; inPlace waits for a page
// that changed in place (no load) to settle, within the time remaining.
func (t *Tab) settle(ctx context.Context, act func(context.Context) error, w Wait,
	inPlace func(ctx context.Context, remaining time.Duration) (*capture.Page, error)) (Outcome, error) {
	startPage, since, pagesChanged := t.pagesState()
	c, cancel := t.cdp(ctx)
	defer cancel()
	loads := make(chan loadEvent, 256)
	if err := watchLoads(c, loads); err != nil {
		return Outcome{}, fmt.Errorf("watch the page load: %w", err)
	}
	dialogs := make(chan capture.Dialog, 8)
	signal := func(json.RawMessage) struct{} { return struct{}{} }
	// The page asks for a new window before the browser reports the new
	// target: the wait holds out for it.
	windowOpen := make(chan struct{}, 8)
	relay(c, evWindowOpen, windowOpen, signal)
	dseq := chromedp.Events(c, evDialogOpening)
	go func() {
		for d, err := range dseq {
			if err != nil {
				return
			}
			dialogs <- capture.Dialog{Type: d.Type, Message: d.Message, DefaultPrompt: d.DefaultPrompt}
		}
	}()

	var out Outcome
	// onDialog answers an alert and reports whether a dialog now waits for
	// the agent.
	onDialog := func(d capture.Dialog) bool {
		if d.Type != "alert" {
			out.Dialog = &d
			startPage.openDialog(d)
			return true
		}
		out.Alerts = append(out.Alerts, d.Message)
		_, _ = chromedp.Call(c, cmdHandleDialog, map[string]any{"accept": true})
		return false
	}

	// The action runs beside the watch: an alert blocks the input event
	// that opened it until it is answered.
	actDone := make(chan error, 1)
	actCtx, actCancel := context.WithCancel(ctx)
	defer actCancel()
	go func() { actDone <- act(actCtx) }()
	deadline := time.NewTimer(w.Limit)
	defer deadline.Stop()
	var navDeadline <-chan time.Time

	// One loop follows the action through its phases: acting, then either
	// loading (a frame started loading: wait until the new document is
	// interactive and quiet, or every frame that started has stopped),
	// settling in place (a quiet-DOM watch in the page), or following a
	// page the action opened. A navigation reported before the input is
	// acknowledged is counted while acting; one that begins during the
	// quiet watch ends the watch, and the loop follows the load.
	begin := time.Now()
	acting, navigating, expectPage := true, false, false
	// loading holds the frames that started loading since the action
	// began and have not stopped.
	loading := map[cdp.FrameID]bool{}
	// The in-place phase ends with the settle, whichever way it ends, or
	// when another page becomes current.
	phaseCtx, phaseCancel := context.WithCancel(ctx)
	defer phaseCancel()
	// The watch in place ends too when a navigation begins: its capture
	// would be of a page on its way out, and would hold up the new one's.
	inPlaceCtx, inPlaceCancel := context.WithCancel(phaseCtx)
	defer inPlaceCancel()
	type inPlaceResult struct {
		capture *capture.Page
		err     error
	}
	type readyResult struct {
		state readyState
		err   error
	}
	var quietDone chan inPlaceResult
	var readyDone chan readyResult
	var opened chan readyResult
	var openedPage *tabPage
	var navGrace <-chan time.Time
	navStart := time.Now()
	finish := func(err error) (Outcome, error) {
		out.Waited = time.Since(begin)
		if info, gone := t.gone(startPage); gone && openedPage == nil {
			out.Closed, out.Capture = &info, nil
		}
		return out, err
	}
	// follow starts waiting for the new document of the page after it
	// became interactive.
	follow := func() {
		remaining := w.Navigation - time.Since(navStart)
		readyDone = make(chan readyResult, 1)
		go func() {
			qctx, qcancel := context.WithTimeout(phaseCtx, remaining)
			defer qcancel()
			st, err := t.readyQuiet(qctx, w.Quiet, min(w.Limit, remaining))
			readyDone <- readyResult{st, err}
		}()
	}
	startNavigation := func() {
		if !navigating {
			navigating, navStart = true, time.Now()
			navDeadline = time.After(w.Navigation)
		}
	}
	for {
		select {
		case err := <-actDone:
			if _, gone := t.gone(startPage); err != nil && gone {
				return finish(nil) // the action closed the page
			}
			if err != nil {
				return out, err
			}
			acting, begin = false, time.Now()
			if !navigating && openedPage == nil {
				quietDone = make(chan inPlaceResult, 1)
				remaining := w.Limit - time.Since(begin)
				go func() {
					qctx, qcancel := context.WithTimeout(inPlaceCtx, remaining)
					defer qcancel()
					c, err := inPlace(qctx, remaining)
					quietDone <- inPlaceResult{c, err}
				}()
			}
		case <-windowOpen:
			if openedPage == nil {
				expectPage = true
				inPlaceCancel()
				startNavigation()
			}
		case e := <-loads:
			switch {
			case e.frame == "": // DOMContentLoaded of the main document
				if openedPage == nil && !expectPage {
					startNavigation()
					follow()
				}
			case e.started:
				loading[e.frame] = true
				startPage.mu.Lock()
				main := startPage.mainFrame
				startPage.mu.Unlock()
				if main != "" && e.frame != main {
					// A frame inside the page loads: the page itself
					// settles in place, and says so if the frame still
					// loads then.
					continue
				}
				inPlaceCancel()
				startNavigation()
			case !loading[e.frame]:
				// A load that began before the action: not its own.
			default:
				delete(loading, e.frame)
				switch {
				case len(loading) > 0 || openedPage != nil || !navigating || expectPage:
				case !acting:
					return finish(nil) // loaded, subresources and all
				default:
					// Loaded before the input was acknowledged (a page
					// from the back-forward cache): what follows is in
					// place.
					navigating, navDeadline = false, nil
				}
			}
		case res := <-readyDone:
			readyDone = nil
			if openedPage != nil || expectPage {
				continue
			}
			if res.err == nil && res.state.Changes >= 0 {
				out.Loading = len(loading) > 0 || res.state.Loading
				return finish(nil)
			}
			// The document went away meanwhile: the next one's events
			// follow, or the navigation deadline ends the wait.
		case res := <-quietDone:
			quietDone = nil
			err := res.err
			switch {
			case navigating || openedPage != nil:
				continue // a navigation began, or a page opened: follow it
			case err == nil:
				out.Capture, out.Loading = res.capture, len(loading) > 0
				return finish(nil)
			case errors.Is(err, context.DeadlineExceeded) || time.Since(begin) >= w.Limit:
				return finish(fmt.Errorf("the page did not settle within %s: %w", w.Limit, context.DeadlineExceeded))
			}
			// The watch ended with its document: a navigation replaced it,
			// and its first loading event may still be on the way.
			navGrace = time.After(navigationReport)
		case <-navGrace:
			// The document went away but nothing loads: what replaced it
			// is there already.
			return finish(nil)
		case <-pagesChanged:
			_, _, pagesChanged = t.pagesState()
			if openedPage != nil {
				continue
			}
			if p := t.openedSince(since); p != nil {
				// The action opened a page: it becomes current, and the
				// wait follows it instead.
				openedPage = p
				phaseCancel()
				startNavigation()
				opened = make(chan readyResult, 1)
				go func() {
					st, err := t.adopt(ctx, p, w.Quiet, w.Limit, w.Navigation-time.Since(navStart))
					opened <- readyResult{st, err}
				}()
				continue
			}
			if _, gone := t.gone(startPage); gone {
				return finish(nil) // the page closed: finish says so
			}
		case res := <-opened:
			if res.err != nil && (t.b.refused.closedPopup(cdp.FrameID(openedPage.id)) || t.downloadedFrom(ctx, cdp.FrameID(openedPage.id))) {
				// The policy refused the popup's first document and
				// closed it, or the popup became a download and the
				// browser closed it: the page that opened it stays
				// current.
				t.mu.Lock()
				if i := t.pages.find(openedPage.id); i >= 0 {
					t.pages.list[i].info.gone = true
				}
				t.leaveClosed()
				t.pages.signal()
				t.mu.Unlock()
				return finish(nil)
			}
			cur := t.Current()
			out.Opened = &cur
			if res.state.URL != "" {
				cur.Title, cur.URL = res.state.Title, res.state.URL
			}
			if res.err != nil {
				return finish(res.err)
			}
			out.Loading = res.state.Loading
			return finish(nil)
		case d := <-dialogs:
			if onDialog(d) {
				return finish(nil)
			}
		case <-navDeadline:
			if openedPage != nil {
				continue // adopt has its own deadline
			}
			t.stopLoading(ctx)
			what := "no new document committed and became interactive"
			if readyDone != nil {
				what = "the new page did not become quiet"
			}
			return finish(fmt.Errorf("%s within %s: %w", what, w.Navigation, context.DeadlineExceeded))
		case <-deadline.C:
			switch {
			case acting && !navigating && openedPage == nil:
				// A navigation the action began but nothing reported yet
				// would commit after the answer: the page stays put.
				t.stopLoading(ctx)
				return finish(fmt.Errorf("the action did not finish within %s: %w", w.Limit, context.DeadlineExceeded))
			case !navigating && openedPage == nil:
				return finish(fmt.Errorf("the page did not settle within %s: %w", w.Limit, context.DeadlineExceeded))
			}
			// A navigation or a new page has its own deadline.
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}

// relay sends what each event ev of the target of c makes, to to, until c
// ends; an event that finds to full is dropped.
func relay[E, T any](c context.Context, ev cdp.Event[E], to chan<- T, what func(E) T) {
	seq := chromedp.Events(c, ev)
	go func() {
		for e, err := range seq {
			if err != nil {
				return
			}
			select {
			case to <- what(e):
			default:
			}
		}
	}()
}

// readyQuiet waits until the current page's document is interactive
// (DOMContentLoaded) and then quiet for the quiet window (at most for cap),
// and says what the page is. Changes is -1 when no watch could be armed.
func (t *Tab) readyQuiet(ctx context.Context, quiet, cap time.Duration) (readyState, error) {
	var st readyState
	err := t.callPage(ctx, waitReadyQuietJS, &st, quiet.Milliseconds(), cap.Milliseconds())
	return st, err
}

// adopt makes p, a page an action opened, the current page and waits,
// within limit, for its first document to commit and be interactive and
// quiet.
func (t *Tab) adopt(ctx context.Context, p *tabPage, quiet, actionLimit, limit time.Duration) (readyState, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	q, err := t.attach(ctx, p)
	if err != nil {
		return readyState{}, err
	}
	t.mu.Lock()
	t.use(q)
	t.pages.signal()
	t.mu.Unlock()
	for {
		u, ok, changed := t.committedURL(q.id)
		if !ok {
			return readyState{}, fmt.Errorf("the new page closed before it loaded: %w", errPageClosed)
		}
		if u != "" {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return readyState{}, fmt.Errorf("the new page committed no document within %s: %w", limit, context.DeadlineExceeded)
		}
	}
	for {
		st, err := t.readyQuiet(ctx, quiet, actionLimit)
		switch {
		case err == nil && st.Changes >= 0 && st.URL != "about:blank":
			return st, nil
		case ctx.Err() != nil:
			return st, fmt.Errorf("the new page did not become interactive within %s: %w", limit, context.DeadlineExceeded)
		case err == nil:
			// The initial empty document, about to be replaced: wait for
			// the one that committed.
			if u, _, _ := t.committedURL(q.id); u == "about:blank" {
				return st, nil
			}
		}
		// The document went away while watched: the next one follows.
		select {
		case <-time.After(quiet):
		case <-ctx.Done():
		}
	}
}

// stopLoading stops a navigation that overran its time, so that the page
// stays where it was (or where the navigation got to).
func (t *Tab) stopLoading(ctx context.Context) {
	c, cancel := t.cdp(context.WithoutCancel(ctx))
	defer cancel()
	c, cancelStop := context.WithTimeout(c, releaseTimeout)
	defer cancelStop()
	_, _ = chromedp.Call(c, page.StopLoading, cdp.Empty{})
}
