package snapshot

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
