package browser

import (
	"context"
	"strings"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Downloads in the person's own browser (Options.Attached) are refused:
// where files go is set for the whole profile, the person's. A guard
// refuses a document's response that would be saved as a file, and
// cancels any other download its page begins.

var evPageDownloadWillBegin = cdp.Event[pageDownload]{Method: "Page.downloadWillBegin"}

// pageDownload is Page.downloadWillBegin: a download of one of the page's
// frames, whatever started it (a link's download attribute, a blob: or
// data: URL, an attachment).
type pageDownload struct {
	FrameID cdp.FrameID `json:"frameId"`
	GUID    string      `json:"guid"`
	URL     string      `json:"url"`
}

// refuseDownload lets a document's response through unless the browser
// would save it as a file: then it fails, and is reported as the policy's
// refusals are, since the server cannot say where the person's browser
// saves files without changing it for the person too.
func (g *guard) refuseDownload(ev requestPaused, answer fetchAnswer) {
	c, cancel := context.WithTimeout(g.s.root, defaultCallTimeout)
	defer cancel()
	if !savedAsFile(ev) {
		_ = answer(c, cmdContinueRequest.Method, map[string]any{"requestId": ev.RequestID})
		return
	}
	u := ev.Request.URL + ev.Request.URLFragment
	g.t.b.refused.add(refusal{Blocked: Blocked{URL: shortURL(u), Reason: ErrAttachedDownloads.Error()}, frame: ev.FrameID, owner: g.t})
	g.t.log.Info("download refused in the person's own browser", "url", shortURL(u))
	_ = answer(c, cmdFailRequest.Method, map[string]any{"requestId": ev.RequestID, "errorReason": "Aborted"})
}

// cancelDownload cancels a download that one of the page's frames began
// without a document response the guard could refuse (a link's download
// attribute, a blob: or data: URL), before the person's browser saves it
// where the person's own downloads go; it is reported as refuseDownload's
// are. The cancel races the download: a file small enough to be saved
// before it reaches the browser is saved (Chromium says that a navigation
// is a download only once its response is let through, and the person's
// download settings are theirs to keep).
func (g *guard) cancelDownload(ev pageDownload) {
	c, cancel := context.WithTimeout(g.s.root, defaultCallTimeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(c, cdpbrowser.CancelDownload, cdpbrowser.CancelDownloadParams{GUID: ev.GUID}); err != nil {
		g.t.log.Warn("a download in the person's own browser could not be cancelled", "url", shortURL(ev.URL), "err", err)
	}
	g.t.b.refused.add(refusal{Blocked: Blocked{URL: shortURL(ev.URL), Reason: ErrAttachedDownloads.Error()}, frame: ev.FrameID, owner: g.t})
	g.t.log.Info("download refused in the person's own browser", "url", shortURL(ev.URL))
}

// savedAsFile reports whether the browser would save a document's response
// as a file rather than show it: an attachment, or a type it does not show.
func savedAsFile(ev requestPaused) bool {
	for _, h := range ev.ResponseHeaders {
		v := strings.ToLower(strings.TrimSpace(h.Value))
		switch strings.ToLower(h.Name) {
		case "content-disposition":
			if strings.HasPrefix(v, "attachment") {
				return true
			}
		case "content-type":
			mt, _, _ := strings.Cut(v, ";")
			mt = strings.TrimSpace(mt)
			kind, _, _ := strings.Cut(mt, "/")
			switch {
			case mt == "", kind == "text", kind == "image", kind == "audio", kind == "video",
				mt == "application/pdf", mt == "application/json", mt == "application/xml",
				mt == "application/xhtml+xml", mt == "application/javascript", strings.HasSuffix(mt, "+xml"), strings.HasSuffix(mt, "+json"):
			default:
				return true
			}
		}
	}
	return false
}
