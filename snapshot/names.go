package snapshot

import (
	"strings"
	"unicode/utf8"
)

// fallbackName names a nameless element from what the page binds to the
// element itself, in this order: its title, placeholder or alt; its
// accessible description (aria-describedby); the text inside it, unless that
// text is a value (a div acting as a button, an alert); an icon inside it (an
// SVG <title>, an image's alt, an icon class or <use href>: "icon-trash" →
// "trash icon"); its label (<label for> or a wrapping <label>); the header
// cells of its table column and row; the legend of its fieldset; a link's
// address. It returns "" when nothing fits: a wrong name is worse than none,
// so text that merely comes before a control (an instruction, a captcha's
// letter) never names it.
func (b *builder) fallbackName(c *cand, n *axNode) string {
	p := b.p
	if c.dom.doc >= 0 {
		for _, a := range [...]string{"title", "placeholder", "aria-placeholder", "alt"} {
			if v, _ := p.attr(c.dom, a); v != "" {
				if v = collapseSpace(v); v != "" {
					return v
				}
			}
		}
	}
	if d := collapseSpace(n.Description.Value.String()); d != "" {
		return d
	}
	// A control's own text is its value (a password's dots, typed text):
	// never a name.
	tag := p.tag(c.dom)
	if !valueRoles[c.role] && tag != "INPUT" && tag != "TEXTAREA" && tag != "SELECT" {
		if t := b.ownText(c); isWordy(t) {
			return t
		}
	}
	if c.dom.doc < 0 {
		return ""
	}
	if s := p.descendantHint(c.dom); s != "" {
		return s
	}
	if s := p.cssImageHint(c.dom); s != "" {
		return s
	}
	if s := p.labelText(c.dom); s != "" {
		return s
	}
	if s := p.headerText(c.dom); s != "" {
		return s
	}
	if s := p.legendText(c.dom); s != "" {
		return s
	}
	if c.role == "link" {
		if v, _ := p.attr(c.dom, "href"); v != "" && !strings.HasPrefix(v, "javascript:") {
			return "link to " + v
		}
	}
	// A symbol a person reads as a label ("+", "×"), when nothing says
	// more: short, so that it is a label and not a value.
	if c.interactive && !valueRoles[c.role] && tag != "INPUT" && tag != "TEXTAREA" && tag != "SELECT" {
		if t := b.ownText(c); t != "" && utf8.RuneCountInString(t) <= 3 {
			return t
		}
	}
	return ""
}

// ownText is the text inside a candidate: from the accessibility tree, or
// for an item the tree leaves out, from the DOM.
func (b *builder) ownText(c *cand) string {
	if c.ax < 0 {
		return b.p.domText(c.dom, true, noDOM)
	}
	return b.axText(c.frame, c.ax)
}

// axText joins the text under an accessibility node, up to a little over
// maxNameLen characters. Text inside another element (an icon button in a
// clickable row) names that element, not this one, and is left out.
func (b *builder) axText(f, i int32) string {
	fr := &b.p.frames[f]
	own := b.candOf[f][i]
	var sb strings.Builder
	var walk func(i int32, depth int)
	walk = func(i int32, depth int) {
		if sb.Len() > maxNameLen*2 || depth > 64 {
			return
		}
		if k := b.candOf[f][i]; k >= 0 && k != own && b.cands[k].interactive {
			return
		}
		n := &fr.nodes[i]
		if n.Role.Value.s == "StaticText" && !n.Ignored {
			if t := collapseSpace(n.Name.Value.String()); t != "" {
				if sb.Len() > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(t)
			}
			return
		}
		for _, id := range n.ChildIDs {
			if ci, ok := fr.byID[id]; ok {
				walk(ci, depth+1)
			}
		}
	}
	walk(i, 0)
	return sb.String()
}

