package snapshot

import "strings"

// fallbackName names a nameless element from what the page offers, in this
// order: its title, placeholder or alt; its accessible description; the text
// inside it (a div acting as a button, an alert); an image's alt or an icon's
// class inside it ("icon-trash" → "trash icon"); the nearest text before it
// (a plain-text label); a form control's name attribute; a link's address.
// It returns "" when nothing fits.
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
		if t := b.axText(c.frame, c.ax); t != "" {
			return t
		}
	}
	if c.dom.doc < 0 {
		return ""
	}
	if s := p.descendantHint(c.dom); s != "" {
		return s
	}
	if s := p.nearbyText(c.dom); s != "" {
		return s
	}
	if v, _ := p.attr(c.dom, "name"); v != "" && isWordy(v) {
		return collapseSpace(strings.NewReplacer("_", " ", "-", " ").Replace(v))
	}
	if c.role == "link" {
		if v, _ := p.attr(c.dom, "href"); v != "" && !strings.HasPrefix(v, "javascript:") {
			return "link to " + v
		}
	}
	return ""
}

// axText joins the text under an accessibility node, up to a little over
// maxNameLen characters.
func (b *builder) axText(f, i int32) string {
	fr := &b.p.frames[f]
	var sb strings.Builder
	var walk func(i int32, depth int)
	walk = func(i int32, depth int) {
		if sb.Len() > maxNameLen*2 || depth > 64 {
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

// descendantHint looks at the element and up to 40 nodes inside it for an
// image's alt text or an icon class.
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

// nearbyText is the nearest rendered text before node r within 40 nodes. It
// skips text inside links and buttons and stops at another control, whose
// label that text would be.
func (p *page) nearbyText(r domRef) string {
	x := &p.docs[r.doc]
	nodes := &x.d.Nodes
	for j := int(r.node) - 1; j >= 0 && j >= int(r.node)-40; j-- {
		if j >= len(nodes.NodeType) {
			continue
		}
		if nodes.NodeType[j] == 1 {
			switch p.tag(domRef{r.doc, int32(j)}) {
			case "INPUT", "SELECT", "TEXTAREA", "BUTTON", "IFRAME":
				return ""
			}
			continue
		}
		if nodes.NodeType[j] != 3 {
			continue
		}
		li := x.layoutOf[j]
		if li < 0 || int(li) >= len(x.d.Layout.Text) {
			continue
		}
		t := collapseSpace(p.dom.str(x.d.Layout.Text[li]))
		if !isWordy(t) {
			continue
		}
		switch p.textOwner(domRef{r.doc, int32(j)}) {
		case ownerControl:
			continue
		case ownerLabel:
			return ""
		}
		t = strings.TrimRight(t, ": *")
		return cutName(t)
	}
	return ""
}

// What holds a piece of text, for nearbyText.
const (
	ownerNone    = iota
	ownerControl // a link, button or control: it names that
	ownerLabel   // a label for another control: it is that one's label
)

// textOwner says whether text node r sits, within three levels, in a control
// or in a label tied to a control by its for attribute.
func (p *page) textOwner(r domRef) int {
	for i := 0; i < 3; i++ {
		r = p.parent(r)
		if r.doc < 0 {
			return ownerNone
		}
		switch p.tag(r) {
		case "A", "BUTTON", "SELECT", "TEXTAREA", "OPTION":
			return ownerControl
		case "LABEL":
			if _, ok := p.attr(r, "for"); ok {
				return ownerLabel
			}
		}
	}
	return ownerNone
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
