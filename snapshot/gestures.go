package snapshot

import (
	"cmp"
	"slices"
	"strings"

	"github.com/chaperone-mcp/chaperone/capture"
)

// A person double-clicks a todo to edit it and right-clicks a file for its
// menu: what answers such a gesture is an element, and says which gesture
// it answers (docs/architecture.md, "Exposure by behaviour"). The capture
// lists the nodes the browser reports listening for one
// (capture.Page.Gestures); frameworks listen once on an ancestor (React on
// its root, jQuery's and Backbone's delegated handlers on the list), so a
// listener on a container stands for the text of the rows inside it: the
// leaf elements that hold each row's text. A listener on the document, its
// <html>, its <body> or a wrapper that is the whole page stands for the
// whole page: React 16 and earlier, jQuery's $(document).on, Ember's
// dispatcher and Aurelia's delegate listen there for a list's rows, and so
// do an analytics script and a page-wide context menu. Such a listener
// makes elements only of the text of what is plainly a list's row (an
// item, a table's row, a role's row, siblings that repeat at a row's
// height), never of a paragraph, a heading or a table's header, and of at
// most maxPageHolders of them; the rest are counted in a note.

// Gestures of an element, as bits.
const (
	gestureDouble uint8 = 1 << iota
	gestureRight
)

// The gestures an Element answers beside a plain click, as the snapshot
// writes them (Element.Gestures).
const (
	GestureDoubleClick = "double-click"
	GestureRightClick  = "right-click"
)

// Bounds on the work listening containers cost: the nodes walked for the
// rows of all of them, and inside each row for its text. A page that
// listens on thousands of nested containers gets no more.
const (
	maxGestureWalk = 50000
	maxRowWalk     = 200
)

// maxPageHolders bounds the row texts a page-wide listener makes elements
// of: a list of todos or files, not every cell of a long table.
const maxPageHolders = 40

// gestureText bounds the text of an element made by its gesture alone: a
// row's label or a file's name, not a paragraph.
const gestureText = 2 * compactText

// gestureBit is the bit of a listener's event type, 0 for any other.
func gestureBit(typ string) uint8 {
	switch typ {
	case capture.GestureDoubleClick:
		return gestureDouble
	case capture.GestureContextMenu:
		return gestureRight
	}
	return 0
}

// gestureWords are the gestures of bits g, in a fixed order; nil for none.
func gestureWords(g uint8) []string {
	var out []string
	if g&gestureDouble != 0 {
		out = append(out, GestureDoubleClick)
	}
	if g&gestureRight != 0 {
		out = append(out, GestureRightClick)
	}
	return out
}

// indexGestures records which DOM nodes listen for which gestures.
func (p *page) indexGestures(gs []capture.Gesture) {
	for _, g := range gs {
		bit := gestureBit(g.Type)
		r, ok := p.byBackend[g.Node]
		if bit == 0 || !ok {
			continue
		}
		if p.listens == nil {
			p.listens = make(map[domRef]uint8)
		}
		p.listens[r] |= bit
	}
}

// gestureTargets finds the nodes that answer a gesture, with its bits: a
// node with a listener of its own, or, for a listener on a container of
// rows, the text holders of those rows. Whether one becomes an element is
// classify's to say (its size, its text).
func (p *page) gestureTargets() map[domRef]uint8 {
	if len(p.listens) == 0 {
		return nil
	}
	nodes := make([]domRef, 0, len(p.listens))
	for r := range p.listens {
		nodes = append(nodes, r)
	}
	// In document order, so that the walk's bound cuts the same ones
	// each time.
	slices.SortFunc(nodes, func(a, b domRef) int { return cmp.Or(cmp.Compare(a.doc, b.doc), cmp.Compare(a.node, b.node)) })
	out := make(map[domRef]uint8)
	left := maxGestureWalk
	// The whole page's listeners, by document: the outermost node that
	// listens, and the gestures of all of them.
	type scope struct {
		root domRef
		bits uint8
	}
	var pages []scope
	pageOf := make(map[int32]int)
	whole := make(map[domRef]bool)
	for _, r := range nodes {
		bits := p.listens[r]
		switch p.nodeType(r) {
		case 1:
			if t := p.tag(r); t != "HTML" && t != "BODY" && !p.pageWrapper(r) {
				break
			}
			fallthrough
		case 9:
			whole[r] = true
			if k, ok := pageOf[r.doc]; ok {
				pages[k].bits |= bits
			} else {
				pageOf[r.doc] = len(pages)
				pages = append(pages, scope{r, bits})
			}
			continue
		case 11:
			// A shadow root: the component's own tree is its container.
		default:
			continue
		}
		if left <= 0 {
			continue
		}
		if !p.delegate(r, bits, out, &left) && p.nodeType(r) == 1 {
			out[r] |= bits
		}
	}
	// After the containers, so that a row a list of its own delegates
	// keeps what its list gives it.
	held := 0
	for _, sc := range pages {
		if left <= 0 {
			break
		}
		if !p.delegatePage(sc.root, sc.bits, whole, out, &left, &held) && p.nodeType(sc.root) == 1 {
			// A wrapper with no row inside (the only text of a frame):
			// itself, if it is a row's size.
			if t := p.tag(sc.root); t != "HTML" && t != "BODY" {
				out[sc.root] |= sc.bits
			}
		}
	}
	return out
}

