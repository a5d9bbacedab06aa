package browser

import (
	"context"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Out-of-process frames.
//
// Chromium runs a cross-site iframe in a renderer process of its own, as a
// target of its own: the page's accessibility tree, DOM snapshot and node
// calls do not reach into it, and backend node ids are numbered per process,
// so the same number names different nodes in the page and in the frame.
//
// A page keeps one session per out-of-process frame (a frameSet), and gives
// each frame an index, never reused for that page. A capture adds
// index<<nodeShift (the frame's NodeBase) to every backend node id of the
// frame, so ids of different processes cannot collide. Inside the package
// a node is a nodeID, its frame's index and its id in that frame's process
// apart, and calls on it go to that process through Context.route (nodes.go).
// A frame that has gone (navigated to another
// site, removed) leaves its index unknown, and its nodes are ErrDetached.
// See docs/architecture.md.

// frameSet is the out-of-process frames of one page target.
type frameSet struct {
	mu       sync.Mutex
	next     int64
	byTarget map[target.ID]*remoteFrame
	byIndex  map[int64]*remoteFrame
}

// remoteFrame is one out-of-process frame and the session to its target.
type remoteFrame struct {
	index int64
	id    target.ID // the target's id, which is also the frame's id
	// parent is the target that holds the frame's iframe element: the page
	// or another out-of-process frame.
	parent target.ID
	// url is the frame's URL when it was attached to, for messages.
	url string
	// ctx is the chromedp context of the frame's target; it ends with the
	// page, or when the frame's target is detached.
	ctx    context.Context
	cancel context.CancelFunc
}

// cdp returns a context for protocol calls in the frame, as Context.cdp does
// for the page.
func (f *remoteFrame) cdp(ctx context.Context) (context.Context, context.CancelFunc) {
	return within(ctx, f.ctx, defaultCallTimeout)
}

// frameSet returns the page's out-of-process frames, making the set on
// first use.
func (p *tabPage) frameSet() *frameSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frames == nil {
		p.frames = &frameSet{byTarget: map[target.ID]*remoteFrame{}, byIndex: map[int64]*remoteFrame{}}
	}
	return p.frames
}

// remoteFrames lists the out-of-process frames of the page now, parents
// before children, attaching to those it has not seen before and forgetting
// those that are gone. A frame that cannot be attached to is logged and
// left out.
func (t *Context) remoteFrames(ctx context.Context, p *tabPage, cc *chromedp.Context) ([]*remoteFrame, error) {
	res, err := cdp.Call(ctx, cc.Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, fmt.Errorf("listing the frames' targets: %w", err)
	}
	children := map[target.ID][]*target.Info{}
	for _, info := range res.TargetInfos {
		if info.Type == "iframe" && info.ParentID != "" {
			children[info.ParentID] = append(children[info.ParentID], info)
		}
	}
	fs := p.frameSet()
	var out []*remoteFrame
	seen := map[target.ID]bool{}
	// Breadth first from the page: parents before children.
	queue := []target.ID{cc.Target.TargetID}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		for _, info := range children[parent] {
			if seen[info.TargetID] {
				continue
			}
			seen[info.TargetID] = true
			f, err := fs.get(ctx, p, info)
			if err != nil {
				t.log.Debug("capture: cannot attach to an out-of-process frame", "url", info.URL, "err", err)
				continue
			}
			out = append(out, f)
			queue = append(queue, info.TargetID)
		}
	}
	fs.forget(seen)
	return out, nil
}

// get returns the frame of the target info, attaching to it if new.
func (fs *frameSet) get(ctx context.Context, p *tabPage, info *target.Info) (*remoteFrame, error) {
	fs.mu.Lock()
	if f := live(fs.byTarget[info.TargetID]); f != nil {
		fs.mu.Unlock()
		return f, nil
	}
	fs.mu.Unlock()
	f, err := attachFrame(ctx, p, info)
	if err != nil {
		return nil, err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if old := fs.byTarget[info.TargetID]; old != nil {
		if old.ctx.Err() == nil {
			// Attached meanwhile by another capture.
			f.cancel()
			return old, nil
		}
		delete(fs.byIndex, old.index)
	}
	fs.next++
	f.index = fs.next
	fs.byTarget[info.TargetID] = f
	fs.byIndex[f.index] = f
	return f, nil
}

// forget drops the frames whose targets are not in keep, and those whose
// session ended.
func (fs *frameSet) forget(keep map[target.ID]bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for id, f := range fs.byTarget {
		if !keep[id] || f.ctx.Err() != nil {
			f.cancel()
			delete(fs.byTarget, id)
			delete(fs.byIndex, f.index)
		}
	}
}

// byTargetOf returns the live frame of the target id, or nil.
func (fs *frameSet) byTargetOf(id target.ID) *remoteFrame {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return live(fs.byTarget[id])
}

// byIndexOf returns the live frame with index i, or nil.
func (fs *frameSet) byIndexOf(i int64) *remoteFrame {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return live(fs.byIndex[i])
}

// all returns the live frames.
func (fs *frameSet) all() []*remoteFrame {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]*remoteFrame, 0, len(fs.byTarget))
	for _, f := range fs.byTarget {
		if live(f) != nil {
			out = append(out, f)
		}
	}
	return out
}

// live returns f unless it is nil or its session has ended.
func live(f *remoteFrame) *remoteFrame {
	if f == nil || f.ctx.Err() != nil {
		return nil
	}
	return f
}

// attachFrame opens a session to an out-of-process frame's target. It is
// the one place where a frame's session is set up: whatever every target
// of a tab needs (a domain to enable, a policy to apply) belongs here.
// Cancelling the session detaches from the frame and never closes it.
func attachFrame(ctx context.Context, p *tabPage, info *target.Info) (*remoteFrame, error) {
	fctx, cancel := chromedp.NewContext(p.live, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel(),
		chromedp.WithListener(func(ev any) { p.t.devtools(p.id, info.TargetID, ev) }))
	// The first run binds the session's life to fctx.
	if err := firstRun(ctx, cancel, func() error { return chromedp.Do(fctx) }); err != nil {
		cancel()
		return nil, fmt.Errorf("attaching to frame %s: %w", info.URL, err)
	}
	f := &remoteFrame{id: info.TargetID, parent: info.ParentID, url: info.URL, ctx: fctx, cancel: cancel}
	if detached, err := chromedp.Detached(fctx); err == nil {
		go func() {
			select {
			case <-detached:
				cancel()
			case <-fctx.Done():
			}
		}()
	}
	return f, nil
}