// descendantHint looks at the element and up to 40 nodes inside it for what
// an icon says it is: an SVG <title>, an image's alt text, an icon class or
// the symbol a <use> points at.
func (p *page) descendantHint(r domRef) string {
	if v, _ := p.attr(r, "class"); v != "" {
		if s := iconName(v); s != "" {
			return s
		}
	}
	depth := p.depths(int(r.doc))
	end := min(len(depth), int(r.node)+41)
	for j := int(r.node) + 1; j < end && depth[j] > depth[r.node]; j++ {
		d := domRef{r.doc, int32(j)}
		switch p.tag(d) {
		case "IMG":
			if v, _ := p.attr(d, "alt"); strings.TrimSpace(v) != "" {
				return collapseSpace(v)
			}
		case "title":
			// An SVG's <title> is its name, though never rendered.
			if p.tag(p.parent(d)) == "svg" {
				if s := p.domText(d, false, noDOM); isWordy(s) {
					return s
				}
			}
		case "use":
			for _, a := range [...]string{"href", "xlink:href"} {
				if v, _ := p.attr(d, a); v != "" {
					if i := strings.LastIndexByte(v, '#'); i >= 0 {
						v = v[i+1:]
					}
					if s := iconName(v); s != "" {
						return s
					}
					if isWordy(v) {
						return v + " icon"
					}
				}
			}
		}
		if v, _ := p.attr(d, "data-icon"); v != "" && isWordy(v) {
			return v + " icon"
		}
		if v, _ := p.attr(d, "class"); v != "" {
			if s := iconName(v); s != "" {
				return s
			}
		}
	}
	return ""
}

// labelText is the text of the label bound to node r: a <label for> naming
// its id, or a <label> around it. The control's own text (what was typed
// into it) is left out.
func (p *page) labelText(r domRef) string {
	if id, _ := p.attr(r, "id"); id != "" {
		if l, ok := p.labelFor(r.doc, id); ok {
			if s := p.domText(l, true, r); isWordy(s) {
				return s
			}
		}
	}
	for a, i := p.parent(r), 0; a.doc >= 0 && i < 8; a, i = p.parent(a), i+1 {
		if p.tag(a) == "LABEL" {
			if s := p.domText(a, true, r); isWordy(s) {
				return s
			}
			return ""
		}
	}
	return ""
}

// labelFor finds the <label for=id> of document di, indexing the document's
// labels on first use.
func (p *page) labelFor(di int32, id string) (domRef, bool) {
	x := &p.docs[di]
	if x.labels == nil {
		x.labels = map[string]int32{}
		for j := range x.d.Nodes.NodeName {
			r := domRef{di, int32(j)}
			if p.tag(r) != "LABEL" {
				continue
			}
			if f, ok := p.attr(r, "for"); ok && f != "" {
				if _, dup := x.labels[f]; !dup {
					x.labels[f] = int32(j)
				}
			}
		}
	}
	j, ok := x.labels[id]
	return domRef{di, j}, ok
}

// headerText is the text of the header cells of the table column and row
// that node r sits in, "column, row" when there are both: what a person reads
// above and beside a field in a grid of fields.
func (p *page) headerText(r domRef) string {
	cell := noDOM
	for a, i := p.parent(r), 0; a.doc >= 0 && i < 6; a, i = p.parent(a), i+1 {
		if t := p.tag(a); t == "TD" || t == "TH" {
			cell = a
			break
		}
	}
	row := p.parent(cell)
	if cell.doc < 0 || p.tag(row) != "TR" {
		return ""
	}
	table := p.parent(row)
	switch p.tag(table) {
	case "THEAD", "TBODY", "TFOOT":
		table = p.parent(table)
	}
	if p.tag(table) != "TABLE" {
		return ""
	}
	var parts []string
	col := p.column(row, cell)
	if hr := p.headerRow(table); hr.doc >= 0 && hr != row {
		if h := p.cellAt(hr, col); h.doc >= 0 && p.tag(h) == "TH" {
			if s := p.domText(h, true, noDOM); isWordy(s) {
				parts = append(parts, s)
			}
		}
	}
	for _, h := range p.children(row) {
		if h != cell && p.tag(h) == "TH" {
			if s := p.domText(h, true, noDOM); isWordy(s) {
				parts = append(parts, s)
			}
			break
		}
	}
	return strings.Join(parts, ", ")
}

// column is the column a cell starts in, counting colspans.
func (p *page) column(row, cell domRef) int {
	col := 0
	for _, c := range p.children(row) {
		if c == cell {
			return col
		}
		if t := p.tag(c); t == "TD" || t == "TH" {
			col += p.span(c)
		}
	}
	return col
}

// cellAt is the cell of a row that covers column col, or noDOM.
func (p *page) cellAt(row domRef, col int) domRef {
	at := 0
	for _, c := range p.children(row) {
		if t := p.tag(c); t != "TD" && t != "TH" {
			continue
		}
		at += p.span(c)
		if col < at {
			return c
		}
	}
	return noDOM
}

