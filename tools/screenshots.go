package tools

import (
	"fmt"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// When a result carries the page's screenshot (Config.Screenshots).
const (
	// ScreenshotsAlways sends one with every result that has a snapshot,
	// as the result contract says: the default.
	ScreenshotsAlways = "always"
	// ScreenshotsAuto sends one only where the text alone may not do: with
	// get_snapshot, a failed call, and a result on a page other than the
	// previous result's. A screenshot costs a model about as many tokens
	// as the rest of a turn, and a client that pays per token may choose.
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

// screenshotFor applies Config.Screenshots to the output of tool name,
// called on a page at before (the previous result's URL, "" for none): a
// screenshot not sent leaves the image out and the snapshot without its
// description, so that nothing says an image is there.
func (s *Session) screenshotFor(name, before string, out Output) Output {
	if out.Image == nil {
		return out
	}
	switch s.config.Screenshots {
	case ScreenshotsNever:
	case ScreenshotsAuto:
		snap := resultSnapshot(out)
		if name == toolapi.GetSnapshot || resultCode(out) != "ok" || snap == nil || snap.Page.URL != before {
			return out
		}
	default:
		return out
	}
	out.Image = nil
	switch v := out.Value.(type) {
	case toolapi.ActionResult:
		v.Snapshot = withoutScreenshot(v.Snapshot)
		out.Value = v
	case *snapshot.Snapshot:
		out.Value = withoutScreenshot(v)
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
