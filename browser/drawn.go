package browser

import (
	"context"
	_ "embed" // the page script of this file
	"errors"
	"fmt"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Where an element is drawn.
//
// An icon is often drawn by CSS outside the box of the element that listens
// for its click: a ::before absolutely placed beside a button of no size,
// an icon font's glyph overflowing an inline element of no width. A person
// clicks the icon; the browser's hit test finds the element for a point of
// its pseudo-element (a pseudo-element is its originating element's), and
// the click's events reach the element's listeners. So when the element's
// own box offers no point (it has no size, or something else shows at its
// click point), the click goes to a point where it is drawn and where the
// browser's own hit test finds it; the delivery check then judges that
// click as any other (docs/architecture.md, "Coordinates").

// drawnRectsJS lists the boxes of what an element draws inside it.
//
//go:embed js/drawnRects.js
var drawnRectsJS string

// Bounds of the search for where an element is drawn: the boxes looked at,
// the depth of the elements whose pseudo-elements count, and the points
// hit-tested in all.
const (
	drawnMaxBoxes  = 8
	drawnMaxDepth  = 3
	drawnMaxPoints = 12
)

// cmdDescribeDrawn describes a node and its children to drawnMaxDepth, with
// their pseudo-elements (raw: only those are read).
var cmdDescribeDrawn = cdp.Command[map[string]any, drawnTree]{Method: "DOM.describeNode"}

type drawnTree struct {
	Node drawnNode `json:"node"`
}

type drawnNode struct {
	Children       []drawnNode `json:"children"`
	PseudoElements []struct {
		BackendNodeID int64 `json:"backendNodeId"`
	} `json:"pseudoElements"`
}

// pseudos lists the backend node ids of the pseudo-elements of n and of
// the elements inside it.
func (n drawnNode) pseudos(out []int64) []int64 {
	for _, p := range n.PseudoElements {
		out = append(out, p.BackendNodeID)
	}
	for _, c := range n.Children {
		out = c.pseudos(out)
	}
	return out
}

// cmdBorderQuad reads a node's border quad (raw: only that is read).
var cmdBorderQuad = cdp.Command[map[string]any, borderQuad]{Method: "DOM.getBoxModel"}

type borderQuad struct {
	Model struct {
		Border []float64 `json:"border"`
	} `json:"model"`
}

// placeDrawn moves the click point of r, an element of the page's process
// whose own box has no point to click (r.Zero, or r.Covered), to a point
// where it is drawn: a whole pixel of the box of one of its pseudo-elements
// (or of the elements inside it), or of what is inside it, in the
// viewport, where the browser's hit test finds the element or something
// inside it. r is left as it was when there is none.
func (t *Context) placeDrawn(ctx context.Context, node nodeID, r *inspectResult) error {
	boxes, err := t.drawnBoxes(ctx, node)
	if err != nil {
		return err
	}
	c, cancel := t.cdp(ctx)
	var vp [5]float64
	err = evaluate(c, viewportJS, &vp)
	cancel()
	if err != nil {
		return fmt.Errorf("where it is drawn: the viewport: %w", err)
	}
	tried := 0
	for _, b := range boxes {
		for _, p := range boxPoints(b, vp[0], vp[1]) {
			if tried++; tried > drawnMaxPoints {
				return nil
			}
			hit, at, err := t.hitTest(ctx, p)
			if errors.Is(err, ErrNothingAt) {
				continue
			}
			if err != nil {
				return fmt.Errorf("where it is drawn: %w", err)
			}
			ok, err := t.onNode(ctx, node, nodeOf(hit))
			if err != nil {
				return fmt.Errorf("where it is drawn: %w", err)
			}
			if ok {
				r.X, r.Y, r.Box = at.X, at.Y, b
				// What draws it is its own: nothing stands in for it.
				r.Visible, r.Covered, r.Via, r.StandIn = true, "", "drawing", false
				return nil
			}
		}
	}
	return nil
}

// drawnBoxes lists the boxes where the element node draws: its and its
// children's pseudo-elements' first, then the boxes of what is inside it.
func (t *Context) drawnBoxes(ctx context.Context, node nodeID) ([]Box, error) {
	var boxes []Box
	r, err := t.route(ctx, node)
	if err != nil {
		return nil, fmt.Errorf("where it is drawn: %w", err)
	}
	defer r.cancel()
	tree, err := chromedp.Call(r.ctx, cmdDescribeDrawn, map[string]any{"backendNodeId": r.local, "depth": drawnMaxDepth})
	if err != nil {
		return nil, fmt.Errorf("where it is drawn: describe: %w", err)
	}
	for _, id := range tree.Node.pseudos(nil) {
		q, err := chromedp.Call(r.ctx, cmdBorderQuad, map[string]any{"backendNodeId": id})
		if err != nil || len(q.Model.Border) < 8 {
			// A pseudo-element that draws no box (display: none,
			// content: none) has no model.
			continue
		}
		if b := quadBox(q.Model.Border); b.Width >= 1 && b.Height >= 1 {
			boxes = append(boxes, b)
		}
		if len(boxes) == drawnMaxBoxes {
			return boxes, nil
		}
	}
	var inner []Box
	if err := t.callOn(ctx, node, drawnRectsJS, &inner, drawnMaxBoxes-len(boxes)); err != nil {
		return nil, fmt.Errorf("where it is drawn: %w", err)
	}
	return append(boxes, inner...), nil
}

// quadBox is the box around a quad (x, y of four corners).
func quadBox(q []float64) Box {
	x0, y0, x1, y1 := q[0], q[1], q[0], q[1]
	for i := 2; i+1 < len(q); i += 2 {
		x0, x1 = math.Min(x0, q[i]), math.Max(x1, q[i])
		y0, y1 = math.Min(y0, q[i+1]), math.Max(y1, q[i+1])
	}
	return Box{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
}

// boxPoints are the points of b, inside a viewport of w×h, to try: its
// centre, then its middle row's quarters, each the centre of a whole pixel.
func boxPoints(b Box, w, h float64) []Point {
	left, top := math.Max(b.X, 0), math.Max(b.Y, 0)
	right, bottom := math.Min(b.X+b.Width, w), math.Min(b.Y+b.Height, h)
	if right-left < 1 || bottom-top < 1 {
		return nil
	}
	var out []Point
	for _, f := range [][2]float64{{0.5, 0.5}, {0.25, 0.5}, {0.75, 0.5}} {
		x := math.Floor(left + (right-left)*f[0])
		y := math.Floor(top + (bottom-top)*f[1])
		if x >= left && y >= top && x+1 <= right && y+1 <= bottom {
			out = append(out, Point{x, y})
		}
	}
	return out
}

// originatingJS returns the element a pseudo-element (this, a
// CSSPseudoElement) belongs to.
const originatingJS = `function() { return this.element || null; }`

// originating returns the backend node id of the element that the
// pseudo-element local (of the process of c) belongs to: what the browser's
// hit test names for a point of a ::before is the pseudo-element, and what
// an event there reaches is its element.
func (t *Context) originating(c context.Context, local int64) (int64, error) {
	obj, err := t.judgedResolve(c, local)
	if err != nil {
		return 0, fmt.Errorf("the element of pseudo-element %d: %w", local, err)
	}
	defer releaseRemote(c, obj.Object.ObjectID)
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{"objectId": obj.Object.ObjectID, "functionDeclaration": originatingJS})
	if err == nil {
		err = res.err()
	}
	if err == nil && res.Result.ObjectID == "" {
		err = errors.New("it has none")
	}
	if err != nil {
		return 0, fmt.Errorf("the element of pseudo-element %d: %w", local, err)
	}
	defer releaseRemote(c, res.Result.ObjectID)
	d, err := chromedp.Call(c, cmdDescribeFocus, map[string]any{"objectId": res.Result.ObjectID})
	if err != nil {
		return 0, fmt.Errorf("the element of pseudo-element %d: %w", local, err)
	}
	return d.Node.BackendNodeID, nil
}