// span is a cell's colspan, at least 1.
func (p *page) span(cell domRef) int {
	v, _ := p.attr(cell, "colspan")
	n := 0
	for _, r := range strings.TrimSpace(v) {
		if r < '0' || r > '9' || n > 1000 {
			break
		}
		n = n*10 + int(r-'0')
	}
	return max(n, 1)
}

// headerRow is a table's first row of header cells: its <thead>'s first row,
// else its first row when that holds only <th> cells; noDOM when it has none.
func (p *page) headerRow(table domRef) domRef {
	for _, c := range p.children(table) {
		switch p.tag(c) {
		case "THEAD":
			for _, r := range p.children(c) {
				if p.tag(r) == "TR" {
					return r
				}
			}
		case "TBODY", "TR":
			row := c
			if p.tag(c) == "TBODY" {
				row = noDOM
				for _, r := range p.children(c) {
					if p.tag(r) == "TR" {
						row = r
						break
					}
				}
			}
			if row.doc < 0 {
				return noDOM
			}
			for _, cell := range p.children(row) {
				if p.tag(cell) == "TD" {
					return noDOM
				}
			}
			return row
		}
	}
	return noDOM
}

// legendText is the text of the legend of the nearest fieldset around r.
func (p *page) legendText(r domRef) string {
	for a, i := p.parent(r), 0; a.doc >= 0 && i < 12; a, i = p.parent(a), i+1 {
		if p.tag(a) != "FIELDSET" {
			continue
		}
		for _, c := range p.children(a) {
			if p.tag(c) == "LEGEND" {
				if s := p.domText(c, true, noDOM); isWordy(s) {
					return s
				}
			}
		}
		return ""
	}
	return ""
}

// children lists the element children of node r.
func (p *page) children(r domRef) []domRef {
	if r.doc < 0 {
		return nil
	}
	depth := p.depths(int(r.doc))
	par := p.docs[r.doc].d.Nodes.ParentIndex
	var out []domRef
	for j := int(r.node) + 1; j < len(depth) && depth[j] > depth[r.node]; j++ {
		if j < len(par) && par[j] == int(r.node) && p.nodeType(domRef{r.doc, int32(j)}) == 1 {
			out = append(out, domRef{r.doc, int32(j)})
		}
	}
	return out
}

// domText joins the text nodes inside node r, leaving out the subtree of
// skip, scripts and styles, up to a little over maxNameLen characters. With
// rendered, only text that has a layout object counts.
func (p *page) domText(r domRef, rendered bool, skip domRef) string {
	x := &p.docs[r.doc]
	depth := p.depths(int(r.doc))
	vals := x.d.Nodes.NodeValue
	var sb strings.Builder
	for j := int(r.node) + 1; j < len(depth) && depth[j] > depth[r.node] && sb.Len() <= maxNameLen*2; j++ {
		d := domRef{r.doc, int32(j)}
		switch t := p.nodeType(d); {
		case d == skip || (t == 1 && (p.tag(d) == "SCRIPT" || p.tag(d) == "STYLE")):
			for j+1 < len(depth) && depth[j+1] > depth[j] {
				j++
			}
		case t == 3 && j < len(vals) && (!rendered || x.layoutOf[j] >= 0):
			if s := collapseSpace(p.dom.str(vals[j])); s != "" {
				if sb.Len() > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(s)
			}
		}
	}
	return cutName(strings.TrimRight(sb.String(), ": *"))
}

// nodeType is a node's DOM node type (1 element, 3 text), or 0.
func (p *page) nodeType(r domRef) int {
	t := p.docs[r.doc].d.Nodes.NodeType
	if int(r.node) >= len(t) {
		return 0
	}
	return t[r.node]
}

// depths returns the tree depth of every node of document di, computed once.
func (p *page) depths(di int) []int32 {
	x := &p.docs[di]
	if x.depth != nil {
		return x.depth
	}
	par := x.d.Nodes.ParentIndex
	d := make([]int32, len(x.layoutOf))
	for i := range d {
		if i < len(par) && par[i] >= 0 && par[i] < i {
			d[i] = d[par[i]] + 1
		}
	}
	x.depth = d
	return d
}