// delegatePage gives the gesture bits of a listener on the whole page
// (root: its document, <html>, <body> or only wrapper; whole holds every
// node that listens for the whole page) to the text holders of the rows
// inside it that no other listening node covers, the first
// maxPageHolders of them; held counts those given so far, across the
// page's documents, and the rest are counted in p.gestureLeft. It reports
// whether root holds any such row.
func (p *page) delegatePage(root domRef, bits uint8, whole map[domRef]bool, out map[domRef]uint8, left, held *int) bool {
	depth := p.depths(int(root.doc))
	end := int(root.node) + 1
	for end < len(depth) && depth[end] > depth[root.node] && end <= int(root.node)+*left {
		end++
	}
	*left -= end - int(root.node) - 1
	var rows []domRef
	for _, row := range p.rowsIn(root.doc, int(root.node)+1, end) {
		if p.pageRow(row) && !p.coveredBelow(row, root, whole) {
			rows = append(rows, row)
		}
	}
	isRow := make(map[int32]bool, len(rows))
	for _, row := range rows {
		isRow[row.node] = true
	}
	for _, row := range rows {
		if *left <= 0 {
			break
		}
		*left -= p.textHolders(row, isRow, func(h domRef) {
			switch p.tag(h) {
			case "P", "H1", "H2", "H3", "H4", "H5", "H6", "TH", "CAPTION", "LEGEND", "FIGCAPTION", "BLOCKQUOTE", "PRE":
				return
			}
			if out[h]&bits == bits {
				return
			}
			if *held >= maxPageHolders {
				p.gestureLeft++
				p.gestureLeftBits |= bits
				return
			}
			*held++
			out[h] |= bits
		})
	}
	return len(rows) > 0
}

// pageRow reports whether row, one of rowsIn's, is plainly a list's row
// when the whole page listens: an item, a table's row or cell, an element
// whose role makes it one, or a sibling that repeats no taller than a row
// and is no part of the page's layout (a section, a card's heading).
func (p *page) pageRow(row domRef) bool {
	if p.rowByMarkup(row) {
		return true
	}
	if role, _ := p.attr(row, "role"); strings.TrimSpace(role) == "gridcell" {
		return true
	}
	switch p.tag(row) {
	case "DIV", "SPAN", "A", "LABEL", "TD":
	default:
		return false
	}
	b, ok := p.bounds(row)
	return ok && b.Height > 0 && b.Height <= 4*compactHeight
}

// coveredBelow reports whether row or a node between it and the page's
// root listens itself, other than for the whole page (whole): that
// listener, not the page's, gives it a gesture.
func (p *page) coveredBelow(row, root domRef, whole map[domRef]bool) bool {
	for r, n := row, 0; r.doc >= 0 && r != root && n < 256; r, n = p.parent(r), n+1 {
		if p.listens[r] != 0 && !whole[r] {
			return true
		}
	}
	return false
}

// pageWrapper reports whether element r is the whole page: the only
// element of its parent, and so up to <body> (a framework's root that
// holds the app and nothing else beside it).
func (p *page) pageWrapper(r domRef) bool {
	x := &p.docs[r.doc]
	if x.only == nil {
		n := &x.d.Nodes
		x.only = make([]int32, len(n.ParentIndex))
		for j, par := range n.ParentIndex {
			if par < 0 || int(par) >= len(x.only) || p.nodeType(domRef{r.doc, int32(j)}) != 1 {
				continue
			}
			switch p.tag(domRef{r.doc, int32(j)}) {
			case "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "LINK", "META":
				continue
			}
			x.only[par]++
		}
	}
	for n := 0; n < 64; n++ {
		par := p.parent(r)
		if par.doc < 0 || p.nodeType(par) != 1 || int(par.node) >= len(x.only) || x.only[par.node] != 1 {
			return false
		}
		if p.tag(par) == "BODY" {
			return true
		}
		r = par
	}
	return false
}

