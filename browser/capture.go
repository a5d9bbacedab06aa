package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of screenshots
	_ "image/png"  // DecodeConfig of screenshots
	"math"
	"sync"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// CaptureOptions says what a capture includes.
type CaptureOptions struct {
	// Screenshot takes the screenshot too.
	Screenshot bool
	// Format is "png" (default) or "jpeg".
	Format string
	// ImageTokens is the screenshot budget in image tokens (w×h/750);
	// default 500. The image never exceeds 1568 px a side or 1.15 MP.
	ImageTokens int
	// JPEGQuality is the quality of a JPEG screenshot, 1–100; default 80.
	JPEGQuality int
	// DOMRects adds offsetRects, clientRects and scrollRects (which tell a
	// scrollable box's content size) to the DOM snapshot. It doubles the
	// snapshot's cost (about 40 ms more on a page of 2,000 controls).
	DOMRects bool
	// SecretTexts, when set, returns the texts no screenshot may show
	// (masksecrets.go): before the screenshot, the text of the page and of
	// its frames that holds one, in either case, is drawn masked.
	SecretTexts func() []string
	// CoverCanvases, when set and true, hides every canvas of the page and
	// its frames for the screenshot (masksecrets.go): a session where a
	// secret was typed may have one drawn where no text search finds it.
	CoverCanvases func() bool
	// Judged takes what a verdict needs to tell what a person would see:
	// DOM rects, the extra computed styles of capture.JudgedStyles, each
	// layout object's blended background colour and text colour opacity.
	// It costs more than the agent's snapshot needs (measured: 3–12 ms
	// against 1.5–2 ms for the DOM snapshot of a small page), so only the
	// capture a verdict is judged on asks for it.
	Judged bool
}

// snapshotParams are the DOMSnapshot.captureSnapshot parameters of a
// capture with opts, for the page and for each out-of-process frame alike.
func snapshotParams(opts CaptureOptions) domsnapshot.CaptureSnapshotParams {
	if opts.Judged {
		return domsnapshot.CaptureSnapshotParams{
			ComputedStyles:                 capture.JudgedStyles(),
			IncludePaintOrder:              new(true),
			IncludeDOMRects:                new(true),
			IncludeBlendedBackgroundColors: new(true),
			IncludeTextColorOpacities:      new(true),
		}
	}
	return domsnapshot.CaptureSnapshotParams{
		ComputedStyles:    capture.Styles(),
		IncludePaintOrder: new(true),
		IncludeDOMRects:   &opts.DOMRects,
	}
}

// stylesOf names the computed styles a capture with opts requests.
func stylesOf(opts CaptureOptions) []string {
	if opts.Judged {
		return capture.JudgedStyles()
	}
	return capture.Styles()
}

// Screenshot limits: the default budget, the pixels per image token, and
// the largest side and area an image may have.
const (
	DefaultImageTokens = 500
	PixelsPerToken     = 750
	MaxImageSide       = 1568
	MaxImagePixels     = 1_150_000
)

// errDialogOpened ends a screenshot when a dialog opens during a capture.
var errDialogOpened = errors.New("a JavaScript dialog opened")

// rawResult is a command result kept as the JSON Chromium sent: cdproto's
// accessibility enums are strict, and Chromium adds values over time.
type rawResult = jsonv2.Value

var (
	getFullAXTreeRaw   = cdp.Command[accessibility.GetFullAXTreeParams, rawResult]{Method: accessibility.CommandGetFullAXTree}
	captureSnapshotRaw = cdp.Command[domsnapshot.CaptureSnapshotParams, rawResult]{Method: domsnapshot.CommandCaptureSnapshot}
)

