package browser

import (
	"context"
	_ "embed" // the page script of this file
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Input at a point of the viewport, for what has no element of its own in
// the accessibility tree: a canvas, a map, a chart. The input goes to the
// point, but it is judged and confirmed by the element at the point, found
// by the browser's own hit test, through frames of every process, as the
// compositor would route it (docs/architecture.md, "Coordinates").

// pointControlJS finds the control a click on an element activates.
//
//go:embed js/pointControl.js
var pointControlJS string

// cmdNodeForLocation hit-tests a point of one process's viewport (raw, see
// cdp.go).
var cmdNodeForLocation = cdp.Command[map[string]any, nodeForLocation]{Method: "DOM.getNodeForLocation"}

type nodeForLocation struct {
	BackendNodeID int64 `json:"backendNodeId"`
}

// cmdContentQuad reads a node's boxes (raw: only the content quad is read).
var cmdContentQuad = cdp.Command[map[string]any, contentQuad]{Method: "DOM.getBoxModel"}

type contentQuad struct {
	Model struct {
		Content []float64 `json:"content"`
	} `json:"model"`
}

// ErrNothingAt reports a point where no element is: outside the page's
// viewport, or where the browser's hit test finds nothing.
var ErrNothingAt = errors.New("no element at the point")

// PointTarget is what is at a point of the viewport.
type PointTarget struct {
	// Hit is the backend node id (frames.go) of the element the browser's
	// hit test finds at the point, in the deepest frame.
	Hit int64
	// Node is what a click there reaches as a person means it: the control
	// Hit is part of (the button around an icon), else Hit itself.
	Node int64
}

// ElementAt returns what is at x, y, in main-viewport CSS pixels: the
// element the browser's hit test finds there, in frames of any site (an
// out-of-process frame is entered at its place, and the point taken into
// its own viewport), and the control that element is part of. A point
// where nothing is, or outside the viewport, is ErrNothingAt.
func (t *Context) ElementAt(ctx context.Context, x, y float64) (PointTarget, error) {
	hit, err := t.hitTest(ctx, x, y)
	if err != nil {
		return PointTarget{}, err
	}
	pt := PointTarget{Hit: hit, Node: hit}
	a, err := t.activated(ctx, nodeOf(hit), pointControlJS)
	if err != nil {
		return PointTarget{}, fmt.Errorf("the control at %.0f,%.0f: %w", x, y, err)
	}
	if a != nil {
		pt.Node = a.Node
	}
	return pt, nil
}

// hitTest returns the backend node id of the element at x, y, following
// the point into out-of-process frames.
func (t *Context) hitTest(ctx context.Context, x, y float64) (int64, error) {
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	defer func() { cancel() }()
	// The protocol hit-tests document coordinates: a process's viewport
	// point plus its document's scroll.
	var vp [4]float64
	viewport := func(c context.Context) error {
		return evaluate(c, "[innerWidth, innerHeight, scrollX, scrollY]", &vp)
	}
	if err := viewport(c); err != nil {
		return 0, fmt.Errorf("hit test at %.0f,%.0f: the viewport: %w", x, y, err)
	}
	if x < 0 || y < 0 || x >= vp[0] || y >= vp[1] {
		return 0, fmt.Errorf("%.0f,%.0f is outside the viewport (%.0f×%.0f): %w", x, y, vp[0], vp[1], ErrNothingAt)
	}
	pageCC := chromedp.FromContext(c)
	var frame *remoteFrame
	for depth := 0; ; depth++ {
		res, err := chromedp.Call(c, cmdNodeForLocation, map[string]any{
			"x": int64(x + vp[2]), "y": int64(y + vp[3]), "includeUserAgentShadowDOM": false, "ignorePointerEventsNone": false,
		})
		if err != nil {
			// The browser answers an error for a point where it finds
			// no node.
			return 0, fmt.Errorf("hit test at %.0f,%.0f: %v: %w", x, y, err, ErrNothingAt)
		}
		var base int64
		if frame != nil {
			base = NodeBase(frame.index)
		}
		d, err := chromedp.Call(c, cmdDescribeFocus, map[string]any{"backendNodeId": res.BackendNodeID})
		if err != nil {
			return 0, fmt.Errorf("hit test at %.0f,%.0f: describe the element: %w", x, y, err)
		}
		isFrame := d.Node.NodeName == "IFRAME" || d.Node.NodeName == "FRAME"
		if !isFrame || d.Node.ContentDocument != nil || d.Node.FrameID == "" || depth >= maxFrameDepth {
			// An element, or a frame of this process (the hit test
			// entered it already), or one too deep to follow.
			return base + res.BackendNodeID, nil
		}
		// The point is in a frame of another process: take it into that
		// frame's viewport, which starts at the iframe's content box.
		f := p.frameSet().byTargetOf(target.ID(d.Node.FrameID))
		if f == nil && pageCC != nil && pageCC.Target != nil {
			// A frame no capture has seen yet.
			_, _ = t.remoteFrames(ctx, p, pageCC)
			f = p.frameSet().byTargetOf(target.ID(d.Node.FrameID))
		}
		if f == nil {
			// A frame that cannot be entered is judged as its iframe.
			return base + res.BackendNodeID, nil
		}
		q, err := chromedp.Call(c, cmdContentQuad, map[string]any{"backendNodeId": res.BackendNodeID})
		if err != nil || len(q.Model.Content) < 2 {
			return base + res.BackendNodeID, nil
		}
		x, y = x-q.Model.Content[0], y-q.Model.Content[1]
		cancel()
		c, cancel = f.cdp(ctx)
		frame = f
		if err := viewport(c); err != nil {
			return 0, fmt.Errorf("hit test at %.0f,%.0f in the frame of %s: %w", x, y, f.url, err)
		}
	}
}

// ClickAt clicks at x, y (main-viewport CSS pixels), where ElementAt found
// node, and confirms the click reached node as ClickElement does; a miss
// is sent once more at the same point only when node is still what is
// there, since the point, not the element's centre, is what the agent
// chose. A second miss is a DeliveryError.
func (t *Context) ClickAt(ctx context.Context, node int64, x, y float64) error {
	return t.deliverAt(ctx, node, "click", x, y, t.Click)
}

// HoverAt moves the pointer to x, y, where ElementAt found node, and
// confirms it reached node, as ClickAt does for a click.
func (t *Context) HoverAt(ctx context.Context, node int64, x, y float64) error {
	return t.deliverAt(ctx, node, "hover", x, y, t.Hover)
}

// deliverAt sends the pointer input kind at the point with send and
// confirms it reached node (deliver.go's record).
func (t *Context) deliverAt(ctx context.Context, node int64, kind string, x, y float64,
	send func(ctx context.Context, x, y float64) error) error {
	for try := 1; ; try++ {
		d, err := t.sendWatched(ctx, nodeOf(node), kind, x, y, send)
		if err != nil || d.Delivered {
			return err
		}
		if try == 2 || d.Gone {
			return &DeliveryError{Input: kind, Received: d.Received, Gone: d.Gone}
		}
		t.log.Debug("the input at a point did not reach its element; asking the point again", "input", kind, "node", node, "received", d.Received)
		at, err := t.ElementAt(ctx, x, y)
		if err != nil && !errors.Is(err, ErrNothingAt) {
			return fmt.Errorf("%s at %.0f,%.0f: %w", kind, x, y, err)
		}
		if at.Node != node {
			return &DeliveryError{Input: kind, Received: d.Received}
		}
	}
}
