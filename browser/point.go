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
var cmdNodeForLocation = cdp.Command[map[string]any, nodeAtLocation]{Method: "DOM.getNodeForLocation"}

type nodeAtLocation struct {
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
	// At is the point that was judged: the point asked, moved onto the
	// whole pixel of the document (of every frame it passes through) that
	// holds it. It is the one point to mark for a person and to send the
	// input to (ClickAt, HoverAt); the point as asked may be another
	// element's.
	At Point
}

// ElementAt returns what is at x, y, in main-viewport CSS pixels: the
// element the browser's hit test finds there, in frames of any site (an
// out-of-process frame is entered at its place, and the point taken into
// its own viewport), and the control that element is part of. A point
// where nothing is, or outside the viewport, is ErrNothingAt.
func (t *Context) ElementAt(ctx context.Context, x, y float64) (PointTarget, error) {
	hit, at, err := t.hitTest(ctx, Point{x, y})
	if err != nil {
		return PointTarget{}, err
	}
	pt := PointTarget{Hit: hit, Node: hit, At: at}
	a, err := t.activated(ctx, nodeOf(hit), pointControlJS)
	if err != nil {
		return PointTarget{}, fmt.Errorf("the control at %s: %w", at, err)
	}
	if a != nil {
		pt.Node = a.Node
	}
	return pt, nil
}

// hitLevel is a document the point passed through on its way into an
// out-of-process frame: its session, its scroll, the iframe element the
// point entered (a node id of its process) and how that frame's viewport
// is drawn in it.
type hitLevel struct {
	open   func(context.Context) (context.Context, context.CancelFunc)
	scroll Point
	iframe int64
	inner  frameMap
}

// viewportJS reads what the point needs of a document's viewport: its
// size, its scroll, and the pinch zoom of the visual viewport.
const viewportJS = "[innerWidth, innerHeight, scrollX, scrollY, window.visualViewport ? visualViewport.scale : 1]"

// hitTest returns the backend node id of the element at asked, following
// the point into out-of-process frames, and the point judged: asked moved
// onto the whole pixel of each document it passes through, in
// main-viewport CSS pixels.
func (t *Context) hitTest(ctx context.Context, asked Point) (int64, Point, error) {
	p, _ := t.page()
	open := t.cdp
	var levels []hitLevel
	var frame *remoteFrame
	var quad []float64 // the content quad of the iframe the point enters
	v := asked
	for depth := 0; ; depth++ {
		c, cancel := open(ctx)
		node, at, next, err := func() (int64, Point, *remoteFrame, error) {
			defer cancel()
			var vp [5]float64
			if err := evaluate(c, viewportJS, &vp); err != nil {
				return 0, Point{}, nil, fmt.Errorf("hit test at %s: the viewport: %w", asked, err)
			}
			if vp[4] != 1 {
				// Input lands in the visual viewport, the hit test reads
				// the layout one: under a pinch zoom they part.
				return 0, Point{}, nil, fmt.Errorf("the page is zoomed in (%g×), so a point cannot be judged where it lands: %w", vp[4], ErrNothingAt)
			}
			if quad != nil {
				m, err := newFrameMap(quad, vp[0], vp[1])
				if err != nil {
					return 0, Point{}, nil, fmt.Errorf("%s is in a frame that cannot be followed: %v: %w", asked, err, ErrNothingAt)
				}
				levels[len(levels)-1].inner = m
				v = m.in(v)
			}
			if v.X < 0 || v.Y < 0 || v.X >= vp[0] || v.Y >= vp[1] {
				return 0, Point{}, nil, fmt.Errorf("%s is outside the viewport (%g×%g): %w", asked, vp[0], vp[1], ErrNothingAt)
			}
			scroll := Point{vp[2], vp[3]}
			doc, snapped := snapToDocument(v, scroll)
			id, err := nodeForLocation(c, doc)
			if err != nil {
				return 0, Point{}, nil, fmt.Errorf("hit test at %s: %v: %w", asked, err, ErrNothingAt)
			}
			var base int64
			if frame != nil {
				base = NodeBase(frame.index)
			}
			d, err := chromedp.Call(c, cmdDescribeFocus, map[string]any{"backendNodeId": id})
			if err != nil {
				return 0, Point{}, nil, fmt.Errorf("hit test at %s: describe the element: %w", asked, err)
			}
			if d.Node.PseudoType != "" {
				// A pseudo-element's events are its element's (drawn.go).
				if id, err = t.originating(c, id); err != nil {
					return 0, Point{}, nil, fmt.Errorf("hit test at %s: %w", asked, err)
				}
			}
			isFrame := d.Node.NodeName == "IFRAME" || d.Node.NodeName == "FRAME"
			var f *remoteFrame
			if isFrame && d.Node.ContentDocument == nil && d.Node.FrameID != "" && depth < maxFrameDepth {
				// The point is in a frame of another process.
				f = p.frameSet().byTargetOf(target.ID(d.Node.FrameID))
				if pageCC := chromedp.FromContext(c); f == nil && frame == nil && pageCC != nil && pageCC.Target != nil {
					// A frame no capture has seen yet.
					_, _ = t.remoteFrames(ctx, p, pageCC)
					f = p.frameSet().byTargetOf(target.ID(d.Node.FrameID))
				}
			}
			if f != nil {
				q, err := chromedp.Call(c, cmdContentQuad, map[string]any{"backendNodeId": id})
				if err == nil && len(q.Model.Content) >= 8 {
					levels = append(levels, hitLevel{open: open, scroll: scroll, iframe: id})
					quad, v = q.Model.Content, snapped
					return 0, Point{}, f, nil
				}
			}
			// An element, or a frame of this process (the hit test
			// entered it already), or one that cannot be entered, which
			// is judged as its iframe.
			return base + id, snapped, nil, nil
		}()
		if err != nil {
			return 0, Point{}, err
		}
		if next == nil {
			at, err := t.backOut(ctx, levels, at)
			return node, at, err
		}
		frame, open = next, next.cdp
	}
}

