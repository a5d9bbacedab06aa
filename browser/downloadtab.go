package browser

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A tab's side of downloads: where its context saves them, the downloads
// it holds for the next action's result, and the navigations that turned
// into downloads (download.go has the browser's side).

// tabDownloads is a tab's download settings and what its pages downloaded.
type tabDownloads struct {
	opts DownloadOptions
	// mu guards the lists; opts is set once, before any download.
	mu sync.Mutex
	// pending are the downloads no action took yet, oldest first.
	pending []*download
	// recent are the last downloads that ended, oldest first.
	recent []Download
	// docs are the frames of navigation responses seen and not yet failed,
	// by request id.
	docs map[network.RequestID]cdp.FrameID
	// expected are downloads announced by a navigation whose response
	// the browser turned into a download: the page hears of that before
	// the browser reports the download.
	expected []expectation
	// arrived is closed, and replaced, when a download is held.
	arrived chan struct{}
	// from are the frames downloads began in, lately.
	from map[cdp.FrameID]bool
}

// expectation is a download a frame's navigation announced.
type expectation struct {
	frame cdp.FrameID
	at    time.Time
}

// hasFrame reports whether frame is one of the tab's pages (a page's main
// frame has its target's id), one of their frames, or one of their
// out-of-process frames.
func (t *Context) hasFrame(frame cdp.FrameID) bool {
	t.mu.Lock()
	pages := append([]*tabPage(nil), t.pages.list...)
	if t.pg != nil && t.pages.find(t.pg.id) < 0 {
		pages = append(pages, t.pg)
	}
	t.mu.Unlock()
	for _, p := range pages {
		if p.id == target.ID(frame) || p.hasFrame(frame) {
			return true
		}
		if p.frames != nil {
			p.frames.mu.Lock()
			_, ok := p.frames.byTarget[target.ID(frame)]
			p.frames.mu.Unlock()
			if ok {
				return true
			}
		}
	}
	return false
}

// hold notes a download of the tab for the next TakeDownloads; false when
// the tab holds too many already.
func (td *tabDownloads) hold(d *download) bool {
	td.mu.Lock()
	defer td.mu.Unlock()
	if i := slices.IndexFunc(td.expected, func(e expectation) bool { return e.frame == d.frame }); i >= 0 {
		td.expected = slices.Delete(td.expected, i, i+1)
	}
	if td.arrived != nil {
		close(td.arrived)
		td.arrived = nil
	}
	if td.from == nil || len(td.from) >= maxPendingDownloads {
		td.from = make(map[cdp.FrameID]bool)
	}
	td.from[d.frame] = true
	if len(td.pending) >= maxPendingDownloads {
		return false
	}
	td.pending = append(td.pending, d)
	return true
}

// downloadedFrom reports whether a download of the tab began in frame (a
// popup's, whose window the browser closes once it turns into a download),
// counting every download the browser reported before the call.
func (t *Context) downloadedFrom(ctx context.Context, frame cdp.FrameID) bool {
	t.syncDownloads(ctx)
	t.dl.mu.Lock()
	defer t.dl.mu.Unlock()
	return t.dl.from[frame]
}

// syncDownloads makes sure every download the browser reported before the
// call is routed to its tab.
func (t *Context) syncDownloads(ctx context.Context) {
	_, s, _ := t.context()
	if s != nil {
		c, cancel := within(ctx, s.root, defaultCallTimeout)
		// A round trip: the listener sees every event sent before its
		// reply.
		_, _ = chromedp.CallBrowser(c, cdpbrowser.GetVersion, cdp.Empty{})
		cancel()
	}
	for _, r := range t.b.dl.unrouted() {
		select {
		case <-r:
		case <-ctx.Done():
		}
	}
}

