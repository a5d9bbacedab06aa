package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
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
func (t *Context) Settle(ctx context.Context, act func(context.Context) error, w Wait) (Outcome, error) {
	if w.Navigation <= 0 {
		w.Navigation = defaultNavigation
	}
	s, err := t.newSettler(ctx, w)
	if err != nil {
		return Outcome{}, err
	}
	defer s.stop()
	s.act(act)
	for {
		done, err := s.next()
		if done {
			return s.finish(err)
		}
		if err != nil {
			return s.out, err
		}
	}
}

// settleInPlace waits, within remaining, for a page that changed in place
// (no load) to be quiet for w.Quiet. With w.Capture it takes the result's
// capture meanwhile, and returns it only if nothing changed from the start
// of the capture to the end of the quiet window; nil otherwise, and the
// caller captures anew.
func (t *Context) settleInPlace(ctx context.Context, w Wait, remaining time.Duration) (*capture.Page, error) {
	if w.Capture == nil {
		return nil, t.WaitQuiet(ctx, w.Quiet, remaining)
	}
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
}

// readyState is what waitReadyQuiet reports of a document.
type readyState struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Loading bool   `json:"loading"`
	Changes int    `json:"changes"`
}

// readyQuiet waits until the current page's document is interactive
// (DOMContentLoaded) and then quiet for the quiet window (at most for cap),
// and says what the page is. Changes is -1 when no watch could be armed.
func (t *Context) readyQuiet(ctx context.Context, quiet, cap time.Duration) (readyState, error) {
	var st readyState
	err := t.callPage(ctx, waitReadyQuietJS, &st, quiet.Milliseconds(), cap.Milliseconds())
	return st, err
}

// adopt makes p, a page an action opened, the current page and waits,
// within limit, for its first document to commit and be interactive and
// quiet.
func (t *Context) adopt(ctx context.Context, p *tabPage, quiet, actionLimit, limit time.Duration) (readyState, error) {
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
func (t *Context) stopLoading(ctx context.Context) {
	c, cancel := t.cdp(context.WithoutCancel(ctx))
	defer cancel()
	c, cancelStop := context.WithTimeout(c, releaseTimeout)
	defer cancelStop()
	_, _ = chromedp.Call(c, page.StopLoading, cdp.Empty{})
}

// relay sends what each event ev of the target of c makes, to to, until c
// ends; an event that finds to full is dropped, so that the relay never
// outlives c.
func relay[E, T any](c context.Context, ev cdp.Event[E], to chan<- T, what func(E) T) {
	go forward(chromedp.Events(c, ev), to, what)
}

// forward sends what each event of seq makes, to to, until seq ends; an
// event that finds to full is dropped. seq ends with its context: a
// forward blocked on a full channel would never see that, and leak.
func forward[E, T any](seq iter.Seq2[E, error], to chan<- T, what func(E) T) {
	for e, err := range seq {
		if err != nil {
			return
		}
		select {
		case to <- what(e):
		default:
		}
	}
}
