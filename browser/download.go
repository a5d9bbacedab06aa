package browser

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Downloads. Each tab's browser context saves what its pages download into
// the tab's directory (Browser.setDownloadBehavior, allowAndName: under the
// download's guid, never a name the page chose). The browser reports every
// download on its own session; one listener there notes them in the order
// they come, and a goroutine per download routes it to the tab whose page
// or frame began it, cancels it once it grows past the tab's cap or the
// session's quota (DownloadQuota), and, when it ends, renames the file to
// the server's name made safe (SafeFileName) or removes what is left of it.

// DownloadOptions says where a tab's downloads go.
type DownloadOptions struct {
	// Dir is the directory the files are saved in; it must exist.
	Dir string
	// MaxBytes caps one download; a bigger one is cancelled and nothing of
	// it is kept. Zero or less means no cap.
	MaxBytes int64
	// Quota bounds the downloads of the session together, its tabs'
	// included; a download past it is cancelled and nothing of it is
	// kept. Nil means no bound.
	Quota *DownloadQuota
}

// DownloadState is how a download ended, or that it has not.
type DownloadState string

// The states of a Download.
const (
	DownloadSaved      DownloadState = "saved"
	DownloadTooLarge   DownloadState = "too_large"
	DownloadOverQuota  DownloadState = "over_quota"
	DownloadCanceled   DownloadState = "canceled"
	DownloadFailed     DownloadState = "failed"
	DownloadInProgress DownloadState = "in_progress"
)

// Download is one file a tab's page downloaded.
type Download struct {
	// Name is the file's name in the directory (saved only); Path is its
	// full path.
	Name, Path string
	// Suggested is the name the server or page gave, as it gave it: show
	// it only escaped.
	Suggested string
	// URL is where it came from, without query or fragment.
	URL string
	// Type is the media type, from the name's extension or sniffed.
	Type string
	// Bytes is the size saved, or received so far.
	Bytes int64
	State DownloadState
	// Reason says why a download was not saved.
	Reason string
}

const (
	// maxRecentDownloads bounds the downloads a tab remembers for its
	// snapshots.
	maxRecentDownloads = 5
	// maxDownloadName bounds a saved file's name, in bytes, below the
	// 255 of common file systems, with room for " (NN)".
	maxDownloadName = 200
	// sniffLen is how much of a file http.DetectContentType reads.
	sniffLen = 512
	// expectWindow bounds how long after a navigation turned into a
	// download the browser may take to report it; Chromium reports it
	// within milliseconds.
	expectWindow = 3 * time.Second
	// maxPendingDownloads bounds the downloads a tab holds that no action
	// took yet; a page that starts more is cancelled past it.
	maxPendingDownloads = 64
)

// download is one download the browser reported, followed by its goroutine.
type download struct {
	guid      string
	frame     cdp.FrameID
	url       string
	suggested string
	// routed is closed once owner is known (nil when no tab owns it).
	routed chan struct{}
	owner  *Context
	// changed wakes the goroutine when progress is reported.
	changed chan struct{}
	// done is closed when result is final.
	done chan struct{}

	mu       sync.Mutex
	received int64
	total    int64
	state    cdpbrowser.DownloadProgressState
	path     string
	result   Download
}

// downloads are the downloads of a browser under way.
type downloads struct {
	mu     sync.Mutex
	byGUID map[string]*download
}

func (ds *downloads) add(d *download) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.byGUID == nil {
		ds.byGUID = make(map[string]*download)
	}
	ds.byGUID[d.guid] = d
}

func (ds *downloads) get(guid string) *download {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.byGUID[guid]
}

func (ds *downloads) remove(guid string) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	delete(ds.byGUID, guid)
}

// unrouted returns the routed channels of the downloads not routed yet.
func (ds *downloads) unrouted() []chan struct{} {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	var out []chan struct{}
	for _, d := range ds.byGUID {
		select {
		case <-d.routed:
		default:
			out = append(out, d.routed)
		}
	}
	return out
}