// noteNetwork follows the navigation requests of a page of the tab: one
// whose response came and which then failed as canceled, with no empty
// status, became a download (a Content-Disposition attachment, a type the
// browser does not show). It runs in the page's event loop and must not
// block.
func (td *tabDownloads) noteNetwork(ev any) {
	td.mu.Lock()
	defer td.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventResponseReceived:
		if ev.Type != network.ResourceTypeDocument || string(ev.RequestID) != string(ev.LoaderID) || ev.Response == nil ||
			ev.Response.Status == http.StatusNoContent || ev.Response.Status == http.StatusResetContent {
			return
		}
		if td.docs == nil || len(td.docs) >= maxPendingDownloads {
			td.docs = make(map[network.RequestID]cdp.FrameID)
		}
		td.docs[ev.RequestID] = ev.FrameID
	case *network.EventLoadingFinished:
		delete(td.docs, ev.RequestID)
	case *network.EventLoadingFailed:
		frame, ok := td.docs[ev.RequestID]
		delete(td.docs, ev.RequestID)
		if ok && ev.Canceled && len(td.expected) < maxPendingDownloads {
			td.expected = append(td.expected, expectation{frame: frame, at: time.Now()})
		}
	}
}

// awaitExpected waits until no download a navigation announced is still
// unreported, for at most expectWindow after each was announced, or until
// ctx ends.
func (td *tabDownloads) awaitExpected(ctx context.Context) {
	for {
		td.mu.Lock()
		td.expected = slices.DeleteFunc(td.expected, func(e expectation) bool { return time.Since(e.at) > expectWindow })
		if len(td.expected) == 0 {
			td.mu.Unlock()
			return
		}
		wait := expectWindow - time.Since(td.expected[0].at)
		if td.arrived == nil {
			td.arrived = make(chan struct{})
		}
		arrived := td.arrived
		td.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-arrived:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return
		}
		timer.Stop()
	}
}

// remember keeps an ended download for the snapshots.
func (td *tabDownloads) remember(r Download) {
	td.mu.Lock()
	defer td.mu.Unlock()
	if len(td.recent) >= maxRecentDownloads {
		td.recent = append(td.recent[:0], td.recent[1:]...)
	}
	td.recent = append(td.recent, r)
}

// SetDownloads has the tab's browser context save downloads into
// opts.Dir, capped at opts.MaxBytes each; the tab keeps them for
// TakeDownloads and Downloads. A tab that gets a fresh context (Recover)
// sets it up again. Without it the browser's own download behaviour
// applies, and the tab reports no downloads.
func (t *Context) SetDownloads(ctx context.Context, opts DownloadOptions) error {
	t.dl.mu.Lock()
	t.dl.opts = opts
	t.dl.mu.Unlock()
	return t.applyDownloads(ctx)
}

// applyDownloads tells the browser where the tab's context saves
// downloads: named by guid, never by a name the page chose, until follow
// renames them. Nothing when SetDownloads was never called.
func (t *Context) applyDownloads(ctx context.Context) error {
	t.dl.mu.Lock()
	dir := t.dl.opts.Dir
	t.dl.mu.Unlock()
	if dir == "" {
		return nil
	}
	_, s, bctx := t.context()
	if s == nil {
		return nil
	}
	if t.b.opts.Attached {
		// Chromium sets where files go for the whole profile: the
		// person's own downloads would change. The guards refuse the
		// tab's downloads instead (attachguard.go).
		return nil
	}
	c, cancel := within(ctx, s.root, defaultCallTimeout)
	defer cancel()
	_, err := chromedp.CallBrowser(c, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: bctx,
		DownloadPath: dir, EventsEnabled: new(true),
	})
	if err != nil {
		return t.fail("setting up downloads", err)
	}
	return nil
}

// TakeDownloads returns the downloads the tab's pages began since the last
// call, oldest first, once each has ended or ctx has ended (those still
// under way then say DownloadInProgress and are kept for the snapshots).
// It first makes sure that every download the browser reported before the
// call is counted.
func (t *Context) TakeDownloads(ctx context.Context) []Download {
	t.syncDownloads(ctx)
	t.dl.awaitExpected(ctx)
	t.dl.mu.Lock()
	pending := t.dl.pending
	t.dl.pending = nil
	t.dl.mu.Unlock()
	out := make([]Download, 0, len(pending))
	for _, d := range pending {
		select {
		case <-d.done:
			out = append(out, d.result)
			continue
		case <-ctx.Done():
		}
		d.mu.Lock()
		out = append(out, Download{Suggested: d.suggested, URL: d.url, State: DownloadInProgress, Bytes: d.received})
		d.mu.Unlock()
	}
	return out
}

// Downloads returns the tab's last downloads that ended (a few), oldest
// first.
func (t *Context) Downloads() []Download {
	t.dl.mu.Lock()
	defer t.dl.mu.Unlock()
	return append([]Download(nil), t.dl.recent...)
}
