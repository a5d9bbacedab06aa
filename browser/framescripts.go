package browser

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Scripts and input that reach into the out-of-process frames (frames.go):
// a node's place in page terms, and a page script run in every frame.

// Rendering waits before input into a cross-site frame: how many frames,
// and for at most how long.
const (
	routeFrames  = 2
	routeMaxWait = 200 * time.Millisecond
)

// placeInPage turns what inspectJS found in an out-of-process frame (the
// click point, the box and the hit test, in the frame's viewport) into
// page terms. For each iframe element from the frame up to the page, the
// point is taken through the iframe as the page draws it (its content
// quad: offsets, transforms and zoom, pointgrid.go), and hit-tested where
// it shows in that iframe's document, since a cover over the iframe is only
// seen there. A point the iframe clips, or its document scrolls out of
// view, or a frame drawn in perspective, leaves the node not visible.
func (t *Context) placeInPage(ctx context.Context, f *remoteFrame, r *inspectResult, scroll bool) error {
	for f != nil {
		o, err := t.owner(ctx, f)
		if err != nil {
			return err
		}
		var at inspectResult
		err = t.placeThrough(ctx, o, f, r, scroll, &at)
		o.release(ctx)
		if err != nil {
			return fmt.Errorf("the iframe of %s: %w", f.url, err)
		}
		if !at.Connected {
			return fmt.Errorf("the iframe of %s: %w", f.url, ErrDetached)
		}
		if !at.Visible {
			r.Visible, r.Box, r.X, r.Y = false, Box{}, 0, 0
			return nil
		}
		r.X, r.Y = at.X, at.Y
		r.Box = at.Box
		if r.Covered == "" {
			r.Covered = at.Covered
		}
		f = o.frame
	}
	// The browser sends a click into a cross-site frame by where the
	// rendered frames last showed that frame: until the page and the frame
	// have rendered what was measured (a scroll, a layout change), a click
	// at the point can land on the page's iframe element instead.
	var wg sync.WaitGroup
	wg.Go(func() { _ = t.callPage(ctx, waitFramesJS, nil, routeFrames, routeMaxWait.Milliseconds()) })
	wg.Go(func() { t.inFrames(ctx, waitFramesJS, routeFrames, routeMaxWait.Milliseconds()) })
	wg.Wait()
	return nil
}

// liveFrames returns the page's out-of-process frames that are still
// attached.
func (p *tabPage) liveFrames() []*remoteFrame {
	fs := p.frameSet()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]*remoteFrame, 0, len(fs.byIndex))
	for _, f := range fs.byIndex {
		if live(f) != nil {
			out = append(out, f)
		}
	}
	return out
}

// inFrames runs the page script fn (as callPage does) in the document of
// every out-of-process frame the page has, concurrently, and returns the
// sum of their integer results, or -1 when one of them failed or answered
// -1 (its document went away). With no such frames it returns 0 at once.
func (t *Context) inFrames(ctx context.Context, fn string, args ...any) int {
	ch := t.inFramesAsync(ctx, fn, args...)
	if ch == nil {
		return 0
	}
	return <-ch
}

// inFramesAsync is inFrames in the background: the sum arrives on the
// channel, which is nil when the page has no out-of-process frames.
func (t *Context) inFramesAsync(ctx context.Context, fn string, args ...any) <-chan int {
	p, _ := t.page()
	frames := p.liveFrames()
	if len(frames) == 0 {
		return nil
	}
	out := make(chan int, 1)
	go func() {
		res := make([]int, len(frames))
		var wg sync.WaitGroup
		for i, f := range frames {
			wg.Go(func() {
				c, cancel := f.cdp(ctx)
				defer cancel()
				var n int
				if err := callIn(c, fn, &n, args...); err != nil {
					n = -1
				}
				res[i] = n
			})
		}
		wg.Wait()
		sum := 0
		for _, n := range res {
			if n < 0 {
				sum = -1
				break
			}
			sum += n
		}
		out <- sum
	}()
	return out
}

// cmdBoxOfObject reads the boxes of a node given as a page object (raw:
// only the content quad is read).
var cmdBoxOfObject = cdp.Command[map[string]any, contentQuad]{Method: "DOM.getBoxModel"}

// placeThrough takes r's point and box, in the viewport of the frame f,
// through f's iframe element o into o's document, and inspects o there
// (into at). With scroll, o is scrolled into view first, so that the quad
// read is the one the input will meet.
func (t *Context) placeThrough(ctx context.Context, o *pageObject, f *remoteFrame, r *inspectResult, scroll bool, at *inspectResult) error {
	if scroll {
		if err := o.call(ctx, inspectJS, at, true, PaymentFieldPattern, nil); err != nil || !at.Connected || !at.Visible {
			return err
		}
	}
	oc, ocancel := o.cdp(ctx)
	q, err := chromedp.Call(oc, cmdBoxOfObject, map[string]any{"objectId": o.id})
	ocancel()
	if err != nil {
		return fmt.Errorf("its box: %w", err)
	}
	fc, fcancel := f.cdp(ctx)
	var vp [2]float64
	err = evaluate(fc, "[innerWidth, innerHeight]", &vp)
	fcancel()
	if err != nil {
		return fmt.Errorf("its viewport: %w", err)
	}
	m, err := newFrameMap(q.Model.Content, vp[0], vp[1])
	if err != nil {
		*at = inspectResult{Connected: true}
		return nil
	}
	p := m.out(Point{r.X, r.Y})
	if err := o.call(ctx, inspectJS, at, false, PaymentFieldPattern, map[string]float64{"x": p.X, "y": p.Y}); err != nil {
		return err
	}
	// The box a person's screenshot marks: around the frame box's corners
	// as drawn.
	b := r.Box
	xs, ys := []float64{}, []float64{}
	for _, c := range []Point{{b.X, b.Y}, {b.X + b.Width, b.Y}, {b.X, b.Y + b.Height}, {b.X + b.Width, b.Y + b.Height}} {
		d := m.out(c)
		xs, ys = append(xs, d.X), append(ys, d.Y)
	}
	at.Box = Box{X: slices.Min(xs), Y: slices.Min(ys), Width: slices.Max(xs) - slices.Min(xs), Height: slices.Max(ys) - slices.Min(ys)}
	return nil
}