// watchDownloads starts noting the downloads of the browser of root. The
// listener runs on the goroutine that reads the browser's messages, so a
// download reported before the reply to a later command is noted before
// that command returns (TakeDownloads relies on it); it must not block.
func (b *Browser) watchDownloads(root context.Context) error {
	err := chromedp.ListenBrowser(root, func(ev any) {
		switch ev := ev.(type) {
		case *cdpbrowser.EventDownloadWillBegin:
			d := &download{guid: ev.GUID, frame: ev.FrameID, url: shortURL(ev.URL), suggested: ev.SuggestedFilename,
				routed: make(chan struct{}), changed: make(chan struct{}, 1), done: make(chan struct{})}
			b.dl.add(d)
			go b.follow(root, d)
		case *cdpbrowser.EventDownloadProgress:
			d := b.dl.get(ev.GUID)
			if d == nil {
				return
			}
			d.mu.Lock()
			d.received, d.total = int64(ev.ReceivedBytes), int64(ev.TotalBytes)
			if d.state != cdpbrowser.DownloadProgressStateCompleted && d.state != cdpbrowser.DownloadProgressStateCanceled {
				d.state, d.path = ev.State, ev.FilePath
			}
			d.mu.Unlock()
			select {
			case d.changed <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		return fmt.Errorf("watching downloads: %w", err)
	}
	return nil
}

// follow routes a download to its tab, enforces the tab's cap, and settles
// the file when the download ends.
func (b *Browser) follow(root context.Context, d *download) {
	defer b.dl.remove(d.guid)
	defer close(d.done)
	owner := b.ownerOf(d.frame)
	var opts DownloadOptions
	var bctx cdp.BrowserContextID
	if owner != nil {
		_, _, bctx = owner.context()
		owner.dl.mu.Lock()
		opts = owner.dl.opts
		owner.dl.mu.Unlock()
		if !owner.dl.hold(d) {
			owner = nil
		}
	}
	d.owner = owner
	close(d.routed)
	if owner == nil || opts.Dir == "" {
		// No tab of ours began it, or its tab takes no downloads: it
		// goes, and nothing of it may stay in any tab's directory.
		b.log.Warn("download cancelled: no session takes it", "url", d.url)
		b.cancelEverywhere(root, d.guid)
		d.result = Download{Suggested: d.suggested, URL: d.url, State: DownloadCanceled, Reason: "no session takes downloads from that page"}
		return
	}
	// refused says why the download may not be kept; "" while it may.
	var refused downloadRefusal
	if why := opts.Quota.begin(d); why != "" {
		refused = downloadRefusal{DownloadOverQuota, why}
	}
	defer opts.Quota.end(d)
	cancelled := false
	for {
		d.mu.Lock()
		received, total, state := d.received, d.total, d.state
		d.mu.Unlock()
		if refused.state == "" && opts.MaxBytes > 0 && (received > opts.MaxBytes || total > opts.MaxBytes) {
			refused = tooLarge(opts.MaxBytes)
			// What it received is not kept: the others may have it.
			opts.Quota.end(d)
		}
		if refused.state == "" {
			if why := opts.Quota.grow(d, max(received, total)); why != "" {
				refused = downloadRefusal{DownloadOverQuota, why}
			}
		}
		if refused.state != "" && !cancelled && state == cdpbrowser.DownloadProgressStateInProgress {
			cancelled = true
			c, cancel := context.WithTimeout(root, defaultCallTimeout)
			_, err := chromedp.CallBrowser(c, cdpbrowser.CancelDownload, cdpbrowser.CancelDownloadParams{GUID: d.guid, BrowserContextID: bctx})
			cancel()
			if err != nil && root.Err() == nil {
				b.log.Debug("cancelling a download", "url", d.url, "err", err)
			}
		}
		if state == cdpbrowser.DownloadProgressStateCompleted || state == cdpbrowser.DownloadProgressStateCanceled {
			d.result = owner.dl.settle(d, opts, refused, state)
			if d.result.State != DownloadSaved {
				go sweepLater(root, filepath.Join(opts.Dir, filepath.Base(d.guid)))
			}
			owner.dl.remember(d.result)
			b.log.Info("download ended", "url", d.url, "state", string(d.result.State), "bytes", d.result.Bytes)
			return
		}
		select {
		case <-d.changed:
		case <-root.Done():
			d.result = owner.dl.settle(d, opts, downloadRefusal{DownloadFailed, "the browser went away"}, cdpbrowser.DownloadProgressStateCanceled)
			owner.dl.remember(d.result)
			return
		}
	}
}

// cancelEverywhere cancels a download in every browser context of the
// browser's tabs, since nothing says which one it is in.
func (b *Browser) cancelEverywhere(root context.Context, guid string) {
	b.mu.Lock()
	ctxs := []cdp.BrowserContextID{""}
	for t := range b.tabs {
		_, _, bctx := t.context()
		if bctx != "" {
			ctxs = append(ctxs, bctx)
		}
	}
	b.mu.Unlock()
	for _, id := range ctxs {
		c, cancel := context.WithTimeout(root, defaultCallTimeout)
		_, _ = chromedp.CallBrowser(c, cdpbrowser.CancelDownload, cdpbrowser.CancelDownloadParams{GUID: guid, BrowserContextID: id})
		cancel()
	}
}

// ownerOf returns the tab one of whose pages or frames is frame, or nil.
func (b *Browser) ownerOf(frame cdp.FrameID) *Context {
	b.mu.Lock()
	tabs := make([]*Context, 0, len(b.tabs))
	for t := range b.tabs {
		tabs = append(tabs, t)
	}
	b.mu.Unlock()
	for _, t := range tabs {
		if t.hasFrame(frame) {
			return t
		}
	}
	return nil
}