// backOut takes the point judged in the deepest frame back out through the
// frames it entered, into the main viewport, and checks that each
// document still finds the frame's iframe there: off the whole-pixel grid
// of an outer document, the browser may read any pixel around it.
func (t *Context) backOut(ctx context.Context, levels []hitLevel, at Point) (Point, error) {
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		at = l.inner.out(at)
		c, cancel := l.open(ctx)
		for _, doc := range corners(at, l.scroll) {
			id, err := nodeForLocation(c, doc)
			if err != nil || id != l.iframe {
				cancel()
				return Point{}, fmt.Errorf("%s is on the edge of a frame: aim further inside it: %w", at, ErrNothingAt)
			}
		}
		cancel()
	}
	return at, nil
}

// nodeForLocation hit-tests a whole pixel of the document of c's session.
func nodeForLocation(c context.Context, doc [2]int64) (int64, error) {
	res, err := chromedp.Call(c, cmdNodeForLocation, map[string]any{
		"x": doc[0], "y": doc[1], "includeUserAgentShadowDOM": false, "ignorePointerEventsNone": false,
	})
	if err != nil {
		// The browser answers an error for a point where it finds no
		// node.
		return 0, err
	}
	return res.BackendNodeID, nil
}

// ClickAt clicks at the point ElementAt judged (at.At) and confirms the
// click reached at.Node as ClickElement does; a miss is sent once more at
// the same point only when the same element is still what is there, judged
// at the same point, since the point, not the element's centre, is what
// the agent chose. A second miss is a DeliveryError.
func (t *Context) ClickAt(ctx context.Context, at PointTarget) error {
	return t.deliverAt(ctx, at, "click", t.clickOn(nodeOf(at.Node)))
}

// HoverAt moves the pointer to the point ElementAt judged and confirms it
// reached at.Node, as ClickAt does for a click.
func (t *Context) HoverAt(ctx context.Context, at PointTarget) error {
	return t.deliverAt(ctx, at, "hover", t.Hover)
}

// deliverAt sends the pointer input kind at the judged point with send and
// confirms it reached the element (deliver.go's record).
func (t *Context) deliverAt(ctx context.Context, at PointTarget, kind string,
	send func(ctx context.Context, x, y float64) error) error {
	return t.deliverAtTries(ctx, at, kind, 2, send)
}

// deliverAtTries is deliverAt with at most tries sends.
func (t *Context) deliverAtTries(ctx context.Context, at PointTarget, kind string, tries int,
	send func(ctx context.Context, x, y float64) error) error {
	for try := 1; ; try++ {
		d, err := t.sendWatched(ctx, nodeOf(at.Node), kind, at.At.X, at.At.Y, send)
		if err != nil || d.Delivered {
			return err
		}
		if try >= tries || d.Gone {
			return &DeliveryError{Input: kind, Received: d.Received, Gone: d.Gone}
		}
		t.log.Debug("the input at a point did not reach its element; asking the point again", "input", kind, "node", at.Node, "received", d.Received)
		again, err := t.ElementAt(ctx, at.At.X, at.At.Y)
		if err != nil && !errors.Is(err, ErrNothingAt) {
			return fmt.Errorf("%s at %s: %w", kind, at.At, err)
		}
		if again != at {
			// Something else is there now, or the page moved under the
			// point (the same point now snaps elsewhere): a second
			// input would go to what nobody judged.
			return &DeliveryError{Input: kind, Received: d.Received}
		}
	}
}
