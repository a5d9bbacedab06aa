package snapshot

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/chaperone-mcp/chaperone/capture"
)

// This file writes small captures by hand: a tree of tnodes becomes one DOM
// node, one accessibility node and (with a box) one layout object each, in
// the shapes Chromium returns them (see testdata/captures for real ones).

// tnode is one node of a hand-written page.
type tnode struct {
	tag   string // DOM node name, upper case; "#text" for text
	role  string // accessibility role; "" makes the node ignored
	name  string // accessible name; for text nodes, the text
	attrs []string
	// props are accessibility properties by name.
	props map[string]any
	// value is the accessibility value.
	value any
	// box is the layout box in page coordinates; nil means no layout
	// object (display:none, an option of a closed select).
	box   []float64
	style map[string]string
	// inputValue and textValue are the DOM values of inputs and textareas.
	inputValue, textValue *string
	clickable             bool
	ignoredReason         string
	// scroll is the scroll rect size (scrollWidth, scrollHeight) of a
	// scroll container; its client rect is its box.
	scroll []float64
	// frame is the content document of an iframe.
	frame *tframe
	kids  []tnode
}

// tframe is an iframe's document.
type tframe struct {
	url  string
	vw   float64 // its viewport width and height
	vh   float64
	kids []tnode
}

func str(s string) *string { return &s }

// Shorthands for common nodes.
func text(s string, box ...float64) tnode {
	return tnode{tag: "#text", role: "StaticText", name: s, box: box}
}
func button(name string, box ...float64) tnode {
	return tnode{tag: "BUTTON", role: "button", name: name, box: box, props: map[string]any{"focusable": true}, clickable: true, kids: []tnode{text(name, box...)}}
}

// tcapture assembles a capture of a 1280×720 viewport at scroll (0, 0)
// holding the given body content.
func tcapture(kids ...tnode) *capture.Page {
	return tcaptureAt(capture.Viewport{Width: 1280, Height: 720}, kids...)
}

// tcaptureAt assembles a capture with the given viewport.
func tcaptureAt(vp capture.Viewport, kids ...tnode) *capture.Page {
	b := &tbuilder{idx: map[string]int{}, styles: capture.Styles()}
	c := &capture.Page{URL: "https://example.test/", Title: "Test", Viewport: vp, Styles: b.styles}
	b.document("https://example.test/", "MAIN", 1280, 720, vp.ScrollX, vp.ScrollY, kids)
	docs := make([]any, len(b.docs))
	for i, d := range b.docs {
		docs[i] = d.json()
	}
	dom, _ := json.Marshal(map[string]any{"documents": docs, "strings": b.strs})
	c.DOM = dom
	for _, d := range b.docs {
		ax, _ := json.Marshal(map[string]any{"nodes": d.ax})
		c.Frames = append(c.Frames, capture.Frame{FrameID: d.frameID, URL: d.url, AX: ax})
	}
	return c
}

type tbuilder struct {
	strs   []string
	idx    map[string]int
	docs   []*tdoc
	nextID int64
	styles []string
}

type tdoc struct {
	url, frameID                          string
	urlIdx, frameIdx                      int
	parent, nodeType, nodeName, nodeValue []int
	backend                               []int64
	attrs                                 [][]int
	inputIdx, inputVal, textIdx, textVal  []int
	docIdx, docVal, clickable             []int
	layoutNode, layoutText                []int
	styles                                [][]int
	bounds, scrollRects, clientRects      [][]float64
	tbLayout, tbStart, tbLen              []int
	tbBounds                              [][]float64
	ax                                    []map[string]any
	scrollX, scrollY                      float64
}

func (b *tbuilder) s(v string) int {
	if i, ok := b.idx[v]; ok {
		return i
	}
	b.strs = append(b.strs, v)
	b.idx[v] = len(b.strs) - 1
	return len(b.strs) - 1
}

// document adds a document with html and body (both ignored in the
// accessibility tree, as Chromium has them) around kids and returns its index.
func (b *tbuilder) document(url, frameID string, w, h, sx, sy float64, kids []tnode) int {
	d := &tdoc{url: url, frameID: frameID, urlIdx: b.s(url), frameIdx: b.s(frameID), scrollX: sx, scrollY: sy}
	b.docs = append(b.docs, d)
	di := len(b.docs) - 1
	root := tnode{tag: "#document", role: "RootWebArea", box: []float64{0, 0, w, h}, props: map[string]any{"focusable": true}, kids: []tnode{
		{tag: "HTML", box: []float64{0, 0, w, h}, kids: []tnode{
			{tag: "BODY", box: []float64{0, 0, w, h}, kids: kids},
		}},
	}}
	b.add(d, root, -1, "")
	return di
}

