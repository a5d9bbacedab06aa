package browser

import (
	"bytes"
	"context"
	_ "embed" // the page script
	"errors"
	"fmt"
	"image"
	"image/png"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Visibility measured on pixels, for verdicts (docs/architecture.md,
// "Checkpoints"): text counts as seen only where making it transparent
// changes what the page shows, which no list of CSS properties can promise.

// paintedTextJS finds, places, hides and shows text for TextPainted.
//
//go:embed js/paintedText.js
var paintedTextJS string

// scrollPageToJS scrolls the page back after a look into a cross-site
// frame scrolled it.
//
//go:embed js/scrollPageTo.js
var scrollPageToJS string

// Bounds of one look: the occurrences of a needle looked at, the margin
// around a text's box that its glyphs may overhang (italics, descenders),
// and the largest box captured, in CSS pixels a side.
const (
	paintedMaxOccurrences = 4
	paintedMargin         = 2
	paintedMaxSide        = 2000
)

// paintedFind is what the page script says of one occurrence of the
// needle: how many glyphs it has, and its font size in CSS pixels.
type paintedFind struct {
	Glyphs int     `json:"glyphs"`
	Font   float64 `json:"font"`
}

// TextPainted reports whether a person sees needle where the text nodes
// nodes (backend node ids of one document, as a capture numbers them) draw
// it: for some occurrence of it in their text, outside stretches that
// repeat one of skip (normalised: lower case, white space collapsed), the
// pixels of its box on the page, captured as shown, with the occurrence's
// glyphs painted transparent, and as shown again, differ by ink a person
// reads (ink.legible). That covers every way of hiding text at once: a clip
// path, a filter, a blend mode, a mask, a transform, zoom, a cover.
//
// The text is made transparent by a custom highlight over its range, from
// an isolated world of its own frame's process (a cross-site frame's
// through the frame's session): no DOM node or style changes, and no
// prototype the page patched takes part. The screenshot is the page's,
// which composes every frame. Text outside the viewport is scrolled into
// view first, as a person would scroll to it, and scrolled back after: a
// capture beyond the viewport would resize the page, and show fixed boxes
// and viewport units other than a person sees them.
func (t *Context) TextPainted(ctx context.Context, nodes []int64, needle string, skip []string) (bool, error) {
	if len(nodes) == 0 || needle == "" {
		return false, nil
	}
	first := nodeOf(nodes[0])
	for _, n := range nodes[1:] {
		if nodeOf(n).frame != first.frame {
			return false, fmt.Errorf("text painted: nodes %d and %d are in different frames", nodes[0], n)
		}
	}
	r, err := t.route(ctx, first)
	if err != nil {
		return false, fmt.Errorf("text painted: %w", err)
	}
	defer r.cancel()
	objs, err := t.isolatedNodes(r.ctx, nodes)
	if err != nil {
		return false, fmt.Errorf("text painted: %w", err)
	}
	call := func(c context.Context, mode string, arg int, out any) error {
		args := []map[string]any{{"value": mode}, {"value": arg}, {"value": needle}, {"value": skip}}
		for _, o := range objs {
			args = append(args, map[string]any{"objectId": o})
		}
		res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
			"objectId": objs[0], "functionDeclaration": paintedTextJS, "arguments": args,
			"returnByValue": true, "awaitPromise": true,
		})
		if err != nil {
			return fmt.Errorf("text painted: %s: %w", mode, err)
		}
		return res.decode(out)
	}
	defer func() {
		// Put back what the look changed, though the call's time is spent.
		c, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), releaseTimeout)
		defer cancel()
		_ = call(c, "done", 0, nil)
		for _, o := range objs {
			_, _ = chromedp.Call(c, cmdReleaseObject, map[string]any{"objectId": o})
		}
	}()
	// Text in the page's own process is looked at with its scripts
	// stopped throughout, the scroll to it included: a page that took a
	// scroll no person began for the look's could show the text for it
	// alone. A cross-site frame's are stopped for the captures only, as
	// placing it waits for the page and the frame to render by script.
	frozen := r.frame == nil
	if frozen {
		thaw, err := t.stopScripts(ctx)
		if err != nil {
			return false, fmt.Errorf("text painted: %w", err)
		}
		defer thaw()
	}
	var found []paintedFind
	if err := call(r.ctx, "find", 0, &found); err != nil {
		return false, err
	}
	if r.frame != nil {
		// Placing a cross-site frame's text scrolls the documents that
		// hold the frame; the page is scrolled back.
		if x, y, ok := t.pageScroll(ctx); ok {
			defer func() {
				c, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
				defer cancel()
				if nx, ny, ok := t.pageScroll(c); ok && (nx != x || ny != y) {
					_ = t.callPage(c, scrollPageToJS, nil, x, y)
				}
			}()
		}
	}
	for i, f := range found[:min(len(found), paintedMaxOccurrences)] {
		ok, err := t.occurrencePainted(ctx, r, i, f, frozen, call)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// occurrencePainted looks at occurrence i of the needle (see TextPainted).
func (t *Context) occurrencePainted(ctx context.Context, r routed, i int, f paintedFind, frozen bool,
	call func(context.Context, string, int, any) error) (bool, error) {
	var box *Box
	if err := call(r.ctx, "place", i, &box); err != nil {
		return false, err
	}
	if box == nil {
		return false, nil
	}
	if r.frame != nil {
		// The box is in the frame's viewport: move it into the page's, as
		// a click into the frame is placed.
		at := inspectResult{Visible: true, X: box.X + box.Width/2, Y: box.Y + box.Height/2, Box: *box}
		if err := t.placeInPage(ctx, r.frame, &at, true); err != nil {
			return false, fmt.Errorf("text painted: placing the frame: %w", err)
		}
		if !at.Visible {
			return false, nil
		}
		*box = at.Box
	}
	c, cancel := t.cdp(ctx)
	defer cancel()
	cc := chromedp.FromContext(c)
	if cc == nil || cc.Target == nil {
		return false, ErrClosed
	}
	m, err := cdp.Call(c, cc.Target, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return false, fmt.Errorf("text painted: layout metrics: %w", err)
	}
	vv := m.CSSVisualViewport
	if vv == nil {
		return false, errors.New("text painted: the page has no viewport")
	}
	// What of the box a person sees, in the viewport.
	x0, y0 := max(box.X-paintedMargin, 0), max(box.Y-paintedMargin, 0)
	x1 := min(box.X+box.Width+paintedMargin, vv.ClientWidth, x0+paintedMaxSide)
	y1 := min(box.Y+box.Height+paintedMargin, vv.ClientHeight, y0+paintedMaxSide)
	if x1-x0 < 1 || y1-y0 < 1 {
		return false, nil
	}
	clip := &page.Viewport{X: vv.PageX + x0, Y: vv.PageY + y0, Width: x1 - x0, Height: y1 - y0, Scale: 1}
	shot := func() (image.Image, error) {
		res, err := cdp.Call(c, cc.Target, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatPng, Clip: clip, CaptureBeyondViewport: new(false), OptimizeForSpeed: new(true),
		})
		if err != nil {
			return nil, fmt.Errorf("text painted: screenshot: %w", err)
		}
		img, err := png.Decode(bytes.NewReader(res.Data))
		if err != nil {
			return nil, fmt.Errorf("text painted: decoding the screenshot: %w", err)
		}
		return img, nil
	}
	if !frozen {
		// The page, and every frame of it, holds still from the first
		// capture to the last (see stopScripts).
		thaw, err := t.stopScripts(ctx)
		if err != nil {
			return false, fmt.Errorf("text painted: %w", err)
		}
		defer thaw()
	}
	shown, err := shot()
	if err != nil {
		return false, err
	}
	if err := call(r.ctx, "hide", i, nil); err != nil {
		return false, err
	}
	hidden, err := shot()
	if err != nil {
		return false, err
	}
	if err := call(r.ctx, "show", i, nil); err != nil {
		return false, err
	}
	again, err := shot()
	if err != nil {
		return false, err
	}
	ink := measureInk(shown, hidden, again, f.Glyphs, f.Font)
	ok := ink.legible(f.Glyphs, f.Font)
	t.log.Debug("text painted", "glyphs", f.Glyphs, "font", f.Font, "box", *box, "ink", ink, "legible", ok)
	return ok, nil
}

