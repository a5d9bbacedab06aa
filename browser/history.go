package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The navigations an agent asks for. Go, Reload and GoToHistory only start
// the navigation: run them under Settle, which follows it until the new
// document is ready. Navigate is Go under Settle, for a page no agent has
// seen yet.

// ErrNoHistory is returned by HistoryEntry when the page has no entry that
// way.
var ErrNoHistory = errors.New("no page in that direction of the history")

// HistoryEntry is one entry of a page's session history.
type HistoryEntry struct {
	ID         int64
	URL, Title string
}

// Go starts loading url in the current page. It fails when the browser
// refuses the navigation or the network fails it (the error says how, e.g.
// net::ERR_CONNECTION_REFUSED); a URL that downloads is no failure.
func (t *Context) Go(ctx context.Context, url string) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	res, err := chromedp.Call(c, page.Navigate, page.NavigateParams{URL: url})
	switch {
	case err != nil:
		return t.fail("navigating to "+url, err)
	case res.IsDownload:
		// No document comes: the file is the tab's (TakeDownloads).
		return nil
	case res.ErrorText != "":
		return fmt.Errorf("navigating to %s: %s", url, res.ErrorText)
	}
	return nil
}

// HistoryEntry returns the entry delta steps from the current one in the
// page's history (-1 is back, 1 forward), or ErrNoHistory.
func (t *Context) HistoryEntry(ctx context.Context, delta int) (HistoryEntry, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	h, err := chromedp.Call(c, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return HistoryEntry{}, t.fail("reading the history", err)
	}
	i := h.CurrentIndex + int64(delta)
	if i < 0 || i >= int64(len(h.Entries)) || h.Entries[i] == nil {
		return HistoryEntry{}, ErrNoHistory
	}
	e := h.Entries[i]
	return HistoryEntry{ID: e.ID, URL: e.URL, Title: e.Title}, nil
}

// GoToHistory starts going to the history entry id (from HistoryEntry).
func (t *Context) GoToHistory(ctx context.Context, id int64) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: id}); err != nil {
		return t.fail("going through the history", err)
	}
	return nil
}

// Reload starts reloading the current page.
func (t *Context) Reload(ctx context.Context) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, page.Reload, page.ReloadParams{}); err != nil {
		return t.fail("reloading", err)
	}
	return nil
}

// Navigate opens url in the current page and waits for it the way Settle
// waits for an action's navigation: until the new document has committed,
// is interactive and has been quiet for a moment; then for its load event,
// for at most loadGrace more. Slow subresources (an ad, a tracking pixel)
// never make it fail. An alert on the way is accepted; a confirm or prompt
// is left open for the next capture to show. It fails on a network error,
// a document the URL policy refuses, and when nothing is interactive by
// ctx's deadline or, without one, after 10 s.
func (t *Context) Navigate(ctx context.Context, url string) error {
	limit := defaultNavigation
	if dl, ok := ctx.Deadline(); ok {
		limit = time.Until(dl)
	}
	out, err := t.Settle(ctx, func(ctx context.Context) error { return t.Go(ctx, url) },
		Wait{Quiet: navigateQuiet, Limit: limit, Navigation: limit})
	if err != nil {
		if b := t.TakeBlocked(ctx); len(b) > 0 {
			return fmt.Errorf("navigating to %s: blocked by policy: %s", b[0].URL, b[0].Reason)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("navigating to %s: %w", url, err)
		}
		return err // Go's, which names the URL
	}
	if out.Loading && out.Dialog == nil {
		// No agent has seen this page yet: give its frames and images a
		// moment to finish, so that the first capture is whole; a page
		// that takes longer is used as it is.
		_ = t.callPage(ctx, waitLoadedJS, nil, loadGrace.Milliseconds())
	}
	return nil
}