// Capture takes one raw look at the page: the accessibility tree of the main
// frame and of every iframe that runs in the page's process, one DOM
// snapshot (bounds, paint order, CaptureStyles and optionally DOM rects) of
// all documents, the same two of every out-of-process (cross-site) frame
// through its own session (frames.go), the viewport, the title and, if
// asked, the screenshot. The protocol calls run concurrently, pipelined over
// one connection.
//
// While a JavaScript dialog is open Chromium answers no call on the page
// (not even the accessibility tree) until the dialog is answered. Capture
// then returns at once, with Dialog set, the URL, title and last known
// viewport, no frames, no DOM, and ScreenshotError saying why; a dialog that
// opens during the capture ends it the same way. Nothing waits for the
// deadline.
func (t *Context) Capture(ctx context.Context, opts CaptureOptions) (*capture.Page, error) {
	p, _ := t.page()
	dialog, opened := p.state()
	c, cancel := t.cdp(ctx)
	defer cancel()
	cc := chromedp.FromContext(c)
	if cc == nil || cc.Target == nil {
		return nil, t.fail("capture", ErrClosed)
	}
	if dialog != nil {
		return t.dialogCapture(c, p, cc, dialog, opts), nil
	}
	tgt := cc.Target

	// dc ends when a dialog opens: every call on the page would hang.
	dc, dcancel := context.WithCancelCause(c)
	defer dcancel(nil)
	go func() {
		select {
		case <-opened:
			dcancel(errDialogOpened)
		case <-dc.Done():
		}
	}()

	var (
		wg      sync.WaitGroup
		axMain  rawResult
		axErr   error
		tree    page.GetFrameTreeResult
		treeErr error
		frames  []*page.FrameTree
		subAX   []rawResult
		subErr  []error
		dom     rawResult
		domErr  error
		metrics page.GetLayoutMetricsResult
		metErr  error
		info    target.GetTargetInfoResult
		infoErr error
		shot    *capture.Screenshot
		shotErr error
		gest    []capture.Gesture
		gestErr error
	)
	// The layout metrics come first and alone: the screenshot, the longest
	// call, needs them, and queued behind the accessibility tree and the DOM
	// snapshot on the page's main thread they would hold it up as long.
	metrics, metErr = cdp.Call(dc, tgt, page.GetLayoutMetrics, cdp.Empty{})
	if metErr == nil && opts.Screenshot {
		// A page that shows a secret is photographed masked before it is
		// read (masksecrets.go).
		var masked bool
		if shot, masked, shotErr = t.screenshotMasked(dc, tgt, metrics.CSSVisualViewport, opts); !masked {
			wg.Go(func() { shot, shotErr = screenshot(dc, tgt, metrics.CSSVisualViewport, opts) })
		}
	}
	wg.Go(func() {
		axMain, axErr = cdp.Call(dc, tgt, getFullAXTreeRaw, accessibility.GetFullAXTreeParams{})
	})
	wg.Go(func() {
		tree, treeErr = cdp.Call(dc, tgt, page.GetFrameTree, cdp.Empty{})
		if treeErr != nil || tree.FrameTree == nil || tree.FrameTree.Frame == nil {
			return
		}
		frames = flattenFrames(tree.FrameTree, nil)[1:]
		subAX = make([]rawResult, len(frames))
		subErr = make([]error, len(frames))
		var fw sync.WaitGroup
		for i, f := range frames {
			fw.Go(func() {
				subAX[i], subErr[i] = cdp.Call(dc, tgt, getFullAXTreeRaw, accessibility.GetFullAXTreeParams{FrameID: f.Frame.ID})
			})
		}
		fw.Wait()
	})
	wg.Go(func() {
		dom, domErr = cdp.Call(dc, tgt, captureSnapshotRaw, snapshotParams(opts))
	})
	wg.Go(func() {
		info, infoErr = cdp.Call(dc, cc.Browser, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: tgt.TargetID})
	})
	if !opts.Judged {
		wg.Go(func() { gest, gestErr = t.gestureListeners(dc, 0) })
	}
	var remote []remoteCapture
	wg.Go(func() { remote = t.captureRemote(dc, p, cc, opts) })
	wg.Wait()

	if errors.Is(context.Cause(dc), errDialogOpened) {
		if d, _ := p.state(); d != nil {
			return t.dialogCapture(c, p, cc, d, opts), nil
		}
	}
	switch {
	case axErr != nil:
		return nil, t.fail("capture: accessibility tree", axErr)
	case treeErr != nil:
		return nil, t.fail("capture: frame tree", treeErr)
	case tree.FrameTree == nil || tree.FrameTree.Frame == nil:
		return nil, t.fail("capture: frame tree", errors.New("no main frame"))
	case domErr != nil:
		return nil, t.fail("capture: DOM snapshot", domErr)
	case metErr != nil:
		return nil, t.fail("capture: layout metrics", metErr)
	}
	main := tree.FrameTree.Frame
	capt := &capture.Page{
		URL:    main.URL + main.URLFragment,
		Styles: stylesOf(opts),
		DOM:    json.RawMessage(dom),
		Frames: []capture.Frame{{FrameID: string(main.ID), URL: main.URL + main.URLFragment, AX: json.RawMessage(axMain)}},
	}
	if infoErr == nil && info.TargetInfo != nil {
		capt.Title = unmark(info.TargetInfo.Title)
	}
	if lv := metrics.CSSLayoutViewport; lv != nil {
		capt.Viewport.Width, capt.Viewport.Height = float64(lv.ClientWidth), float64(lv.ClientHeight)
		capt.Viewport.ScrollX, capt.Viewport.ScrollY = float64(lv.PageX), float64(lv.PageY)
	}
	if vv := metrics.CSSVisualViewport; vv != nil {
		capt.Viewport.ScrollX, capt.Viewport.ScrollY = vv.PageX, vv.PageY
	}
	p.mu.Lock()
	p.viewport = capt.Viewport
	p.mu.Unlock()
	for i, f := range frames {
		if subErr[i] != nil {
			// A frame that went away meanwhile.
			t.log.Debug("capture: no accessibility tree for frame", "frame", f.Frame.ID, "url", f.Frame.URL, "err", subErr[i])
			continue
		}
		capt.Frames = append(capt.Frames, capture.Frame{
			FrameID: string(f.Frame.ID), URL: f.Frame.URL + f.Frame.URLFragment, AX: json.RawMessage(subAX[i]),
		})
	}
	if gestErr != nil {
		// Gone with its document meanwhile: the page is read without them.
		t.log.Debug("capture: no gesture listeners", "err", gestErr)
	}
	capt.Gestures = gest
	for _, r := range remote {
		capt.Frames = append(capt.Frames, r.frame)
		capt.RemoteDOM = append(capt.RemoteDOM, r.dom)
		capt.Gestures = append(capt.Gestures, r.gestures...)
	}
	switch {
	case !opts.Screenshot:
	case shot != nil:
		capt.Screenshot = shot
	case shotErr != nil:
		capt.ScreenshotError = shotErr.Error()
	}
	return capt, nil
}

