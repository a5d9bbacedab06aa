package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Page scripts run in every frame of a page, each in an isolated world: the
// page's scripts share the frame's DOM with it but not its globals, so they
// cannot reach what it keeps, and a cross-origin frame in the page's own
// process (another port of the same site) is reached as any other.

var cmdCreateIsolatedWorld = cdp.Command[map[string]any, struct {
	ExecutionContextID int64 `json:"executionContextId"`
}]{Method: "Page.createIsolatedWorld"}

// frameAnswer is one frame's answer to a page script: its JSON value, or
// the error that kept it from answering.
type frameAnswer struct {
	url   string
	value json.RawMessage
	err   error
}

// inEveryFrame runs the page script fn, in the isolated world named world,
// in every frame of the current page: those of the page's process and those
// of each out-of-process frame, the targets concurrently. Frames that
// appeared since the last look are attached first.
func (t *Context) inEveryFrame(ctx context.Context, world, fn string, args ...any) ([]frameAnswer, error) {
	expr, err := applyJS(fn, args...)
	if err != nil {
		return nil, err
	}
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	defer cancel()
	cc := chromedp.FromContext(c)
	if cc == nil || cc.Target == nil {
		return nil, t.fail("running a script in every frame", ErrClosed)
	}
	if _, err := t.remoteFrames(c, p, cc); err != nil {
		t.log.Debug("listing the frames", "err", err)
	}
	remote := p.liveFrames()
	elsewhere := map[cdp.FrameID]bool{}
	for _, f := range remote {
		elsewhere[cdp.FrameID(f.id)] = true
	}
	var (
		mu  sync.Mutex
		out []frameAnswer
		wg  sync.WaitGroup
	)
	run := func(c context.Context) {
		answers := inFramesOf(c, elsewhere, world, expr)
		mu.Lock()
		defer mu.Unlock()
		out = append(out, answers...)
	}
	wg.Go(func() { run(c) })
	for _, f := range remote {
		wg.Go(func() {
			fc, cancel := f.cdp(ctx)
			defer cancel()
			run(fc)
		})
	}
	wg.Wait()
	return out, nil
}

// inFramesOf evaluates expr in the world of each frame of the target of
// the chromedp context c, concurrently (a script may wait for its frame to
// render), leaving out the frames another target holds.
func inFramesOf(c context.Context, elsewhere map[cdp.FrameID]bool, world, expr string) []frameAnswer {
	tree, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return []frameAnswer{{err: fmt.Errorf("the frame tree: %w", err)}}
	}
	var frames []*cdp.Frame
	for i, f := range flattenFrames(tree.FrameTree, nil) {
		// The target's own main frame is its own even when another target
		// (its parent) lists it.
		if i == 0 || !elsewhere[f.Frame.ID] {
			frames = append(frames, f.Frame)
		}
	}
	out := make([]frameAnswer, len(frames))
	var wg sync.WaitGroup
	for i, f := range frames {
		wg.Go(func() { out[i] = inFrame(c, f, world, expr) })
	}
	wg.Wait()
	return out
}

// inFrame evaluates expr in the world of the frame f, which the target of
// the chromedp context c holds.
func inFrame(c context.Context, f *cdp.Frame, world, expr string) frameAnswer {
	a := frameAnswer{url: f.URL}
	w, err := chromedp.Call(c, cmdCreateIsolatedWorld, map[string]any{"frameId": f.ID, "worldName": world})
	if err == nil {
		var res scriptResult
		res, err = chromedp.Call(c, cmdEvaluate, map[string]any{
			"expression": expr, "returnByValue": true, "awaitPromise": true, "contextId": w.ExecutionContextID,
		})
		if err == nil {
			err = res.err()
			a.value = res.Result.Value
		}
	}
	if err != nil {
		a.err = fmt.Errorf("the frame %s: %w", f.URL, err)
	}
	return a
}
