package snapshot

import "strings"

// drawnMaxNodes bounds the nodes looked at for where an element of no size
// is drawn.
const drawnMaxNodes = 64

// drawnBounds is where element r, whose own layout box has no size, is
// drawn: the box around the layout boxes of its pseudo-elements (an icon a
// ::before draws outside a button of no size) and of what is inside it (a
// glyph overflowing an element of no width), in viewport coordinates;
// false when nothing there has a size. A person sees and clicks the
// element there (the browser's hit test gives a pseudo-element's point to
// its element), and a click by its ref goes there (browser.Inspect).
func (p *page) drawnBounds(r domRef) (BBox, bool) {
	if r.doc < 0 {
		return BBox{}, false
	}
	parents := p.docs[r.doc].d.Nodes.ParentIndex
	var out BBox
	found := false
	// In the capture's pre-order, r's subtree (its pseudo-elements
	// included) is the run of nodes after it whose parents are in it.
	for j := int(r.node) + 1; j < len(parents) && j <= int(r.node)+drawnMaxNodes && parents[j] >= int(r.node); j++ {
		b, ok := p.bounds(domRef{r.doc, int32(j)})
		if !ok || b.Width <= 0 || b.Height <= 0 {
			continue
		}
		if !found {
			out, found = b, true
			continue
		}
		x0, y0 := min(out.X, b.X), min(out.Y, b.Y)
		x1, y1 := max(out.X+out.Width, b.X+b.Width), max(out.Y+out.Height, b.Y+b.Height)
		out = BBox{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
	}
	return out, found
}

// labelBounds is where a checkbox or radio of no size is drawn for a person:
// the box of its label (the label around it, else the first whose for
// names its id), where a click by its ref goes (browser.Inspect); false
// when it has none with a size.
func (p *page) labelBounds(r domRef) (BBox, bool) {
	if p.tag(r) != "INPUT" {
		return BBox{}, false
	}
	if t, _ := p.attr(r, "type"); !strings.EqualFold(t, "checkbox") && !strings.EqualFold(t, "radio") {
		return BBox{}, false
	}
	sized := func(l domRef) (BBox, bool) {
		b, ok := p.bounds(l)
		return b, ok && b.Width > 0 && b.Height > 0
	}
	for a, i := p.parent(r), 0; a.doc >= 0 && i < 16; a, i = p.parent(a), i+1 {
		if p.tag(a) == "LABEL" {
			return sized(a)
		}
	}
	id, ok := p.attr(r, "id")
	if !ok || id == "" {
		return BBox{}, false
	}
	for j := range p.docs[r.doc].d.Nodes.NodeName {
		l := domRef{r.doc, int32(j)}
		if p.tag(l) != "LABEL" {
			continue
		}
		if f, _ := p.attr(l, "for"); f == id {
			return sized(l)
		}
	}
	return BBox{}, false
}
