package snapshot

import (
	"strconv"
	"strings"
)

// cssLevels is how many elements a CSS path names at most.
const cssLevels = 3

// cssPath is a short CSS path to node r, for a script to find the element
// again: up to cssLevels elements joined by " > ", each its tag, then #id
// (where the path stops climbing) or else its first class, then
// :nth-of-type(n) when siblings share its tag. It is "" for no element. It
// is written into one buffer: Build makes one per element shown.
func (p *page) cssPath(r domRef) string {
	var levels [cssLevels]domRef
	n := 0
	for ; n < cssLevels && r.doc >= 0 && p.isElement(r); r = p.parent(r) {
		levels[n] = r
		n++
		if v, _ := p.attr(r, "id"); v != "" {
			break
		}
	}
	var b strings.Builder
	b.Grow(24 * n)
	for i := n - 1; i >= 0; i-- {
		p.cssSegment(&b, levels[i])
		if i > 0 {
			b.WriteString(" > ")
		}
	}
	return b.String()
}

// isElement reports whether r is an element whose tag a selector can name.
func (p *page) isElement(r domRef) bool {
	nodes := &p.docs[r.doc].d.Nodes
	return int(r.node) < len(nodes.NodeType) && nodes.NodeType[r.node] == 1 && cssIdent(p.tag(r))
}

// cssSegment writes how element r is named within its parent.
func (p *page) cssSegment(b *strings.Builder, r domRef) {
	for _, c := range []byte(p.tag(r)) {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	if v, _ := p.attr(r, "id"); v != "" {
		if cssIdent(v) {
			b.WriteByte('#')
			b.WriteString(v)
		} else {
			b.WriteString(`[id="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"]`)
		}
		return
	}
	if v, _ := p.attr(r, "class"); v != "" {
		v = strings.TrimLeft(v, " \t\n\f\r")
		if i := strings.IndexAny(v, " \t\n\f\r"); i >= 0 {
			v = v[:i]
		}
		if cssIdent(v) {
			b.WriteByte('.')
			b.WriteString(v)
		}
	}
	if nth, same := p.nthOfType(r); same {
		b.WriteString(":nth-of-type(")
		b.WriteString(strconv.Itoa(nth))
		b.WriteByte(')')
	}
}

// nthOfType is r's position among its parent's children with its tag
// (from 1), and whether any other child has that tag. The node table is in
// pre-order, so the parent's subtree is the run of nodes after it whose
// parent index is not below it.
func (p *page) nthOfType(r domRef) (int, bool) {
	nodes := &p.docs[r.doc].d.Nodes
	par := p.parent(r)
	if par.doc < 0 {
		return 1, false
	}
	name := nodes.NodeName[r.node]
	nth, count := 0, 0
	for j := int(par.node) + 1; j < len(nodes.ParentIndex) && nodes.ParentIndex[j] >= int(par.node); j++ {
		if nodes.ParentIndex[j] != int(par.node) || j >= len(nodes.NodeName) || nodes.NodeName[j] != name {
			continue
		}
		count++
		if j == int(r.node) {
			nth = count
		}
	}
	return nth, count > 1
}

// cssIdent reports whether s can stand in a selector unescaped.
func cssIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