// Screenshot takes the screenshot of the viewport alone, as Capture takes
// it: for when only the image is needed, e.g. to show a person what they
// are asked to approve. While a JavaScript dialog is open there is none.
func (t *Context) Screenshot(ctx context.Context, opts CaptureOptions) (*capture.Screenshot, error) {
	p, _ := t.page()
	if d, _ := p.state(); d != nil {
		return nil, fmt.Errorf("screenshot: a JavaScript %s dialog is open", d.Type)
	}
	c, cancel := t.cdp(ctx)
	defer cancel()
	cc := chromedp.FromContext(c)
	if cc == nil || cc.Target == nil {
		return nil, t.fail("screenshot", ErrClosed)
	}
	metrics, err := cdp.Call(c, cc.Target, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, t.fail("screenshot: layout metrics", err)
	}
	shot, masked, err := t.screenshotMasked(c, cc.Target, metrics.CSSVisualViewport, opts)
	if !masked {
		shot, err = screenshot(c, cc.Target, metrics.CSSVisualViewport, opts)
	}
	if err != nil {
		return nil, t.fail("screenshot", err)
	}
	return shot, nil
}

// dialogCapture is what a capture can say while a dialog is open: only the
// browser process answers, so the title and URL come from it and the
// viewport is the last one seen.
func (t *Context) dialogCapture(ctx context.Context, p *tabPage, cc *chromedp.Context, d *capture.Dialog, opts CaptureOptions) *capture.Page {
	p.mu.Lock()
	capt := &capture.Page{URL: p.url, Viewport: p.viewport, Styles: stylesOf(opts), Dialog: d}
	p.mu.Unlock()
	if capt.Viewport.Width == 0 {
		capt.Viewport.Width, capt.Viewport.Height = float64(t.b.opts.ViewportWidth), float64(t.b.opts.ViewportHeight)
	}
	info, err := cdp.Call(ctx, cc.Browser, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: cc.Target.TargetID})
	if err == nil && info.TargetInfo != nil {
		capt.Title = unmark(info.TargetInfo.Title)
	}
	if opts.Screenshot {
		capt.ScreenshotError = fmt.Sprintf("no screenshot while a JavaScript %s dialog is open (%q): "+
			"Chromium draws nothing until it is answered", d.Type, d.Message)
	}
	return capt
}