// delegate gives the gesture bits of a listener on container r to the text
// holders of the rows inside it, and reports whether r holds any row. left
// is what is left of the nodes the walks may visit, and is used up.
func (p *page) delegate(r domRef, bits uint8, out map[domRef]uint8, left *int) bool {
	depth := p.depths(int(r.doc))
	end := int(r.node) + 1
	for end < len(depth) && depth[end] > depth[r.node] && end <= int(r.node)+*left {
		end++
	}
	*left -= end - int(r.node) - 1
	rows := p.rowsIn(r.doc, int(r.node)+1, end)
	isRow := make(map[int32]bool, len(rows))
	for _, row := range rows {
		isRow[row.node] = true
	}
	for _, row := range rows {
		if *left <= 0 {
			break
		}
		*left -= p.textHolders(row, isRow, func(h domRef) { out[h] |= bits })
	}
	return len(rows) > 0
}

// rowKey groups siblings that repeat: the same parent and tag, and the
// same classes, or the same attributes other than class, style and id
// (GWT's rows alternate two classes but each has __idx; a data-id).
type rowKey struct {
	parent, tag int
	mark        string
}

// rowsIn lists the rows among nodes [from, end) of document di, in order:
// a list's items, a table's rows, elements whose role says they are an
// item or a row, and siblings that repeat (a list drawn with <div>s).
func (p *page) rowsIn(di int32, from, end int) []domRef {
	n := &p.docs[di].d.Nodes
	keys := func(j int) []rowKey {
		if j >= len(n.ParentIndex) || j >= len(n.NodeName) || j >= len(n.Attributes) || p.nodeType(domRef{di, int32(j)}) != 1 {
			return nil
		}
		var names []string
		var out []rowKey
		a := n.Attributes[j]
		for i := 0; i+1 < len(a); i += 2 {
			switch name := p.dom.str(a[i]); name {
			case "class":
				if v := p.dom.str(a[i+1]); strings.TrimSpace(v) != "" {
					out = append(out, rowKey{n.ParentIndex[j], n.NodeName[j], "class " + v})
				}
			case "style", "id":
			default:
				names = append(names, name)
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			out = append(out, rowKey{n.ParentIndex[j], n.NodeName[j], "attributes " + strings.Join(names, " ")})
		}
		return out
	}
	repeats := make(map[rowKey]int)
	for j := from; j < end; j++ {
		for _, k := range keys(j) {
			repeats[k]++
		}
	}
	var rows []domRef
	for j := from; j < end; j++ {
		r := domRef{di, int32(j)}
		if p.nodeType(r) != 1 {
			continue
		}
		row := p.rowByMarkup(r)
		for _, k := range keys(j) {
			row = row || repeats[k] > 1
		}
		if row {
			rows = append(rows, r)
		}
	}
	return rows
}

// wholeItems are the roles of a row that is one control, which answers a
// gesture as a whole (a tree's folder, a list box's option).
var wholeItems = map[string]bool{"option": true, "treeitem": true}

// rowRoles are the roles of an item of a list, tree or grid.
var rowRoles = map[string]bool{"listitem": true, "row": true, "option": true, "treeitem": true}

// rowByMarkup reports whether node r is a row by what it is: an item of a
// list, a table row, or an element whose role makes it one.
func (p *page) rowByMarkup(r domRef) bool {
	switch p.tag(r) {
	case "LI":
		switch p.tag(p.parent(r)) {
		case "UL", "OL", "MENU":
			return true
		}
	case "TR":
		return true
	}
	role, _ := p.attr(r, "role")
	return rowRoles[strings.TrimSpace(role)]
}

// textHolders calls fn with each element of row that holds its text: the
// outermost elements with text of their own (a todo's <label>, a file's
// name and size), the row itself when its text is its own. Controls, whose
// text is theirs and which are elements already, and the rows nested in it
// (isRow, by node in row's document), which are visited as rows, are left
// out. It returns how many nodes it looked at.
func (p *page) textHolders(row domRef, isRow map[int32]bool, fn func(domRef)) int {
	if role, _ := p.attr(row, "role"); wholeItems[strings.TrimSpace(role)] {
		// An option or a tree's item is one control: it answers whole.
		fn(row)
		return 1
	}
	di := row.doc
	depth := p.depths(int(di))
	x := &p.docs[di]
	vals := x.d.Nodes.NodeValue
	end := int(row.node) + 1
	for end < len(depth) && depth[end] > depth[row.node] && end <= int(row.node)+maxRowWalk {
		end++
	}
	for j := int(row.node); j < end; j++ {
		r := domRef{di, int32(j)}
		if p.nodeType(r) != 1 {
			continue
		}
		skip := (j != int(row.node) && isRow[int32(j)]) || p.ownsText(r)
		if !skip && x.layoutOf[j] >= 0 {
			// Its own text: a rendered text node among its children.
			for c := j + 1; c < end && depth[c] > depth[j]; c++ {
				if depth[c] == depth[j]+1 && p.nodeType(domRef{di, int32(c)}) == 3 && x.layoutOf[c] >= 0 &&
					c < len(vals) && isWordy(p.dom.str(vals[c])) {
					fn(r)
					skip = true
					break
				}
			}
		}
		if skip {
			for j+1 < end && depth[j+1] > depth[j] {
				j++
			}
		}
	}
	return end - int(row.node)
}

// ownsText reports whether the text inside element r is not a row's to
// give: a control's (a link, a button, a field, a control's label), a
// script's or a style's.
func (p *page) ownsText(r domRef) bool {
	switch p.tag(r) {
	case "A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "OPTION", "SUMMARY", "SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT":
		return true
	case "LABEL":
		if _, ok := p.attr(r, "for"); ok {
			return true
		}
		depth := p.depths(int(r.doc))
		for j := int(r.node) + 1; j < len(depth) && depth[j] > depth[r.node]; j++ {
			switch p.tag(domRef{r.doc, int32(j)}) {
			case "INPUT", "SELECT", "TEXTAREA", "BUTTON":
				return true
			}
		}
	}
	role, _ := p.attr(r, "role")
	return interactiveRoles[strings.TrimSpace(role)]
}

// gestureSized reports whether node r may be an element by its gesture
// alone: a box no taller than a list item's (a block stretches across its
// list, so its width says nothing) and text short enough to be a row's
// label.
func (b *builder) gestureSized(f int, i int32, r domRef) bool {
	if bb, ok := b.p.bounds(r); !ok || bb.Width <= 0 || bb.Height <= 0 || bb.Height > 4*compactHeight {
		return false
	}
	if i < 0 || b.p.frames[f].nodes[i].Ignored {
		return len(b.p.domText(r, true, noDOM)) <= gestureText
	}
	return len(b.axText(int32(f), i)) <= gestureText
}

// plainlyIgnored reports whether the tree left node n out only for being
// of no interest (a <span>, a <div>), not for being hidden, inert or
// another's label.
func plainlyIgnored(n *axNode) bool {
	for i := range n.IgnoredReasons {
		switch n.IgnoredReasons[i].Name {
		case "uninteresting", "presentationalRole", "probablyPresentational":
		default:
			return false
		}
	}
	return true
}

// classifyGesture makes DOM node dom, which the tree leaves out (node i of
// frame f, ignored; or -1, not in the tree at all), an element when it
// answers a gesture (classify's rule for the nodes the tree keeps); it
// returns the candidate's index or -1.
func (b *builder) classifyGesture(f int, i int32, dom domRef, parent int32, within int8) int32 {
	p := b.p
	if dom.doc < 0 || within >= withinControl || p.nodeType(dom) != 1 || p.ownsText(dom) || b.answered[dom] {
		return -1
	}
	if b.answered == nil {
		b.answered = make(map[domRef]bool)
	}
	b.answered[dom] = true
	if v := p.style(dom, p.styles.visibility); v == "hidden" || v == "collapse" || p.style(dom, p.styles.display) == "none" {
		return -1
	}
	if !b.gestureSized(f, i, dom) {
		return -1
	}
	role := "generic"
	if p.clickable(dom) {
		role = "button"
	}
	return b.addCand(cand{
		frame: int32(f), ax: i, dom: dom, parent: parent, role: role,
		interactive: true, scrollable: p.scrollable(dom), gestures: b.answers[dom],
	})
}
