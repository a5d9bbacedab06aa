package browser

import (
	"fmt"
	"math"
)

// The pixel grid of a point.
//
// DOM.getNodeForLocation hit-tests whole CSS pixels of a document, while an
// input event goes to the exact point it names: a point asked as 99.9 was
// judged at 99 and clicked at 99.9, and the two can be different elements
// (a harmless div that ends at 99.5 beside a gated button). So the point is
// snapped once, onto a whole pixel of the document of each frame it passes
// through, and that one point is judged, marked for a person, sent and
// checked again; never the point as asked. See docs/architecture.md,
// "Coordinates".

// Point is a point of the main frame's viewport in CSS pixels.
type Point struct {
	X, Y float64
}

func (p Point) String() string { return fmt.Sprintf("%g,%g", p.X, p.Y) }

// snapToDocument moves the viewport point v onto the whole document pixel
// that holds it, for a document scrolled by scroll: it returns that pixel
// (what getNodeForLocation takes) and its place in the viewport (where the
// input must go for the browser to hit-test the same pixel).
func snapToDocument(v, scroll Point) (doc [2]int64, at Point) {
	dx, dy := math.Floor(v.X+scroll.X), math.Floor(v.Y+scroll.Y)
	return [2]int64{int64(dx), int64(dy)}, Point{dx - scroll.X, dy - scroll.Y}
}

// frameMap maps the viewport of an out-of-process frame onto the viewport
// of the document that holds its iframe element, as the compositor draws
// it: the iframe's content quad (transforms, zoom and fractional offsets
// included) spans the frame's whole viewport of size w×h.
type frameMap struct {
	origin, ex, ey Point // the quad's first corner and its two edges
	w, h           float64
}

// newFrameMap reads a content quad (x, y of four corners, clockwise from
// the top left) of a frame whose viewport is w×h CSS pixels. A quad that is
// no parallelogram (a frame drawn in perspective) has no such map, nor has
// an empty one.
func newFrameMap(quad []float64, w, h float64) (frameMap, error) {
	if len(quad) < 8 || w <= 0 || h <= 0 {
		return frameMap{}, fmt.Errorf("the frame has no box to follow the point into")
	}
	q := func(i int) Point { return Point{quad[2*i], quad[2*i+1]} }
	m := frameMap{origin: q(0), w: w, h: h}
	m.ex = Point{q(1).X - q(0).X, q(1).Y - q(0).Y}
	m.ey = Point{q(3).X - q(0).X, q(3).Y - q(0).Y}
	// A parallelogram's fourth corner is the sum of the other three's
	// edges; a perspective draws it elsewhere.
	c := Point{m.origin.X + m.ex.X + m.ey.X, m.origin.Y + m.ex.Y + m.ey.Y}
	if math.Abs(c.X-q(2).X) > 0.01 || math.Abs(c.Y-q(2).Y) > 0.01 {
		return frameMap{}, fmt.Errorf("the frame is drawn in perspective")
	}
	if math.Abs(m.det()) < 1e-9 {
		return frameMap{}, fmt.Errorf("the frame is drawn with no area")
	}
	return m, nil
}

func (m frameMap) det() float64 { return m.ex.X*m.ey.Y - m.ex.Y*m.ey.X }

// in takes a point of the parent's viewport into the frame's viewport.
func (m frameMap) in(p Point) Point {
	dx, dy := p.X-m.origin.X, p.Y-m.origin.Y
	d := m.det()
	a := (dx*m.ey.Y - dy*m.ey.X) / d
	b := (m.ex.X*dy - m.ex.Y*dx) / d
	return Point{a * m.w, b * m.h}
}

// out takes a point of the frame's viewport into the parent's viewport.
func (m frameMap) out(p Point) Point {
	a, b := p.X/m.w, p.Y/m.h
	return Point{m.origin.X + a*m.ex.X + b*m.ey.X, m.origin.Y + a*m.ex.Y + b*m.ey.Y}
}

// corners are the whole document pixels around a document point that is
// not on the grid: the browser may hit-test any of them for it.
func corners(v, scroll Point) [][2]int64 {
	x, y := v.X+scroll.X, v.Y+scroll.Y
	xs := []int64{int64(math.Floor(x))}
	if c := int64(math.Ceil(x)); c != xs[0] {
		xs = append(xs, c)
	}
	ys := []int64{int64(math.Floor(y))}
	if c := int64(math.Ceil(y)); c != ys[0] {
		ys = append(ys, c)
	}
	var out [][2]int64
	for _, a := range xs {
		for _, b := range ys {
			out = append(out, [2]int64{a, b})
		}
	}
	return out
}