// add appends n under DOM node parent and accessibility node axParent and
// returns its accessibility node id.
func (b *tbuilder) add(d *tdoc, n tnode, parent int, axParent string) string {
	b.nextID++
	id := b.nextID
	ni := len(d.parent)
	d.parent = append(d.parent, parent)
	typ := 1
	switch n.tag {
	case "#text":
		typ = 3
	case "#document":
		typ = 9
	}
	d.nodeType = append(d.nodeType, typ)
	d.nodeName = append(d.nodeName, b.s(n.tag))
	if typ == 3 {
		d.nodeValue = append(d.nodeValue, b.s(n.name))
	} else {
		d.nodeValue = append(d.nodeValue, -1)
	}
	d.backend = append(d.backend, id)
	var attrs []int
	for i := 0; i+1 < len(n.attrs); i += 2 {
		attrs = append(attrs, b.s(n.attrs[i]), b.s(n.attrs[i+1]))
	}
	d.attrs = append(d.attrs, attrs)
	if n.inputValue != nil {
		d.inputIdx, d.inputVal = append(d.inputIdx, ni), append(d.inputVal, b.s(*n.inputValue))
	}
	if n.textValue != nil {
		d.textIdx, d.textVal = append(d.textIdx, ni), append(d.textVal, b.s(*n.textValue))
	}
	if n.clickable {
		d.clickable = append(d.clickable, ni)
	}
	if n.box != nil {
		li := len(d.layoutNode)
		d.layoutNode = append(d.layoutNode, ni)
		d.bounds = append(d.bounds, n.box)
		var st []int
		if typ == 1 {
			for _, name := range b.styles {
				v, ok := n.style[name]
				if !ok {
					v = map[string]string{"display": "block", "visibility": "visible", "cursor": "auto", "overflow-x": "visible", "overflow-y": "visible", "opacity": "1", "pointer-events": "auto"}[name]
				}
				st = append(st, b.s(v))
			}
		}
		d.styles = append(d.styles, st)
		client := []float64{0, 0, n.box[2], n.box[3]}
		scroll := client
		if n.scroll != nil {
			scroll = []float64{0, 0, n.scroll[0], n.scroll[1]}
		}
		d.clientRects = append(d.clientRects, client)
		d.scrollRects = append(d.scrollRects, scroll)
		if typ == 3 {
			d.layoutText = append(d.layoutText, b.s(n.name))
			d.tbLayout = append(d.tbLayout, li)
			d.tbBounds = append(d.tbBounds, n.box)
			d.tbStart = append(d.tbStart, 0)
			d.tbLen = append(d.tbLen, len(n.name))
		} else {
			d.layoutText = append(d.layoutText, -1)
		}
	}
	if n.frame != nil {
		child := b.document(n.frame.url, "F"+strconv.Itoa(len(b.docs)), n.frame.vw, n.frame.vh, 0, 0, n.frame.kids)
		d.docIdx, d.docVal = append(d.docIdx, ni), append(d.docVal, child)
	}

	axID := strconv.FormatInt(id, 10)
	ax := map[string]any{"nodeId": axID, "backendDOMNodeId": id, "childIds": []string{}}
	if axParent != "" {
		ax["parentId"] = axParent
	} else {
		ax["frameId"] = d.frameID
	}
	if n.role == "" {
		ax["ignored"] = true
		reason := n.ignoredReason
		if reason == "" {
			reason = "uninteresting"
		}
		ax["ignoredReasons"] = []any{map[string]any{"name": reason, "value": map[string]any{"type": "boolean", "value": true}}}
		ax["role"] = map[string]any{"type": "role", "value": "none"}
	} else {
		ax["ignored"] = n.ignoredReason != ""
		ax["role"] = map[string]any{"type": "role", "value": n.role}
		ax["name"] = map[string]any{"type": "computedString", "value": n.name}
		if n.value != nil {
			ax["value"] = map[string]any{"type": "string", "value": n.value}
		}
		var props []any
		for k, v := range n.props {
			props = append(props, map[string]any{"name": k, "value": map[string]any{"type": "booleanOrUndefined", "value": v}})
		}
		if props != nil {
			ax["properties"] = props
		}
	}
	d.ax = append(d.ax, ax)
	var kids []string
	for _, k := range n.kids {
		kids = append(kids, b.add(d, k, ni, axID))
	}
	if kids != nil {
		ax["childIds"] = kids
	}
	return axID
}

func (d *tdoc) json() map[string]any {
	rare := func(idx, val []int) map[string]any {
		return map[string]any{"index": nz(idx), "value": nz(val)}
	}
	return map[string]any{
		"documentURL":   d.urlIdx,
		"frameId":       d.frameIdx,
		"scrollOffsetX": d.scrollX,
		"scrollOffsetY": d.scrollY,
		"nodes": map[string]any{
			"parentIndex":          d.parent,
			"nodeType":             d.nodeType,
			"nodeName":             d.nodeName,
			"nodeValue":            d.nodeValue,
			"backendNodeId":        d.backend,
			"attributes":           d.attrs,
			"inputValue":           rare(d.inputIdx, d.inputVal),
			"textValue":            rare(d.textIdx, d.textVal),
			"contentDocumentIndex": rare(d.docIdx, d.docVal),
			"isClickable":          map[string]any{"index": nz(d.clickable)},
		},
		"layout": map[string]any{
			"nodeIndex":   nz(d.layoutNode),
			"styles":      d.styles,
			"bounds":      d.bounds,
			"text":        nz(d.layoutText),
			"scrollRects": d.scrollRects,
			"clientRects": d.clientRects,
		},
		"textBoxes": map[string]any{
			"layoutIndex": nz(d.tbLayout),
			"bounds":      d.tbBounds,
			"start":       nz(d.tbStart),
			"length":      nz(d.tbLen),
		},
	}
}

func nz(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// build runs Build and checks that the snapshot's JSON validates against the
// schema, as every snapshot in every test must.
func build(t *testing.T, c *capture.Page, opts Options, firstRef int) (*Snapshot, Table, int) {
	t.Helper()
	s, table, next := Build(c, opts, firstRef)
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal snapshot: %v", err)
	}
	if err := Validate(data); err != nil {
		t.Fatalf("snapshot does not validate: %v\n%s", err, data)
	}
	return s, table, next
}
