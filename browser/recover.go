package browser

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Err reports why the tab cannot be used: nil while it is alive; an error
// wrapping ErrTabCrashed when its renderer crashed or the target went away,
// ErrBrowserGone when the browser died or was relaunched, or ErrClosed after
// Close. A caller that gets an error from any method can ask Err whether
// Recover would help.
func (t *Context) Err() error {
	t.mu.Lock()
	closed, gen, s, p := t.closed, t.gen, t.sess, t.pg
	t.mu.Unlock()
	if closed {
		return fmt.Errorf("tab: %w", ErrClosed)
	}
	_, cur, err := t.b.current()
	switch {
	case err != nil:
		return err
	case cur != gen || s.root.Err() != nil:
		return t.b.gone()
	case p.live.Err() != nil:
		if cause := context.Cause(p.live); errors.Is(cause, ErrTabCrashed) {
			return cause
		}
		return ErrTabCrashed
	}
	return nil
}

// Alive reports whether the tab can be used; see Err.
func (t *Context) Alive() bool { return t.Err() == nil }

// fail wraps err, from an operation op, with the reason the tab is unusable,
// if any.
func (t *Context) fail(op string, err error) error {
	if terr := t.Err(); terr != nil && !errors.Is(err, terr) {
		return fmt.Errorf("%s: %w: %w", op, terr, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Recover replaces the tab's page with a fresh one and goes back to the
// last URL. When the browser died, it relaunches it (or reconnects) first,
// in a new browser context, and restarted is true; when only the renderer
// crashed, the new page opens in the tab's browser context, which keeps
// cookies and storage; a storage state the tab loaded is loaded again into
// a new context. It works on a live tab too, replacing a hung page.
// lastURL is where the page was; err reports a failure to reopen, or to
// load lastURL (the tab is usable then, and URL still says lastURL).
func (t *Context) Recover(ctx context.Context) (restarted bool, lastURL string, err error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return false, "", fmt.Errorf("recover: tab %w", ErrClosed)
	}
	old, gen, s := t.pg, t.gen, t.sess
	t.mu.Unlock()
	lastURL = t.URL()

	_, cur, err := t.b.current()
	if err != nil {
		return false, lastURL, fmt.Errorf("recover: %w", err)
	}
	if cur == gen && s.root.Err() != nil {
		if err := t.b.relaunch(ctx, gen); err != nil {
			return false, lastURL, fmt.Errorf("recover: %w", err)
		}
	}
	_, cur, _ = t.b.current()
	restarted = cur != gen

	// Close the old target in the background: on a dead browser or renderer
	// that can take until chromedp's close timeout.
	go old.cancel()

	if err := t.open(ctx, lastURL); err != nil {
		return restarted, lastURL, fmt.Errorf("recover: %w", err)
	}
	t.mu.Lock()
	loaded := t.loaded
	t.mu.Unlock()
	if restarted && loaded != nil {
		if err := t.LoadStorageState(ctx, *loaded); err != nil {
			return restarted, lastURL, fmt.Errorf("recover: %w", err)
		}
	}
	t.log.Info("tab recovered", "restarted", restarted, "url", lastURL)
	if lastURL == "" || lastURL == "about:blank" {
		return restarted, lastURL, nil
	}
	if err := t.Navigate(ctx, lastURL); err != nil {
		p, _ := t.page()
		p.setURL(lastURL, "")
		return restarted, lastURL, fmt.Errorf("recover: %w", err)
	}
	return restarted, lastURL, nil
}

// CrashRenderer crashes the tab's renderer (Page.crash) and waits until the
// tab notices. It exists for tests of crash recovery.
func (t *Context) CrashRenderer(ctx context.Context) error {
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	defer cancel()
	// Page.crash never answers; the call ends with the crash.
	go func() { _, _ = chromedp.Call(c, page.Crash, cdp.Empty{}) }()
	select {
	case <-p.live.Done():
		return nil
	case <-c.Done():
		return fmt.Errorf("crashing the renderer: %w", c.Err())
	}
}
