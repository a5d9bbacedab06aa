package snapshot

import "strings"

// What a person can click, drag or pick is an element whatever its markup
// says (docs/architecture.md, "Snapshots and refs"): the rules below find it
// by what the page binds to it — a click listener, a drag, a focusable
// handle in a slider's track, an item of a listbox or menu — and by its
// size, since a click listener on a whole section is no control.

// Limits of a compact element: one a person clicks as one thing (an icon, a
// menu entry, a cell) rather than a region that listens for its children.
const (
	compactWidth  = 400
	compactHeight = 64
	compactText   = 60
)

// compact reports whether node r of the capture, accessibility node i of
// frame f, is small enough to be one control: its box fits the limits and
// its text is short.
func (b *builder) compact(f int, i int32, r domRef) bool {
	bb, ok := b.p.bounds(r)
	if !ok || bb.Width <= 0 || bb.Height <= 0 || bb.Width > compactWidth || bb.Height > compactHeight {
		return false
	}
	if i < 0 {
		return len(b.p.domText(r, true, noDOM)) <= compactText
	}
	return len(b.axText(int32(f), i)) <= compactText
}

// itemRoles are the roles of the items of a container widget, by the
// container's role.
var itemRoles = map[string]string{"listbox": "option", "menu": "menuitem", "menubar": "menuitem"}

// itemRole is the role of node r as an item of a listbox or menu: its
// parent's role says what its children are, whatever their tags; "" when
// the parent is neither.
func (p *page) itemRole(r domRef) string {
	par := p.parent(r)
	if t := p.tag(par); t == "SELECT" || t == "DATALIST" {
		return ""
	}
	role, _ := p.attr(par, "role")
	return itemRoles[strings.TrimSpace(role)]
}

// dragged reports whether a person drags node r: it is draggable, its
// cursor says it can be grabbed, or it is an item of a sortable list (a
// list that listens to the mouse itself and says it sorts).
func (p *page) dragged(r domRef) bool {
	if v, _ := p.attr(r, "draggable"); v == "true" {
		return true
	}
	switch p.style(r, p.styles.cursor) {
	case "grab", "-webkit-grab", "move":
		return true
	}
	par := p.parent(r)
	if !p.clickable(par) {
		return false
	}
	cls, _ := p.attr(par, "class")
	drop, list := false, false
	for _, c := range strings.Fields(cls) {
		for _, w := range classWords(c) {
			switch w {
			case "sortable", "draggable", "dnd", "reorder", "reorderable", "dragula":
				return true
			case "drop":
				drop = true
			case "list":
				list = true
			}
		}
	}
	return drop && list // Angular CDK's cdk-drop-list
}

// sliderHandle reports whether a focusable node r is a slider's handle by
// its classes: a handle, thumb or knob, of something called a slider or a
// range (jQuery UI's ui-slider-handle), which no role says.
func (p *page) sliderHandle(r domRef) bool {
	own, _ := p.attr(r, "class")
	if !hasClassWord(own, "handle", "thumb", "knob") {
		return false
	}
	par, _ := p.attr(p.parent(r), "class")
	return hasClassWord(own, "slider", "range") || hasClassWord(par, "slider", "range")
}

// hoverMenu reports whether node r opens a menu on hover: an item of a menu
// bar that holds a list not rendered now, in which something listens for
// clicks (a submenu that CSS shows on :hover).
func (p *page) hoverMenu(r domRef) bool {
	if p.tag(r) != "LI" {
		return false
	}
	x := &p.docs[r.doc]
	depth := p.depths(int(r.doc))
	for _, c := range p.children(r) {
		if x.layoutOf[c.node] >= 0 {
			continue
		}
		switch p.tag(c) {
		case "UL", "OL", "MENU", "DIV", "NAV":
		default:
			continue
		}
		end := min(len(depth), int(c.node)+200)
		for j := int(c.node) + 1; j < end && depth[j] > depth[c.node]; j++ {
			if p.clickable(domRef{r.doc, int32(j)}) {
				return true
			}
		}
	}
	return false
}

// hasClassWord reports whether a class list has one of words among the
// words of its class names.
func hasClassWord(classes string, words ...string) bool {
	for _, c := range strings.Fields(classes) {
		for _, w := range classWords(c) {
			for _, want := range words {
				if w == want {
					return true
				}
			}
		}
	}
	return false
}

// domItems makes the element children of listbox or menu node r, which the
// accessibility tree leaves out when they carry no role of their own
// (Material's <li> items), elements of the container's item role: options
// or menu items with their text as their name. k is the container's
// candidate, or the nearest candidate ancestor when the container is none
// (a menu).
func (b *builder) domItems(f int, r domRef, role string, k int32) {
	p := b.p
	item := itemRoles[role]
	for _, c := range p.children(r) {
		ai := b.axIndex(c)
		if ai >= 0 {
			n := &p.frames[f].nodes[ai]
			if role := n.Role.Value.s; role != "generic" && role != "none" && role != "listitem" {
				// An item with a role of its own is visited as it is.
				continue
			}
		}
		if v := p.style(c, p.styles.visibility); v == "hidden" || v == "collapse" || p.style(c, p.styles.display) == "none" {
			continue
		}
		if v, _ := p.attr(c, "aria-hidden"); v == "true" {
			continue
		}
		bb, ok := p.bounds(c)
		if !ok || bb.Width <= 0 || bb.Height <= 0 || !isWordy(p.domText(c, true, noDOM)) {
			continue
		}
		b.cands = append(b.cands, cand{
			frame: int32(f), ax: ai, dom: c, parent: k, role: item,
			interactive: true, host: true, bbox: bb, vis: p.visClass(bb, true), prio: otherPriority,
		})
		if ai >= 0 {
			// Made here, in document order with its siblings; the walk
			// takes it as it is when it reaches it.
			b.candOf[f][ai] = int32(len(b.cands) - 1)
		}
		if k >= 0 {
			b.cands[k].items = true
		}
	}
}

// compactish reports whether node r has a box no bigger than a list item
// or a card a person drags: the limits of compact, twice over.
func (b *builder) compactish(r domRef) bool {
	bb, ok := b.p.bounds(r)
	return ok && bb.Width > 0 && bb.Height > 0 && bb.Width <= 2*compactWidth && bb.Height <= 4*compactHeight
}

// axIndex is the index of DOM node r's unignored accessibility node in its
// frame's tree, or -1.
func (b *builder) axIndex(r domRef) int32 {
	if b.axOf == nil {
		b.axOf = make([][]int32, len(b.p.docs))
		for di := range b.p.docs {
			b.axOf[di] = make([]int32, len(b.p.docs[di].layoutOf))
			for j := range b.axOf[di] {
				b.axOf[di][j] = -1
			}
		}
		for fi := range b.p.frames {
			for ni := range b.p.frames[fi].nodes {
				n := &b.p.frames[fi].nodes[ni]
				if n.Ignored || n.BackendNodeID == 0 {
					continue
				}
				if d, ok := b.p.byBackend[n.BackendNodeID]; ok && int(d.node) < len(b.axOf[d.doc]) {
					b.axOf[d.doc][d.node] = int32(ni)
				}
			}
		}
	}
	if r.doc < 0 || int(r.node) >= len(b.axOf[r.doc]) {
		return -1
	}
	return b.axOf[r.doc][r.node]
}

// backendID is DOM node r's backend node id, or 0.
func (p *page) backendID(r domRef) int64 {
	if r.doc < 0 {
		return 0
	}
	ids := p.docs[r.doc].d.Nodes.BackendNodeID
	if int(r.node) >= len(ids) {
		return 0
	}
	return ids[r.node]
}