// flattenFrames lists the frames of a tree depth first, parents before
// children, in document order.
func flattenFrames(ft *page.FrameTree, out []*page.FrameTree) []*page.FrameTree {
	if ft == nil || ft.Frame == nil {
		return out
	}
	out = append(out, ft)
	for _, c := range ft.ChildFrames {
		out = flattenFrames(c, out)
	}
	return out
}

// screenshot captures the visual viewport vv scaled to the budget of opts.
func screenshot(ctx context.Context, tgt cdp.Session, vv *page.VisualViewport, opts CaptureOptions) (*capture.Screenshot, error) {
	if vv == nil || vv.ClientWidth <= 0 || vv.ClientHeight <= 0 {
		return nil, errors.New("screenshot: the page has no viewport")
	}
	params := page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng,
		Clip: &page.Viewport{
			X: vv.PageX, Y: vv.PageY, Width: vv.ClientWidth, Height: vv.ClientHeight,
			Scale: ScreenshotScale(vv.ClientWidth, vv.ClientHeight, opts.ImageTokens),
		},
		CaptureBeyondViewport: new(false),
		// A faster encoding: the same pixels (and image tokens) in about a
		// third more bytes, some 5 ms sooner.
		OptimizeForSpeed: new(true),
	}
	mime := "image/png"
	if opts.Format == "jpeg" || opts.Format == "jpg" {
		q := int64(opts.JPEGQuality)
		if q <= 0 || q > 100 {
			q = 80
		}
		params.Format, params.Quality, mime = page.CaptureScreenshotFormatJpeg, &q, "image/jpeg"
	}
	res, err := cdp.Call(ctx, tgt, page.CaptureScreenshot, params)
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(res.Data))
	if err != nil {
		return nil, fmt.Errorf("screenshot: decoding the image header: %w", err)
	}
	return &capture.Screenshot{MIMEType: mime, Width: cfg.Width, Height: cfg.Height, Data: res.Data}, nil
}

// ScreenshotScale returns the factor that scales a w×h CSS-pixel viewport
// (at device scale factor 1) to an image within the budget of tokens image
// tokens (w×h/750; DefaultImageTokens when tokens ≤ 0), MaxImageSide and
// MaxImagePixels. It never enlarges.
func ScreenshotScale(w, h float64, tokens int) float64 {
	if tokens <= 0 {
		tokens = DefaultImageTokens
	}
	if w <= 0 || h <= 0 {
		return 1
	}
	budget := float64(tokens * PixelsPerToken)
	s := min(1, math.Sqrt(budget/(w*h)), MaxImageSide/w, MaxImageSide/h, math.Sqrt(MaxImagePixels/(w*h)))
	// Chromium rounds the image size; stay within the limits after rounding.
	for s > 0.01 {
		iw, ih := math.Ceil(w*s), math.Ceil(h*s)
		if iw*ih <= min(budget, MaxImagePixels) && iw <= MaxImageSide && ih <= MaxImageSide {
			break
		}
		s *= 0.999
	}
	return s
}
