package tools

import (
	"fmt"
	"image"
	"math"

	"github.com/chaperone-mcp/chaperone/internal/shotdiff"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// When a result carries the page's screenshot (Config.Screenshots).
const (
	// ScreenshotsAlways sends one with every result that has a snapshot,
	// as the result contract says.
	ScreenshotsAlways = "always"
	// ScreenshotsAuto sends one only when it tells the agent something:
	// with get_snapshot, a failed call, a new page, and when the page
	// looks different from the last screenshot sent; then, when only a
	// part of it changed, that part alone. A screenshot costs a model
	// about as many tokens as the rest of a turn.
	ScreenshotsAuto = "auto"
	// ScreenshotsNever sends none, and none is taken for the agent.
	ScreenshotsNever = "never"
)

// CheckScreenshots refuses a Config.Screenshots that is none of the three.
func CheckScreenshots(when string) error {
	switch when {
	case "", ScreenshotsAlways, ScreenshotsAuto, ScreenshotsNever:
		return nil
	}
	return fmt.Errorf("screenshots %q: want %s, %s or %s", when, ScreenshotsAlways, ScreenshotsAuto, ScreenshotsNever)
}

// seenShot is what the agent has seen of the page under ScreenshotsAuto:
// the colour of the screenshots sent, each clip laid over the image
// before it, and the page they showed. It is kept from the image that was
// sent, masked (browser's masksecrets.go), so whether the next one is sent
// depends only on what a masked image shows: a secret that changes under
// its mask tells nothing.
type seenShot struct {
	url string
	pix *image.RGBA
}

// clipShare is the largest part of the image a clip may be: past it, the
// whole image tells more for little more.
const clipShare = 0.75

// screenshotFor applies Config.Screenshots to the output of tool name: a
// screenshot not sent leaves the image out and the snapshot without its
// description, so that nothing says an image is there.
func (s *Session) screenshotFor(name string, out Output) Output {
	if out.Image == nil {
		return out
	}
	switch s.config.Screenshots {
	case ScreenshotsNever:
		return withoutImage(out)
	case ScreenshotsAuto:
		return s.autoScreenshot(name, out)
	}
	return out
}

// autoScreenshot is ScreenshotsAuto: the whole screenshot with get_snapshot
// and a failed call; after any other call, the part that looks different
// from what the agent saw when it is at most clipShare of the image, else
// the whole; none when nothing looks different on the same page, the whole
// on a new one.
func (s *Session) autoScreenshot(name string, out Output) Output {
	snap := resultSnapshot(out)
	cur, err := shotdiff.Decode(out.Image.Data)
	if err != nil {
		s.log.Warn("screenshot: comparing with the last one sent", "err", err)
		s.seen = seenShot{}
		return out
	}
	if name == toolapi.GetSnapshot || resultCode(out) != "ok" || snap == nil || s.seen.pix == nil {
		s.seen = seenShot{url: pageURL(snap), pix: cur.RGB}
		return out
	}
	// A new document always shows; like any change, by the part that
	// differs from what the agent saw (a site's pages share a header),
	// and whole when it looks the same.
	newPage := snap.Page.URL != s.seen.url
	s.seen.url = snap.Page.URL
	r, changed := shotdiff.Changed(s.seen.pix, cur.RGB)
	if !changed && !newPage {
		return withoutImage(out)
	}
	full := cur.RGB.Rect
	if !changed || float64(r.Dx()*r.Dy()) > clipShare*float64(full.Dx()*full.Dy()) {
		s.seen.pix = cur.RGB
		return out
	}
	quality := s.config.Capture.JPEGQuality
	if quality <= 0 || quality > 100 {
		quality = 80 // as the browser's screenshot
	}
	data, err := cur.Clip(r, out.Image.MIMEType, quality)
	if err != nil {
		s.log.Warn("screenshot: cutting the part that changed", "err", err)
		s.seen.pix = cur.RGB
		return out
	}
	s.seen.pix = shotdiff.Seen(s.seen.pix, cur.RGB, r)
	// Where the part is, in the viewport's CSS pixels: the image is the
	// viewport scaled to the screenshot budget.
	scale := 1.0
	if snap.Viewport.Width > 0 {
		scale = snap.Viewport.Width / float64(full.Dx())
	}
	at := snapshot.BBox{X: math.Round(float64(r.Min.X) * scale), Y: math.Round(float64(r.Min.Y) * scale),
		Width: math.Round(float64(r.Dx()) * scale), Height: math.Round(float64(r.Dy()) * scale)}
	clip := &snapshot.Screenshot{MIMEType: out.Image.MIMEType, Width: r.Dx(), Height: r.Dy(), Clip: &at, Data: data}
	// The text says where the clip lies from Screenshot.Clip (snapshot's
	// render), not from a note: a note is the page's, and a delta would
	// carry every change of it.
	c := *snap
	c.Screenshot = clip
	out.Image = clip
	return withSnapshot(out, &c)
}

// pageURL is the URL of snap's page, or "".
func pageURL(snap *snapshot.Snapshot) string {
	if snap == nil {
		return ""
	}
	return snap.Page.URL
}

// withoutImage is out with no image, and its snapshot without the
// description of one.
func withoutImage(out Output) Output {
	out.Image = nil
	return withSnapshot(out, withoutScreenshot(resultSnapshot(out)))
}

// withSnapshot is out with snap in place of the snapshot it carries.
func withSnapshot(out Output, snap *snapshot.Snapshot) Output {
	switch v := out.Value.(type) {
	case toolapi.ActionResult:
		v.Snapshot = snap
		out.Value = v
	case *snapshot.Snapshot:
		out.Value = snap
	}
	return out
}

// resultSnapshot is the snapshot an output carries, or nil.
func resultSnapshot(out Output) *snapshot.Snapshot {
	switch v := out.Value.(type) {
	case toolapi.ActionResult:
		return v.Snapshot
	case *snapshot.Snapshot:
		return v
	}
	return nil
}

// withoutScreenshot is a copy of snap that describes no screenshot; the
// session's own snapshot keeps it for the audit log.
func withoutScreenshot(snap *snapshot.Snapshot) *snapshot.Snapshot {
	if snap == nil || snap.Screenshot == nil {
		return snap
	}
	c := *snap
	c.Screenshot = nil
	return &c
}
