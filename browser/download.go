package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Downloads. Each tab's browser context saves what its pages download into
// the tab's directory (Browser.setDownloadBehavior, allowAndName: under the
// download's guid, never a name the page chose). The browser reports every
// download on its own session; one listener there notes them in the order
// they come, and a goroutine per download routes it to the tab whose page
// or frame began it, cancels it once it grows past the tab's cap, and, when
// it ends, renames the file to the server's name made safe (SafeFileName)
// or removes what is left of it.

// DownloadOptions says where a tab's downloads go.
type DownloadOptions struct {
	// Dir is the directory the files are saved in; it must exist.
	Dir string
	// MaxBytes caps one download; a bigger one is cancelled and nothing of
	// it is kept. Zero or less means no cap.
	MaxBytes int64
}

// DownloadState is how a download ended, or that it has not.
type DownloadState string

// The states of a Download.
const (
	DownloadSaved      DownloadState = "saved"
	DownloadTooLarge   DownloadState = "too_large"
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
	owner  *Tab
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
	cancelled := false
	for {
		d.mu.Lock()
		received, total, state := d.received, d.total, d.state
		d.mu.Unlock()
		big := opts.MaxBytes > 0 && (received > opts.MaxBytes || total > opts.MaxBytes)
		if big && !cancelled && state == cdpbrowser.DownloadProgressStateInProgress {
			cancelled = true
			c, cancel := context.WithTimeout(root, defaultCallTimeout)
			_, err := chromedp.CallBrowser(c, cdpbrowser.CancelDownload, cdpbrowser.CancelDownloadParams{GUID: d.guid, BrowserContextID: bctx})
			cancel()
			if err != nil && root.Err() == nil {
				b.log.Debug("cancelling a download", "url", d.url, "err", err)
			}
		}
		if state == cdpbrowser.DownloadProgressStateCompleted || state == cdpbrowser.DownloadProgressStateCanceled {
			d.result = owner.dl.settle(d, opts, big || cancelled, state)
			owner.dl.remember(d.result)
			b.log.Info("download ended", "url", d.url, "state", string(d.result.State), "bytes", d.result.Bytes)
			return
		}
		select {
		case <-d.changed:
		case <-root.Done():
			d.result = owner.dl.settle(d, opts, true, cdpbrowser.DownloadProgressStateCanceled)
			d.result.State, d.result.Reason = DownloadFailed, "the browser went away"
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
func (b *Browser) ownerOf(frame cdp.FrameID) *Tab {
	b.mu.Lock()
	tabs := make([]*Tab, 0, len(b.tabs))
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

// hasFrame reports whether frame is one of the tab's pages (a page's main
// frame has its target's id), one of their frames, or one of their
// out-of-process frames.
func (t *Tab) hasFrame(frame cdp.FrameID) bool {
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
func (t *Tab) downloadedFrom(ctx context.Context, frame cdp.FrameID) bool {
	t.syncDownloads(ctx)
	t.dl.mu.Lock()
	defer t.dl.mu.Unlock()
	return t.dl.from[frame]
}

// syncDownloads makes sure every download the browser reported before the
// call is routed to its tab.
func (t *Tab) syncDownloads(ctx context.Context) {
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

// settle ends a download: the file the browser saved under the guid is
// renamed to a safe, unique name, or removed when the download was
// cancelled or too large.
func (td *tabDownloads) settle(d *download, opts DownloadOptions, tooBig bool, state cdpbrowser.DownloadProgressState) Download {
	r := Download{Suggested: d.suggested, URL: d.url}
	src := filepath.Join(opts.Dir, filepath.Base(d.guid))
	removeLeft := func() {
		// Chromium may leave the partial file under either name.
		_ = os.Remove(src)
		_ = os.Remove(src + ".crdownload")
	}
	fi, err := os.Lstat(src)
	switch {
	case tooBig || (err == nil && opts.MaxBytes > 0 && fi.Size() > opts.MaxBytes):
		removeLeft()
		r.State = DownloadTooLarge
		r.Reason = fmt.Sprintf("it is larger than the %s cap (--max-download-size); it was cancelled and nothing of it was kept", FormatBytes(opts.MaxBytes))
		r.Bytes = max(d.total, d.received)
		return r
	case state == cdpbrowser.DownloadProgressStateCanceled:
		removeLeft()
		r.State, r.Reason = DownloadCanceled, "the browser cancelled it"
		return r
	case err != nil || !fi.Mode().IsRegular():
		removeLeft()
		r.State, r.Reason = DownloadFailed, "the browser reported it saved, but no file is there"
		return r
	}
	name, err := td.place(src, opts.Dir, SafeFileName(d.suggested))
	if err != nil {
		removeLeft()
		r.State, r.Reason = DownloadFailed, err.Error()
		return r
	}
	r.State, r.Name, r.Path, r.Bytes = DownloadSaved, name, filepath.Join(opts.Dir, name), fi.Size()
	r.Type = fileType(r.Path)
	return r
}

// place renames src into dir under name made unique (CreateUnique), and
// returns the name used.
func (td *tabDownloads) place(src, dir, name string) (string, error) {
	f, n, err := CreateUnique(dir, name)
	if err != nil {
		return "", fmt.Errorf("saving the download: %w", err)
	}
	f.Close()
	dst := filepath.Join(dir, n)
	if err := os.Rename(src, dst); err != nil {
		_ = os.Remove(dst)
		return "", fmt.Errorf("saving the download: %w", err)
	}
	return n, nil
}

// CreateUnique creates a new file (0600) in dir under name, or, when that
// is taken, "stem (2).ext", "stem (3).ext" and so on, and returns it open
// for writing with the name used. It never opens or replaces a file that
// exists: the name is claimed by an exclusive create. name must be a plain
// file name (SafeFileName).
func CreateUnique(dir, name string) (*os.File, string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i <= 1000; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		f, err := os.OpenFile(filepath.Join(dir, n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, n, nil
	}
	return nil, "", fmt.Errorf("no free name like %q in %s", name, dir)
}

// fileType is a file's media type: from its extension, else sniffed from
// its first bytes.
func fileType(path string) string {
	if t := mime.TypeByExtension(filepath.Ext(path)); t != "" {
		return t
	}
	f, err := os.Open(path)
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	buf := make([]byte, sniffLen)
	n, _ := io.ReadFull(f, buf)
	return http.DetectContentType(buf[:n])
}

// SafeFileName makes a name a server or page gave a file safe to save under
// in a directory: only its last path element is kept (either slash counts);
// control, format (bidi overrides, zero-width) and other invisible
// characters and invalid UTF-8 go; leading dots and spaces and trailing
// dots and spaces go; it is cut to a bounded length, keeping a short
// extension; what is left empty becomes "download".
func SafeFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case unicode.IsSpace(r):
			r = ' '
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r), r == 0xfffc:
			continue
		case strings.ContainsRune(`<>:"|?*`, r):
			r = '_'
		}
		b.WriteRune(r)
	}
	name = strings.Join(strings.Fields(b.String()), " ")
	name = strings.TrimLeft(name, ". ")
	name = strings.TrimRight(name, ". ")
	if len(name) > maxDownloadName {
		ext := filepath.Ext(name)
		if len(ext) > 16 || !utf8.ValidString(ext) {
			ext = ""
		}
		stem := strings.TrimSuffix(name, ext)
		cut := maxDownloadName - len(ext)
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		name = strings.TrimRight(stem[:cut], ". ") + ext
	}
	if name == "" {
		return "download"
	}
	return name
}

// FormatBytes writes a size for people: 512 B, 4.0 KB, 100 MB.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	if v >= 10 || v == float64(int64(v)) {
		return fmt.Sprintf("%.0f %cB", v, "KMGTPE"[exp])
	}
	return fmt.Sprintf("%.1f %cB", v, "KMGTPE"[exp])
}

// SetDownloads has the tab's browser context save downloads into
// opts.Dir, capped at opts.MaxBytes each; the tab keeps them for
// TakeDownloads and Downloads. A tab that gets a fresh context (Recover)
// sets it up again. Without it the browser's own download behaviour
// applies, and the tab reports no downloads.
func (t *Tab) SetDownloads(ctx context.Context, opts DownloadOptions) error {
	t.dl.mu.Lock()
	t.dl.opts = opts
	t.dl.mu.Unlock()
	return t.applyDownloads(ctx)
}

// applyDownloads tells the browser where the tab's context saves
// downloads: named by guid, never by a name the page chose, until follow
// renames them. Nothing when SetDownloads was never called.
func (t *Tab) applyDownloads(ctx context.Context) error {
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
func (t *Tab) TakeDownloads(ctx context.Context) []Download {
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
func (t *Tab) Downloads() []Download {
	t.dl.mu.Lock()
	defer t.dl.mu.Unlock()
	return append([]Download(nil), t.dl.recent...)
}
