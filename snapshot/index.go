package snapshot

import (
	"encoding/json"
	"fmt"

	"github.com/chaperone-mcp/chaperone/capture"
)

// page is a capture decoded and indexed once, so that every later lookup is a
// slice or map access: accessibility nodes by id, DOM nodes by backend id,
// layout objects by node, and each document's offset into the viewport.
type page struct {
	dom    domCapture
	docs   []docIndex
	frames []frameIndex
	// byBackend finds a DOM node by backend node id across all documents.
	byBackend map[int64]domRef
	// frameByID finds a frame's accessibility tree by frame id.
	frameByID map[string]int
	styles    stylePositions
	// listens holds the gestures each DOM node listens for itself
	// (gestures.go); nil when none does.
	listens map[domRef]uint8
	// gestureLeft counts the row texts a page-wide listener would have
	// made elements of past maxPageHolders, and gestureLeftBits their
	// gestures.
	gestureLeft     int
	gestureLeftBits uint8
	// vw and vh are the viewport size in CSS pixels.
	vw, vh float64
	notes  []string
}

// domRef locates a DOM node: document index and node index.
type domRef struct{ doc, node int32 }

// noDOM is the domRef of an accessibility node without a DOM node.
var noDOM = domRef{-1, -1}

// frameIndex is one frame's accessibility tree.
type frameIndex struct {
	id, url string
	nodes   []axNode
	byID    map[string]int32
	root    int32
}

// docIndex is one document of the layout capture with its lookup tables.
type docIndex struct {
	d       *domDocument
	url     string
	frameID string
	// layoutOf is a node's first layout object, or -1.
	layoutOf  []int32
	clickable []bool
	// inputValue and textValue map a node to a string index.
	inputValue map[int]int
	textValue  map[int]int
	// contentDoc maps a frame owner node to its content document.
	contentDoc map[int]int
	// boxes maps a text layout object to its first text box and count.
	boxStart []int32
	boxCount []int32
	// ox, oy turn the document's page coordinates into viewport
	// coordinates: viewport = page + (ox, oy).
	ox, oy    float64
	originSet bool
	// depth is each node's tree depth, computed on first use.
	depth []int32
	// only counts the elements of each node other than scripts and styles
	// (gestures.go), computed once when asked.
	only []int32
	// labels maps the for attribute of each <label> to the label's node,
	// built on first use.
	labels map[string]int32
}

// stylePositions says where each computed style we read sits in a layout
// object's style list; -1 when the capture did not ask for it.
type stylePositions struct {
	display, visibility, cursor, overflowX, overflowY int
	// What a CSS image or an SVG shape draws (values.go).
	backgroundImage, content, fill int
	// These are in a judged capture only (capture.JudgedStyles).
	opacity, color, fontSize, clipPath, clip, position, textFill, filter, background int
}

