package snapshot

import (
	"strings"
	"unicode/utf8"
)

// textToken is one piece of page text: a run of rendered text (one line box)
// or an interactive element shown as its ref.
type textToken struct {
	text string // the text, or for a ref the element's name
	ref  string // set for an element
	box  BBox
	cell int32 // the table cell it sits in, or -1
	doc  int32
}

// pageText renders the visible text in document (reading) order, each shown
// interactive element as "[@eN name]", within opts.TextBudget bytes. While a
// modal dialog is open the page behind it is inert, and only the dialog's
// text is shown. It reports whether the text was cut, and returns the runs
// of plain text it holds with their boxes, rounded, when opts.Positions asks
// for them.
func (b *builder) pageText(refOf map[int32]string) (string, bool, []TextRun) {
	p := b.p
	if len(p.docs) == 0 {
		return "", false, nil
	}
	shown := make(map[domRef]int32, len(refOf))
	for k := range refOf {
		if c := &b.cands[k]; c.interactive && c.dom.doc >= 0 {
			shown[c.dom] = k
		}
	}
	w := textWalker{b: b, refOf: refOf, shown: shown, seen: make([]bool, len(p.docs))}
	if m := b.modal; m >= 0 && b.cands[m].dom.doc >= 0 {
		r := b.cands[m].dom
		depth := p.depths(int(r.doc))
		end := int(r.node) + 1
		for end < len(depth) && depth[end] > depth[r.node] {
			end++
		}
		w.seen[r.doc] = true
		w.walk(int(r.doc), int(r.node), end)
	} else {
		w.doc(0)
	}
	text, cut, n := w.render(b.opts.TextBudget)
	var runs []TextRun
	if b.opts.Positions {
		runs = make([]TextRun, 0, n)
		for _, t := range w.tokens[:n] {
			if t.ref == "" {
				runs = append(runs, TextRun{Text: t.text, BBox: roundBox(t.box)})
			}
		}
	}
	return text, cut, runs
}

type textWalker struct {
	b      *builder
	refOf  map[int32]string
	shown  map[domRef]int32
	seen   []bool
	tokens []textToken
}

// doc walks document di in node order, which is document order.
func (w *textWalker) doc(di int) {
	p := w.b.p
	if di < 0 || di >= len(p.docs) || w.seen[di] {
		return
	}
	w.seen[di] = true
	w.walk(di, 0, len(p.depths(di)))
}

// walk walks nodes from up to end of document di: the whole document, or
// one subtree.
func (w *textWalker) walk(di, from, end int) {
	p := w.b.p
	x := &p.docs[di]
	nodes := &x.d.Nodes
	depth := p.depths(di)
	cell := make([]int32, len(depth))
	// hidden tracks visibility:hidden, which children inherit from the
	// nearest element with a layout object.
	hidden := make([]bool, len(depth))
	for j := from; j < end; j++ {
		r := domRef{int32(di), int32(j)}
		par := -1
		if j < len(nodes.ParentIndex) {
			par = nodes.ParentIndex[j]
		}
		cell[j] = -1
		if par >= from && par < j {
			cell[j] = cell[par]
			hidden[j] = hidden[par]
		}
		typ := 0
		if j < len(nodes.NodeType) {
			typ = nodes.NodeType[j]
		}
		if typ == 1 {
			if v := p.style(r, p.styles.visibility); v != "" {
				hidden[j] = v == "hidden" || v == "collapse"
			}
			skip := false
			if v, _ := p.attr(r, "aria-hidden"); v == "true" {
				skip = true
			}
			if k, ok := w.shown[r]; ok {
				c := &w.b.cands[k]
				// A listbox or menu whose items are elements is read
				// through to them, its own ref only where it has a name.
				if w.visible(c.bbox) && (!c.items || c.el.Name != "") {
					w.tokens = append(w.tokens, textToken{text: c.el.Name, ref: w.refOf[k], box: c.bbox, cell: cell[j], doc: int32(di)})
				}
				skip = !c.items
			}
			switch p.tag(r) {
			case "INPUT", "TEXTAREA", "SELECT", "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE":
				// A control's text (a password's dots too) is never
				// page text; shown controls appear as refs.
				skip = true
			case "TD", "TH":
				cell[j] = int32(j)
			}
			if child, ok := x.contentDoc[j]; ok && !skip {
				w.doc(child)
			}
			if skip {
				for d := depth[j]; j+1 < end && depth[j+1] > d; {
					j++
				}
			}
			continue
		}
		if typ != 3 || hidden[j] {
			continue
		}
		w.text(di, j, cell[j])
	}
}

