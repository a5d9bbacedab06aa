package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// Nodes and the processes that hold them. Outside the package a node is
// one int64, a capture's backend node id, which carries the index of its
// out-of-process frame (frames.go) in its high bits. Inside, it is a
// nodeID, with the frame and the id in that frame's process apart; the id
// means nothing in another process, so it is read in one place only,
// route, which returns it with the session of that process.

// nodeShift is where a frame's index starts in a backend node id. Chromium
// numbers the nodes of a process from 1 upwards with an int; 32 bits leave
// 2^21 frames below 2^53, where JSON numbers stay exact.
const nodeShift = 32

// NodeBase returns what a capture adds to the backend node ids of the
// out-of-process frame with index i (the page's own nodes have index 0).
func NodeBase(i int64) int64 { return i << nodeShift }

// nodeID is a DOM node of the tab's current page.
type nodeID struct {
	// frame is the index of the out-of-process frame whose process holds
	// the node; 0 for the page's own process.
	frame int64
	// local is the node's backend node id in that process. Only route
	// reads it: a call that names the node goes to that process.
	local cdp.BackendNodeID
}

// nodeOf is the node a backend node id of a capture names.
func nodeOf(id int64) nodeID {
	return nodeID{frame: id >> nodeShift, local: cdp.BackendNodeID(id & (1<<nodeShift - 1))}
}

// nodeIn is the node with the backend node id local in the process of f
// (nil for the page's).
func nodeIn(f *remoteFrame, local int64) nodeID {
	return nodeID{frame: f.indexOrPage(), local: cdp.BackendNodeID(local)}
}

// id is the node as a capture names it, and as the package's exported
// methods take and return it.
func (n nodeID) id() int64 { return NodeBase(n.frame) + int64(n.local) }

// String names the node in messages by its id.
func (n nodeID) String() string { return fmt.Sprint(n.id()) }

// indexOrPage is the frame's index, or 0 for a nil frame: the page.
func (f *remoteFrame) indexOrPage() int64 {
	if f == nil {
		return 0
	}
	return f.index
}

// routed is the process that holds a node, ready for protocol calls: ctx
// carries the chromedp target of the page or of the out-of-process frame
// (and ends when the call's context or the target ends); call cancel when
// done.
type routed struct {
	ctx    context.Context
	cancel context.CancelFunc
	// frame is the out-of-process frame; nil for the page.
	frame *remoteFrame
	// local is the node's backend node id there: what a protocol call
	// that names the node sends.
	local cdp.BackendNodeID
}

// node is the routed node, as the tab names it.
func (r routed) node() nodeID { return nodeIn(r.frame, int64(r.local)) }

// route returns the process that holds n: the page's, or an out-of-process
// frame's. It returns ErrDetached for a node of a frame that is gone.
// Every call that names a node goes through it.
func (t *Context) route(ctx context.Context, n nodeID) (routed, error) {
	if n.frame == 0 {
		c, cancel := t.cdp(ctx)
		return routed{ctx: c, cancel: cancel, local: n.local}, nil
	}
	p, _ := t.page()
	f := p.frameSet().byIndexOf(n.frame)
	if f == nil {
		return routed{}, fmt.Errorf("node %s: %w: its frame is gone", n, ErrDetached)
	}
	c, cancel := f.cdp(ctx)
	return routed{ctx: c, cancel: cancel, frame: f, local: n.local}, nil
}

// parentOf returns the process that holds the frame's iframe element (the
// page's, or that of the frame's parent frame), with no node yet. It
// returns ErrDetached when the parent is gone.
func (t *Context) parentOf(ctx context.Context, f *remoteFrame) (routed, error) {
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	if cc := chromedp.FromContext(c); cc != nil && cc.Target != nil && cc.Target.TargetID == f.parent {
		return routed{ctx: c, cancel: cancel}, nil
	}
	cancel()
	parent := p.frameSet().byTargetOf(f.parent)
	if parent == nil {
		return routed{}, fmt.Errorf("%w: the parent of frame %s is gone", ErrDetached, f.url)
	}
	c, cancel = parent.cdp(ctx)
	return routed{ctx: c, cancel: cancel, frame: parent}, nil
}

// frameOwner finds the frame's iframe element, routed to its process.
func (t *Context) frameOwner(ctx context.Context, f *remoteFrame) (routed, error) {
	r, err := t.parentOf(ctx, f)
	if err != nil {
		return routed{}, err
	}
	own, err := chromedp.Call(r.ctx, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdp.FrameID(f.id)})
	if err != nil {
		r.cancel()
		return routed{}, fmt.Errorf("%w: the iframe of %s: %v", ErrDetached, f.url, err)
	}
	r.local = own.BackendNodeID
	return r, nil
}

// owner returns the frame's iframe element in its parent's process, as a
// page object there, or ErrDetached when it is gone.
func (t *Context) owner(ctx context.Context, f *remoteFrame) (*pageObject, error) {
	r, err := t.frameOwner(ctx, f)
	if err != nil {
		return nil, err
	}
	defer r.cancel()
	obj, err := t.judgedResolve(r.ctx, int64(r.local))
	if err != nil {
		return nil, fmt.Errorf("%w: the iframe of %s: %v", ErrDetached, f.url, err)
	}
	return &pageObject{t: t, id: obj.Object.ObjectID, frame: r.frame}, nil
}