// stopScripts stops the scripts of the page and of every frame of it until
// thaw is called: a page that watches for the look (a highlight in its
// registry, a style sheet adopted, a scroll) could otherwise draw the text
// for the look alone, which no person ever sees. The verdict's own script
// runs from the protocol, which the setting leaves alone. A process whose
// scripts cannot be stopped fails the look.
func (t *Context) stopScripts(ctx context.Context) (thaw func(), err error) {
	type process func(context.Context) (context.Context, context.CancelFunc)
	var stopped []process
	set := func(ctx context.Context, in process, disabled bool) error {
		c, cancel := in(ctx)
		defer cancel()
		_, err := chromedp.Call(c, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: disabled})
		return err
	}
	thaw = func() {
		// Scripts are put back though the call's time is spent.
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
		for _, in := range stopped {
			_ = set(c, in, false)
		}
	}
	procs := []process{t.cdp}
	names := []string{"the page"}
	if p, _ := t.page(); p != nil {
		for _, f := range p.frameSet().all() {
			procs = append(procs, f.cdp)
			names = append(names, "frame "+f.url)
		}
	}
	for i, in := range procs {
		if err := set(ctx, in, true); err != nil {
			thaw()
			return func() {}, fmt.Errorf("stopping the scripts of %s: %w", names[i], err)
		}
		stopped = append(stopped, in)
	}
	return thaw, nil
}

// pageScroll returns how far the page is scrolled, in CSS pixels.
func (t *Context) pageScroll(ctx context.Context) (x, y float64, ok bool) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	cc := chromedp.FromContext(c)
	if cc == nil || cc.Target == nil {
		return 0, 0, false
	}
	m, err := cdp.Call(c, cc.Target, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil || m.CSSLayoutViewport == nil {
		return 0, 0, false
	}
	return float64(m.CSSLayoutViewport.PageX), float64(m.CSSLayoutViewport.PageY), true
}
