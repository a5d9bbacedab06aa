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
// :nth-of-type(n) when siblings share its tag. It is "" for no element.
func (p *page) cssPath(r domRef) string {
	var segs [cssLevels]string
	n := 0
	for ; n < cssLevels && r.doc >= 0; r = p.parent(r) {
		seg, id := p.cssSegment(r)
		if seg == "" {
			break
		}
		segs[n] = seg
		n++
		if id {
			break
		}
	}
	var b strings.Builder
	for i := n - 1; i >= 0; i-- {
		b.WriteString(segs[i])
		if i > 0 {
			b.WriteString(" > ")
		}
	}
	return b.String()
}

// cssSegment names element r within its parent; id reports that it used
// the element's id. It is "" for a node that is not an element.
func (p *page) cssSegment(r domRef) (seg string, id bool) {
	nodes := &p.docs[r.doc].d.Nodes
	if int(r.node) >= len(nodes.NodeType) || nodes.NodeType[r.node] != 1 {
		return "", false
	}
	tag := strings.ToLower(p.tag(r))
	if !cssIdent(tag) {
		return "", false
	}
	if v, ok := p.attr(r, "id"); ok && v != "" {
		if cssIdent(v) {
			return tag + "#" + v, true
		}
		return tag + `[id="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"]`, true
	}
	seg = tag
	if v, _ := p.attr(r, "class"); v != "" {
		if f := strings.Fields(v); len(f) > 0 && cssIdent(f[0]) {
			seg += "." + f[0]
		}
	}
	if nth, same := p.nthOfType(r); same {
		seg += ":nth-of-type(" + strconv.Itoa(nth) + ")"
	}
	return seg, false
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