func newStylePositions(names []string) stylePositions {
	p := stylePositions{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	for i, n := range names {
		switch n {
		case "background-image":
			p.backgroundImage = i
		case "content":
			p.content = i
		case "fill":
			p.fill = i
		case "opacity":
			p.opacity = i
		case "color":
			p.color = i
		case "font-size":
			p.fontSize = i
		case "clip-path":
			p.clipPath = i
		case "clip":
			p.clip = i
		case "position":
			p.position = i
		case "-webkit-text-fill-color":
			p.textFill = i
		case "filter":
			p.filter = i
		case "background-color":
			p.background = i
		case "display":
			p.display = i
		case "visibility":
			p.visibility = i
		case "cursor":
			p.cursor = i
		case "overflow-x":
			p.overflowX = i
		case "overflow-y":
			p.overflowY = i
		}
	}
	return p
}

// newPage decodes and indexes a capture. A part that does not decode is left
// out with a note, never an error: a snapshot of less is better than none.
func newPage(c *capture.Page) *page {
	p := &page{
		styles:    newStylePositions(c.Styles),
		frameByID: make(map[string]int, len(c.Frames)),
		vw:        c.Viewport.Width,
		vh:        c.Viewport.Height,
	}
	if len(c.DOM) > 0 {
		dom, err := decodeDOM(c.DOM)
		p.dom = dom
		if err != nil {
			err = json.Unmarshal(c.DOM, &p.dom)
		}
		if err != nil {
			p.dom = domCapture{}
			p.notes = append(p.notes, fmt.Sprintf("layout capture unreadable (%v); positions unknown", err))
		}
	}
	for _, r := range c.RemoteDOM {
		if err := p.dom.merge(r); err != nil {
			p.notes = append(p.notes, fmt.Sprintf("layout capture of frame %s unreadable (%v); its positions unknown", r.FrameID, err))
		}
	}
	p.indexDocs()
	p.indexGestures(c.Gestures)
	for _, f := range c.Frames {
		if len(f.AX) == 0 {
			continue
		}
		var t axTree
		nodes, err := decodeAXTree(f.AX)
		if err == nil {
			t.Nodes = nodes
		} else if err := json.Unmarshal(f.AX, &t); err != nil {
			p.notes = append(p.notes, fmt.Sprintf("accessibility tree of frame %s unreadable: %v", f.URL, err))
			continue
		}
		if f.NodeBase != 0 {
			for i := range t.Nodes {
				if t.Nodes[i].BackendNodeID != 0 {
					t.Nodes[i].BackendNodeID += f.NodeBase
				}
			}
		}
		fi := frameIndex{id: f.FrameID, url: f.URL, nodes: t.Nodes, byID: make(map[string]int32, len(t.Nodes)), root: -1}
		for i := range t.Nodes {
			fi.byID[t.Nodes[i].NodeID] = int32(i)
		}
		for i := range t.Nodes {
			if _, ok := fi.byID[t.Nodes[i].ParentID]; !ok {
				fi.root = int32(i)
				break
			}
		}
		if f.FrameID != "" {
			p.frameByID[f.FrameID] = len(p.frames)
		}
		p.frames = append(p.frames, fi)
	}
	if (p.vw <= 0 || p.vh <= 0) && len(p.docs) > 0 {
		if b, ok := p.bounds(domRef{0, 0}); ok {
			p.vw, p.vh = b.Width, b.Height
		}
	}
	return p
}

// indexDocs builds each document's lookup tables and viewport offset.
func (p *page) indexDocs() {
	p.docs = make([]docIndex, len(p.dom.Documents))
	n := 0
	for i := range p.dom.Documents {
		n += len(p.dom.Documents[i].Nodes.BackendNodeID)
	}
	p.byBackend = make(map[int64]domRef, n)
	for di := range p.dom.Documents {
		d := &p.dom.Documents[di]
		x := &p.docs[di]
		x.d = d
		x.url = p.dom.str(d.DocumentURL)
		x.frameID = p.dom.str(d.FrameID)
		nodes := len(d.Nodes.ParentIndex)
		if len(d.Nodes.BackendNodeID) > nodes {
			nodes = len(d.Nodes.BackendNodeID)
		}
		for ni, id := range d.Nodes.BackendNodeID {
			p.byBackend[id] = domRef{int32(di), int32(ni)}
		}
		x.layoutOf = make([]int32, nodes)
		for i := range x.layoutOf {
			x.layoutOf[i] = -1
		}
		for li, ni := range d.Layout.NodeIndex {
			if ni >= 0 && ni < nodes && x.layoutOf[ni] < 0 {
				x.layoutOf[ni] = int32(li)
			}
		}
		x.clickable = make([]bool, nodes)
		for _, ni := range d.Nodes.IsClickable.Index {
			if ni >= 0 && ni < nodes {
				x.clickable[ni] = true
			}
		}
		x.inputValue = sparse(d.Nodes.InputValue)
		x.textValue = sparse(d.Nodes.TextValue)
		x.contentDoc = sparse(d.Nodes.ContentDocumentIndex)
		x.boxStart = make([]int32, len(d.Layout.NodeIndex))
		x.boxCount = make([]int32, len(d.Layout.NodeIndex))
		for bi, li := range d.TextBoxes.LayoutIndex {
			if li < 0 || li >= len(x.boxStart) {
				continue
			}
			if x.boxCount[li] == 0 {
				x.boxStart[li] = int32(bi)
			}
			x.boxCount[li]++
		}
	}
	// A child document's offset depends on its owner iframe's, so resolve
	// owners first.
	owner := make(map[int]domRef)
	for di := range p.docs {
		for ni, child := range p.docs[di].contentDoc {
			if child >= 0 && child < len(p.docs) {
				owner[child] = domRef{int32(di), int32(ni)}
			}
		}
	}
	for di := range p.docs {
		p.origin(di, owner, 0)
	}
}

// merge adds the documents of an out-of-process frame's layout capture to
// d, as if one capture had seen them all: their strings are appended to
// d's and their string indexes moved, their backend node ids get the
// frame's NodeBase, and the iframe element that owns the frame gets it as
// its content document, so that offsets, elements and page text reach into
// the frame as into a same-process one.
func (d *domCapture) merge(r capture.RemoteDOM) error {
	sub, err := decodeDOM(r.DOM)
	if err != nil {
		if err := json.Unmarshal(r.DOM, &sub); err != nil {
			return err
		}
	}
	if len(sub.Documents) == 0 {
		return nil
	}
	owner := noDOM
	for di := range d.Documents {
		for ni, id := range d.Documents[di].Nodes.BackendNodeID {
			if id == r.Owner {
				owner = domRef{int32(di), int32(ni)}
			}
		}
	}
	if owner == noDOM {
		return fmt.Errorf("its iframe element (node %d) is not in the page", r.Owner)
	}
	strBase, docBase := len(d.Strings), len(d.Documents)
	str := func(v []int) {
		for i, s := range v {
			if s >= 0 {
				v[i] = s + strBase
			}
		}
	}
	for di := range sub.Documents {
		doc := &sub.Documents[di]
		if doc.DocumentURL >= 0 {
			doc.DocumentURL += strBase
		}
		if doc.FrameID >= 0 {
			doc.FrameID += strBase
		}
		n := &doc.Nodes
		str(n.NodeName)
		str(n.NodeValue)
		for _, a := range n.Attributes {
			str(a)
		}
		str(n.TextValue.Value)
		str(n.InputValue.Value)
		for i := range n.ContentDocumentIndex.Value {
			n.ContentDocumentIndex.Value[i] += docBase
		}
		for i, id := range n.BackendNodeID {
			n.BackendNodeID[i] = id + r.NodeBase
		}
		for _, st := range doc.Layout.Styles {
			str(st)
		}
		str(doc.Layout.Text)
		str(doc.Layout.BlendedBackgroundColors)
	}
	d.Strings = append(d.Strings, sub.Strings...)
	d.Documents = append(d.Documents, sub.Documents...)
	cd := &d.Documents[owner.doc].Nodes.ContentDocumentIndex
	cd.Index = append(cd.Index, int(owner.node))
	cd.Value = append(cd.Value, docBase)
	return nil
}

func sparse(r rareStrings) map[int]int {
	if len(r.Index) == 0 {
		return nil
	}
	m := make(map[int]int, len(r.Index))
	for i, ni := range r.Index {
		if i < len(r.Value) {
			m[ni] = r.Value[i]
		}
	}
	return m
}

// origin works out document di's viewport offset. DOMSnapshot reports each
// document's boxes in that document's own page coordinates: the main
// document's include its scroll, and an iframe's content starts at 0,0. So a
// child document sits at its owner iframe's viewport position plus the
// iframe's border (clientLeft/clientTop) and padding, minus its own scroll.
// Padding is not in the capture; it is taken as half of what the iframe's
// client box has beyond the child's viewport.
func (p *page) origin(di int, owner map[int]domRef, depth int) {
	x := &p.docs[di]
	if x.originSet {
		return
	}
	x.originSet = true
	x.ox, x.oy = -x.d.ScrollOffsetX, -x.d.ScrollOffsetY
	o, ok := owner[di]
	if !ok || depth > 16 {
		return
	}
	p.origin(int(o.doc), owner, depth+1)
	b, ok := p.bounds(o)
	if !ok {
		return
	}
	od := &p.docs[o.doc]
	li := od.layoutOf[o.node]
	var cl, ct, cw, ch float64
	if int(li) < len(od.d.Layout.ClientRects) {
		r := rect(od.d.Layout.ClientRects[li])
		cl, ct, cw, ch = r.X, r.Y, r.Width, r.Height
	}
	if cw == 0 && ch == 0 {
		cw, ch = b.Width, b.Height
	}
	var vw, vh float64
	if v, ok := p.rawBounds(domRef{int32(di), 0}); ok {
		vw, vh = v.Width, v.Height
	}
	padX, padY := 0.0, 0.0
	if vw > 0 && cw > vw {
		padX = (cw - vw) / 2
	}
	if vh > 0 && ch > vh {
		padY = (ch - vh) / 2
	}
	x.ox += b.X + cl + padX
	x.oy += b.Y + ct + padY
}

// rawBounds is a node's layout box in its document's page coordinates.
func (p *page) rawBounds(r domRef) (BBox, bool) {
	if r.doc < 0 || int(r.doc) >= len(p.docs) {
		return BBox{}, false
	}
	x := &p.docs[r.doc]
	if r.node < 0 || int(r.node) >= len(x.layoutOf) {
		return BBox{}, false
	}
	li := x.layoutOf[r.node]
	if li < 0 || int(li) >= len(x.d.Layout.Bounds) {
		return BBox{}, false
	}
	return rect(x.d.Layout.Bounds[li]), true
}

// bounds is a node's layout box in viewport coordinates; false when the node
// has no layout object (display:none, display:contents, a closed select's
// options).
func (p *page) bounds(r domRef) (BBox, bool) {
	b, ok := p.rawBounds(r)
	if !ok {
		return b, false
	}
	x := &p.docs[r.doc]
	b.X += x.ox
	b.Y += x.oy
	return b, true
}

// style returns computed style pos of node r, or "" when unknown.
func (p *page) style(r domRef, pos int) string {
	if pos < 0 || r.doc < 0 {
		return ""
	}
	x := &p.docs[r.doc]
	if r.node < 0 || int(r.node) >= len(x.layoutOf) {
		return ""
	}
	li := x.layoutOf[r.node]
	if li < 0 || int(li) >= len(x.d.Layout.Styles) {
		return ""
	}
	s := x.d.Layout.Styles[li]
	if pos >= len(s) {
		return ""
	}
	return p.dom.str(s[pos])
}

// tag is a node's node name as the capture has it (upper case for HTML
// elements), or "".
func (p *page) tag(r domRef) string {
	if r.doc < 0 {
		return ""
	}
	n := &p.docs[r.doc].d.Nodes
	if int(r.node) >= len(n.NodeName) {
		return ""
	}
	return p.dom.str(n.NodeName[r.node])
}

// attr returns attribute name of node r and whether it is present.
func (p *page) attr(r domRef, name string) (string, bool) {
	if r.doc < 0 {
		return "", false
	}
	n := &p.docs[r.doc].d.Nodes
	if int(r.node) >= len(n.Attributes) {
		return "", false
	}
	a := n.Attributes[r.node]
	for i := 0; i+1 < len(a); i += 2 {
		if p.dom.str(a[i]) == name {
			return p.dom.str(a[i+1]), true
		}
	}
	return "", false
}

// parent returns the parent of node r in its document, or noDOM.
func (p *page) parent(r domRef) domRef {
	if r.doc < 0 {
		return noDOM
	}
	n := &p.docs[r.doc].d.Nodes
	if int(r.node) >= len(n.ParentIndex) || n.ParentIndex[r.node] < 0 {
		return noDOM
	}
	return domRef{r.doc, int32(n.ParentIndex[r.node])}
}

// clickable reports whether Chromium saw a click handler on node r (or it is
// a natively clickable element).
func (p *page) clickable(r domRef) bool {
	if r.doc < 0 {
		return false
	}
	c := p.docs[r.doc].clickable
	return int(r.node) < len(c) && c[r.node]
}

// scrollable reports whether node r scrolls: its overflow lets it, and its
// content is larger than its client box.
func (p *page) scrollable(r domRef) bool {
	if r.doc < 0 || r.node <= 0 {
		return false
	}
	ox, oy := p.style(r, p.styles.overflowX), p.style(r, p.styles.overflowY)
	scrolls := func(v string) bool { return v == "auto" || v == "scroll" }
	if !scrolls(ox) && !scrolls(oy) {
		return false
	}
	x := &p.docs[r.doc]
	li := x.layoutOf[r.node]
	if li < 0 || int(li) >= len(x.d.Layout.ScrollRects) || int(li) >= len(x.d.Layout.ClientRects) {
		return false
	}
	s, c := rect(x.d.Layout.ScrollRects[li]), rect(x.d.Layout.ClientRects[li])
	return (scrolls(oy) && s.Height > c.Height+1 && c.Height > 0) ||
		(scrolls(ox) && s.Width > c.Width+1 && c.Width > 0)
}
