package browser

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// A capture's share of the out-of-process frames (frames.go): each one's
// accessibility tree, DOM snapshot and iframe element, through its own
// session.

// remoteCapture is what a capture took of one out-of-process frame.
type remoteCapture struct {
	frame    capture.Frame
	dom      capture.RemoteDOM
	gestures []capture.Gesture
}

// captureRemote takes the accessibility tree and the DOM snapshot of every
// out-of-process frame of the page, and finds each frame's iframe element,
// all concurrently. A frame that fails (it navigated or went away
// meanwhile) is logged and left out.
func (t *Context) captureRemote(ctx context.Context, p *tabPage, cc *chromedp.Context, opts CaptureOptions) []remoteCapture {
	frames, err := t.remoteFrames(ctx, p, cc)
	if err != nil {
		t.log.Debug("capture: no out-of-process frames", "err", err)
		return nil
	}
	out := make([]remoteCapture, len(frames))
	errs := make([][4]error, len(frames))
	var wg sync.WaitGroup
	for i, f := range frames {
		base := NodeBase(f.index)
		out[i].frame = capture.Frame{FrameID: string(f.id), URL: f.url, NodeBase: base}
		out[i].dom = capture.RemoteDOM{FrameID: string(f.id), NodeBase: base}
		fc, cancel := f.cdp(ctx)
		defer cancel()
		wg.Go(func() {
			var ax rawResult
			ax, errs[i][0] = chromedp.Call(fc, getFullAXTreeRaw, accessibility.GetFullAXTreeParams{})
			out[i].frame.AX = json.RawMessage(ax)
		})
		wg.Go(func() {
			var d rawResult
			d, errs[i][1] = chromedp.Call(fc, captureSnapshotRaw, snapshotParams(opts))
			out[i].dom.DOM = json.RawMessage(d)
		})
		wg.Go(func() {
			tree, err := chromedp.Call(fc, page.GetFrameTree, cdp.Empty{})
			if err == nil && tree.FrameTree != nil && tree.FrameTree.Frame != nil {
				out[i].frame.URL = tree.FrameTree.Frame.URL + tree.FrameTree.Frame.URLFragment
			}
			errs[i][2] = err
		})
		if !opts.Judged {
			wg.Go(func() {
				var err error
				if out[i].gestures, err = t.gestureListeners(fc, base); err != nil {
					t.log.Debug("capture: no gesture listeners in an out-of-process frame", "url", f.url, "err", err)
				}
			})
		}
		wg.Go(func() {
			r, err := t.frameOwner(ctx, f)
			if err != nil {
				errs[i][3] = err
				return
			}
			r.cancel()
			out[i].dom.Owner = r.node().id()
		})
	}
	wg.Wait()
	kept := out[:0]
	for i, r := range out {
		if err := errors.Join(errs[i][:]...); err != nil {
			// It navigated or went away during the capture.
			t.log.Debug("capture: out-of-process frame left out", "url", r.frame.URL, "err", err)
			continue
		}
		kept = append(kept, r)
	}
	return kept
}