// text adds the line boxes of text node j that are in view.
func (w *textWalker) text(di, j int, cell int32) {
	p := w.b.p
	x := &p.docs[di]
	li := x.layoutOf[j]
	if li < 0 || int(li) >= len(x.d.Layout.Text) {
		return
	}
	s := p.dom.str(x.d.Layout.Text[li])
	if s == "" {
		return
	}
	start, count := x.boxStart[li], x.boxCount[li]
	if count == 0 {
		return
	}
	var u16 []uint16 // only for text outside ASCII (boxText)
	for bi := start; bi < start+count; bi++ {
		tb := &x.d.TextBoxes
		if int(bi) >= len(tb.Bounds) || int(bi) >= len(tb.Start) || int(bi) >= len(tb.Length) {
			break
		}
		box := rect(tb.Bounds[bi])
		box.X += x.ox
		box.Y += x.oy
		if !w.visible(box) {
			continue
		}
		part := boxText(s, &u16, tb.Start[bi], tb.Length[bi])
		part = collapseSpace(part)
		if part == "" {
			continue
		}
		w.tokens = append(w.tokens, textToken{text: part, box: box, cell: cell, doc: int32(di)})
	}
}

// visible reports whether a box counts for the page text: in the viewport
// when the snapshot is viewport-only, else anywhere with a size.
func (w *textWalker) visible(b BBox) bool {
	p := w.b.p
	if b.Width <= 0 && b.Height <= 0 {
		return false
	}
	if !w.b.opts.ViewportOnly {
		return true
	}
	return b.X < p.vw && b.Y < p.vh && b.X+b.Width > 0 && b.Y+b.Height > 0
}

// render joins the tokens: a line break where a token starts a new line, " | "
// between table cells on one line, a space otherwise. It stops at the last
// whole token that fits in budget bytes, and says how many tokens it wrote.
func (w *textWalker) render(budget int) (string, bool, int) {
	var sb strings.Builder
	sb.Grow(min(budget, 4096))
	for i := range w.tokens {
		t := &w.tokens[i]
		piece := t.text
		if t.ref != "" {
			piece = "[" + t.ref + "]"
			if t.text != "" && !w.echoed(i) {
				piece = "[" + t.ref + " " + shortName(t.text) + "]"
			}
		}
		sep := ""
		if i > 0 {
			prev := &w.tokens[i-1]
			switch {
			case !sameLine(prev.box, t.box) || prev.doc != t.doc:
				sep = "\n"
			case prev.cell != t.cell && (prev.cell >= 0 || t.cell >= 0):
				sep = " | "
			default:
				sep = " "
			}
		}
		if sb.Len()+len(sep)+len(piece) > budget {
			if sb.Len() == 0 && t.ref == "" {
				sb.WriteString(cutWords(piece, budget))
			}
			return sb.String(), true, i
		}
		sb.WriteString(sep)
		sb.WriteString(piece)
	}
	return sb.String(), false, len(w.tokens)
}

// echoed reports whether ref token i's name is already the text just before
// or after it (a label), so the ref alone ties them.
func (w *textWalker) echoed(i int) bool {
	name := strings.TrimRight(w.tokens[i].text, ": *")
	if name == "" {
		return true
	}
	if i > 0 && w.tokens[i-1].ref == "" && hasSuffixFold(strings.TrimRight(w.tokens[i-1].text, ": *"), name) {
		return true
	}
	if i+1 < len(w.tokens) && w.tokens[i+1].ref == "" && hasPrefixFold(w.tokens[i+1].text, name) {
		return true
	}
	return false
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// textNameLen is where a name is cut in the page text; the element keeps
// its full name.
const textNameLen = 80

// shortName cuts a long name for the page text at a word boundary, with "...".
func shortName(s string) string {
	if len(s) <= textNameLen {
		return s
	}
	return cutWords(s, textNameLen-3) + "..."
}

// sameLine reports whether two boxes share a line: their vertical middles
// are within half the taller one's height.
func sameLine(a, b BBox) bool {
	ma, mb := a.Y+a.Height/2, b.Y+b.Height/2
	h := max(a.Height, b.Height) / 2
	return ma-mb <= h && mb-ma <= h
}

// cutWords cuts s to at most n bytes at a word boundary.
func cutWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return s[:cut]
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
