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

var (
	evFrameStartedLoading = cdp.Event[json.RawMessage]{Method: "Page.frameStartedLoading"}
	evFrameStoppedLoading = cdp.Event[json.RawMessage]{Method: "Page.frameStoppedLoading"}
	evDialogOpening       = cdp.Event[dialogOpening]{Method: "Page.javascriptDialogOpening"}
	cmdHandleDialog       = cdp.Command[map[string]any, json.RawMessage]{Method: "Page.handleJavaScriptDialog"}
)

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
	// meanwhile or the action navigated.
	Capture *capture.Page
}

// Wait says how Settle waits after an action.
type Wait struct {
	// Quiet is how long the page must go without a DOM change or a scroll
	// to count as settled in place; Limit caps the action and the wait.
	Quiet, Limit time.Duration
	// Capture, when set, has the result's capture taken while the page
	// settles in place, kept only if nothing changed from its start to the
	// end of the quiet window (Outcome.Capture).
	Capture *CaptureOptions
	// FirstChange makes that capture wait, for at most the quiet window,
	// for the action's first change: a scroll lands a frame after its input.
	FirstChange bool
}

// Settle runs act and then waits, within w.Limit, for what it started: when
// a frame started loading, until every frame that started has stopped
// loading; otherwise until the page has been quiet for w.Quiet. An alert that
// opens meanwhile is accepted and reported; a confirm, prompt or beforeunload
// dialog ends the wait and is left open for the agent. An act error is
// returned as it is; a wait past the limit returns an error wrapping
// context.DeadlineExceeded.
func (t *Tab) Settle(ctx context.Context, act func(context.Context) error, w Wait) (Outcome, error) {
	if w.Capture == nil {
		return t.settle(ctx, act, w.Limit, func(ctx context.Context, remaining time.Duration) (*capture.Page, error) {
			return nil, t.WaitQuiet(ctx, w.Quiet, remaining)
		})
	}
	return t.settle(ctx, act, w.Limit, func(ctx context.Context, remaining time.Duration) (*capture.Page, error) {
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

// settle runs act and follows what it started; inPlace waits for a page
// that changed in place (no load) to settle, within the time remaining.
func (t *Tab) settle(ctx context.Context, act func(context.Context) error, limit time.Duration,
	inPlace func(ctx context.Context, remaining time.Duration) (*capture.Page, error)) (Outcome, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	started := make(chan struct{}, 64)
	stopped := make(chan struct{}, 64)
	dialogs := make(chan capture.Dialog, 8)
	forward := func(ev cdp.Event[json.RawMessage], to chan<- struct{}) {
		seq := chromedp.Events(c, ev)
		go func() {
			for _, err := range seq {
				if err != nil {
					return
				}
				select {
				case to <- struct{}{}:
				default:
				}
			}
		}()
	}
	forward(evFrameStartedLoading, started)
	forward(evFrameStoppedLoading, stopped)
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
	deadline := time.NewTimer(limit)
	defer deadline.Stop()

	// One loop follows the action through its phases: acting, then either
	// loading (a frame started loading: wait until every frame that started
	// has stopped) or settling in place (a quiet-DOM watch in the page). A
	// navigation reported before the input is acknowledged is counted while
	// acting; one that begins during the quiet watch ends the watch, and the
	// loop follows the load.
	begin := time.Now()
	acting, loading := true, 0
	// The in-place phase ends with the settle, whichever way it ends.
	phaseCtx, phaseCancel := context.WithCancel(ctx)
	defer phaseCancel()
	type inPlaceResult struct {
		capture *capture.Page
		err     error
	}
	var quietDone chan inPlaceResult
	var navGrace <-chan time.Time
	finish := func(err error) (Outcome, error) {
		out.Waited = time.Since(begin)
		return out, err
	}
	for {
		select {
		case err := <-actDone:
			if err != nil {
				return out, err
			}
			acting, begin = false, time.Now()
			if loading == 0 {
				quietDone = make(chan inPlaceResult, 1)
				remaining := limit - time.Since(begin)
				go func() {
					qctx, qcancel := context.WithTimeout(phaseCtx, remaining)
					defer qcancel()
					c, err := inPlace(qctx, remaining)
					quietDone <- inPlaceResult{c, err}
				}()
			}
		case <-started:
			loading++
		case <-stopped:
			if loading > 0 {
				loading--
			}
			if !acting && loading == 0 {
				return finish(nil)
			}
		case res := <-quietDone:
			quietDone = nil
			err := res.err
			switch {
			case loading > 0:
				continue // a navigation began: follow its load
			case err == nil:
				out.Capture = res.capture
				return finish(nil)
			case errors.Is(err, context.DeadlineExceeded) || time.Since(begin) >= limit:
				return finish(fmt.Errorf("the page did not settle within %s: %w", limit, context.DeadlineExceeded))
			}
			// The watch ended with its document: a navigation replaced it,
			// and its first loading event may still be on the way.
			navGrace = time.After(navigationReport)
		case <-navGrace:
			// The document went away but nothing loads: what replaced it
			// is there already.
			return finish(nil)
		case d := <-dialogs:
			if onDialog(d) {
				return finish(nil)
			}
		case <-deadline.C:
			what := "the page did not finish loading"
			switch {
			case acting:
				what = "the action did not finish"
			case loading == 0:
				what = "the page did not settle"
			}
			return finish(fmt.Errorf("%s within %s: %w", what, limit, context.DeadlineExceeded))
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
}
