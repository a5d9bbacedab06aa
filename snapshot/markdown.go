package snapshot

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/capture"
)

// Block is one piece of a page's markdown: a heading, a paragraph, a list
// item, a table's header or one of its rows. Paging (PageMarkdown) cuts
// between blocks, never inside one unless a block alone is over the budget.
type Block struct {
	// Text is the block's markdown, one line except for a table's header.
	Text string
	// Head is, for a table row, the table's header and separator lines, which
	// a page that starts at this row repeats so that it reads as a table.
	Head string
	// Gap asks for a blank line before the block: a table starts.
	Gap bool
}

// BuildMarkdown builds the snapshot of c as Build does and renders the
// page's content as markdown blocks, in document order, the content of each
// frame (cross-site ones included) at its iframe's place: headings as "#",
// list items as "-" or "1.", tables as markdown tables, links as
// [name](@eN) and other controls as [@eN role "name"], with the refs of the
// returned table, so that the agent can act on what it read. Page text never
// forges one: its brackets are escaped. Text a person cannot see (display:
// none, visibility: hidden, aria-hidden) and the text inside form fields are
// left out; a password's dots are never text. With region (a target of an
// earlier table) that has a node, only that element's subtree is rendered;
// found reports whether the capture holds it, in the same frame.
func BuildMarkdown(c *capture.Page, opts Options, firstRef int, region Target) (s *Snapshot, table Table, next int, blocks []Block, found bool) {
	s, table, next, b, refOf := buildAll(c, opts, firstRef)
	p := b.p
	if len(p.docs) == 0 {
		return s, table, next, nil, region.BackendNodeID == 0
	}
	w := mdWalker{b: b, refs: make(map[domRef]int32, len(refOf)), refOf: refOf, seen: make([]bool, len(p.docs))}
	w.holdsRefs = make(map[domRef]bool)
	for k := range refOf {
		if c := &b.cands[k]; c.interactive && c.dom.doc >= 0 {
			w.refs[c.dom] = k
			for a := p.parent(c.dom); a.doc >= 0 && !w.holdsRefs[a]; a = p.parent(a) {
				w.holdsRefs[a] = true
			}
		}
	}
	switch {
	case region.BackendNodeID != 0:
		// Node ids of out-of-process frames are offset per frame: the
		// frame must be the same too, or the id may name another node.
		r, ok := p.byBackend[region.BackendNodeID]
		if !ok || (region.FrameID != "" && p.docs[r.doc].frameID != "" && p.docs[r.doc].frameID != region.FrameID) {
			return s, table, next, nil, false
		}
		w.seen[r.doc] = true
		w.node(r, false)
	case b.modal >= 0 && b.cands[b.modal].dom.doc >= 0:
		// The page behind a modal dialog is inert, as in the page text.
		r := b.cands[b.modal].dom
		w.seen[r.doc] = true
		w.node(r, false)
	default:
		w.doc(0)
	}
	w.flush()
	return s, table, next, w.blocks, true
}

// PageMarkdown joins blocks from index from on, as many as fit in
// maxTokens (by TextTokens; at least one block, cut to fit when it alone is
// over), and returns the text and the index of the first block left out:
// len(blocks) when none is. A page that starts inside a table repeats the
// table's header.
func PageMarkdown(blocks []Block, from, maxTokens int) (string, int) {
	var sb strings.Builder
	used := 0
	i := max(from, 0)
	if i < len(blocks) && blocks[i].Head != "" {
		sb.WriteString(blocks[i].Head)
		used = TextTokens(blocks[i].Head)
	}
	for ; i < len(blocks); i++ {
		bl := &blocks[i]
		sep := ""
		switch {
		case sb.Len() == 0:
		case bl.Gap:
			sep = "\n\n"
		default:
			sep = "\n"
		}
		n := TextTokens(bl.Text) + len(sep)
		if used+n > maxTokens {
			if i == from {
				sb.WriteString(sep)
				sb.WriteString(cutTokens(bl.Text, maxTokens-used-len(sep)))
				i++
			}
			break
		}
		sb.WriteString(sep)
		sb.WriteString(bl.Text)
		used += n
	}
	return sb.String(), i
}

// TextTokens estimates the tokens of text from above, for budgets that a
// model's tokenizer (cl100k and the like) must not overrun: a run of letters
// counts a token per 4 letters, a run of digits a token per 3, every other
// ASCII mark one, a space one unless a word follows it, and every other
// character one.
func TextTokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isLetter(c):
			j := i
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			n += (j - i + 3) / 4
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			n += (j - i + 2) / 3
			i = j
		case c == ' ':
			if i+1 >= len(s) || !isLetter(s[i+1]) {
				n++
			}
			i++
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			n++
			i += size
		}
	}
	return n
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// cutTokens cuts s at a word boundary to about n tokens of TextTokens.
func cutTokens(s string, n int) string {
	if n <= 0 {
		return ""
	}
	lo, hi := 0, len(s)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if TextTokens(s[:mid]) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return cutWords(s, lo)
}

// mdWalker renders the captured DOM as markdown blocks.
type mdWalker struct {
	b *builder
	// refs maps each shown interactive element's node to its candidate;
	// refOf gives the candidate's ref.
	refs  map[domRef]int32
	refOf map[int32]string
	// holdsRefs marks the elements that hold another shown element: a
	// clickable card with a link in it is read for its content, and the
	// controls in it show as refs of their own.
	holdsRefs map[domRef]bool
	// kids are each document's children lists, made on first use.
	kids   [][][]int32
	seen   []bool
	blocks []Block
	// line is the inline text of the block being read, and lead what the
	// block starts with ("## ", "- ").
	line strings.Builder
	lead string
	// lists is the stack of open lists: for each, whether it is ordered and
	// how many items it has had.
	lists []mdList
	// cell is set while a table cell is read: blocks inside it run on.
	cell bool
	// gap asks for a blank line before the next block.
	gap bool
}

type mdList struct {
	ordered bool
	n       int
}

// children returns the child nodes of node j of document di.
func (w *mdWalker) children(di, j int) []int32 {
	if w.kids == nil {
		w.kids = make([][][]int32, len(w.b.p.docs))
	}
	if w.kids[di] == nil {
		par := w.b.p.docs[di].d.Nodes.ParentIndex
		k := make([][]int32, len(par))
		for i, pa := range par {
			if pa >= 0 && pa < i {
				k[pa] = append(k[pa], int32(i))
			}
		}
		w.kids[di] = k
	}
	if j < len(w.kids[di]) {
		return w.kids[di][j]
	}
	return nil
}

// doc renders document di from its root, once.
func (w *mdWalker) doc(di int) {
	if di < 0 || di >= len(w.b.p.docs) || w.seen[di] {
		return
	}
	w.seen[di] = true
	if len(w.b.p.depths(di)) == 0 {
		return
	}
	w.node(domRef{int32(di), 0}, false)
}

// kidsOf renders the children of r.
func (w *mdWalker) kidsOf(r domRef, hidden bool) {
	for _, c := range w.children(int(r.doc), int(r.node)) {
		w.node(domRef{r.doc, c}, hidden)
	}
}

// node renders node r and what is under it; hidden says visibility: hidden
// holds from an ancestor.
func (w *mdWalker) node(r domRef, hidden bool) {
	p := w.b.p
	x := &p.docs[r.doc]
	switch p.nodeType(r) {
	case 3:
		if hidden || int(r.node) >= len(x.layoutOf) || x.layoutOf[r.node] < 0 {
			return
		}
		vals := x.d.Nodes.NodeValue
		if int(r.node) < len(vals) {
			w.inline(mdEscape(collapseSpace(p.dom.str(vals[r.node])), w.cell))
		}
		return
	case 1:
	default: // documents, shadow roots
		w.kidsOf(r, hidden)
		return
	}
	if v := p.style(r, p.styles.visibility); v != "" {
		hidden = v == "hidden" || v == "collapse"
	}
	if v, _ := p.attr(r, "aria-hidden"); v == "true" {
		return
	}
	if k, ok := w.refs[r]; ok && !w.holdsRefs[r] {
		c := &w.b.cands[k]
		switch {
		case c.scrollable || mdContainerRoles[c.el.Role]:
			// A scrollable box, a list, a region: its content is read.
		case c.el.Role != "link" && len(c.el.Name) > textNameLen:
			// A clickable block of text: its ref, then its text whole.
			w.inline("[" + w.refOf[k] + " " + c.el.Role + "]")
		default:
			w.ref(k)
			return
		}
	}
	tag := p.tag(r)
	switch tag {
	case "INPUT", "TEXTAREA", "SELECT", "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE":
		// A field's text (a password's dots too) is never page text;
		// controls the snapshot shows appear as refs.
		return
	case "IFRAME", "FRAME", "OBJECT", "EMBED":
		if child, ok := x.contentDoc[int(r.node)]; ok {
			w.block()
			w.doc(child)
			w.block()
		}
		return
	case "BR":
		w.block()
		return
	case "H1", "H2", "H3", "H4", "H5", "H6":
		w.block()
		if !w.cell {
			w.lead = strings.Repeat("#", int(tag[1]-'0')) + " "
		}
		w.kidsOf(r, hidden)
		w.block()
		return
	case "UL", "OL", "MENU":
		w.block()
		w.lists = append(w.lists, mdList{ordered: tag == "OL"})
		w.kidsOf(r, hidden)
		w.lists = w.lists[:len(w.lists)-1]
		w.block()
		return
	case "LI":
		w.block()
		if !w.cell {
			w.lead = w.bullet()
		}
		w.kidsOf(r, hidden)
		w.block()
		return
	case "TABLE":
		if !w.cell {
			w.block()
			w.table(r, hidden)
			return
		}
	}
	if mdBlockTags[tag] {
		w.block()
		w.kidsOf(r, hidden)
		w.block()
		return
	}
	w.kidsOf(r, hidden)
}

// mdContainerRoles are the roles of interactive elements whose content is
// read rather than summed up in their ref.
var mdContainerRoles = map[string]bool{
	"group": true, "region": true, "list": true, "listbox": true, "grid": true,
	"table": true, "treegrid": true, "tree": true, "tabpanel": true, "dialog": true, "alertdialog": true,
	"form": true, "article": true, "main": true, "navigation": true, "menu": true, "menubar": true,
	"toolbar": true, "radiogroup": true, "tablist": true, "document": true, "application": true,
}

// mdBlockTags are the elements that start and end a block of their own.
var mdBlockTags = map[string]bool{
	"P": true, "DIV": true, "SECTION": true, "ARTICLE": true, "HEADER": true, "FOOTER": true,
	"MAIN": true, "NAV": true, "ASIDE": true, "BLOCKQUOTE": true, "PRE": true, "FORM": true,
	"FIELDSET": true, "LEGEND": true, "DL": true, "DT": true, "DD": true, "FIGURE": true,
	"FIGCAPTION": true, "HR": true, "ADDRESS": true, "DETAILS": true, "SUMMARY": true,
	"DIALOG": true, "CAPTION": true, "BODY": true,
}

// bullet is the lead of a list item of the innermost open list.
func (w *mdWalker) bullet() string {
	if len(w.lists) == 0 {
		return "- "
	}
	l := &w.lists[len(w.lists)-1]
	l.n++
	indent := strings.Repeat("  ", len(w.lists)-1)
	if l.ordered {
		return indent + strconv.Itoa(l.n) + ". "
	}
	return indent + "- "
}

// ref writes the element of candidate k as its ref: a link as [name](@eN),
// any other control as [@eN role "name"].
func (w *mdWalker) ref(k int32) {
	c := &w.b.cands[k]
	ref := w.refOf[k]
	name := mdEscape(shortName(c.el.Name), w.cell)
	if c.el.Role == "link" && name != "" {
		w.inline("[" + name + "](" + ref + ")")
		return
	}
	s := "[" + ref + " " + c.el.Role
	if name != "" {
		s += ` "` + name + `"`
	}
	w.inline(s + "]")
}

// inline adds s to the block being read, with a space between words.
func (w *mdWalker) inline(s string) {
	if s == "" {
		return
	}
	if w.line.Len() > 0 && !strings.HasPrefix(s, ",") && !strings.HasPrefix(s, ".") &&
		!strings.HasPrefix(s, ")") && !strings.HasPrefix(s, ":") && !strings.HasPrefix(s, ";") {
		w.line.WriteByte(' ')
	}
	w.line.WriteString(s)
}

// block ends the block being read: inside a table cell, a space.
func (w *mdWalker) block() {
	if w.cell {
		return
	}
	w.flush()
}

// flush adds the block being read, if it has text.
func (w *mdWalker) flush() {
	if t := strings.TrimSpace(w.line.String()); t != "" {
		w.blocks = append(w.blocks, Block{Text: w.lead + t, Gap: w.gap})
		w.gap = false
	}
	w.line.Reset()
	w.lead = ""
}

// table renders table r: its caption as a paragraph, its first row as the
// header, the other rows as blocks that carry the header for paging.
func (w *mdWalker) table(r domRef, hidden bool) {
	p := w.b.p
	var rows [][]string
	cols := 0
	var add func(r domRef)
	add = func(r domRef) {
		for _, c := range w.children(int(r.doc), int(r.node)) {
			cr := domRef{r.doc, c}
			if p.nodeType(cr) != 1 {
				continue
			}
			if v, _ := p.attr(cr, "aria-hidden"); v == "true" {
				continue
			}
			switch p.tag(cr) {
			case "THEAD", "TBODY", "TFOOT":
				add(cr)
			case "CAPTION":
				w.node(cr, hidden)
			case "TR":
				if x := &p.docs[cr.doc]; int(cr.node) < len(x.layoutOf) && x.layoutOf[cr.node] < 0 {
					continue // display: none
				}
				if row := w.row(cr, hidden); len(row) > 0 {
					rows = append(rows, row)
					cols = max(cols, len(row))
				}
			}
		}
	}
	add(r)
	w.flush()
	if len(rows) == 0 {
		return
	}
	line := func(cells []string) string {
		var sb strings.Builder
		sb.WriteString("|")
		for i := range cols {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			sb.WriteString(" " + c + " |")
		}
		return sb.String()
	}
	sep := "|" + strings.Repeat(" --- |", cols)
	head := line(rows[0]) + "\n" + sep
	w.blocks = append(w.blocks, Block{Text: head, Gap: true})
	for _, row := range rows[1:] {
		w.blocks = append(w.blocks, Block{Text: line(row), Head: head})
	}
	// What follows the table is apart from it.
	w.gap = true
}

// row reads the cells of table row r, each as one line of inline markdown.
func (w *mdWalker) row(r domRef, hidden bool) []string {
	p := w.b.p
	var cells []string
	for _, c := range w.children(int(r.doc), int(r.node)) {
		cr := domRef{r.doc, c}
		if p.nodeType(cr) != 1 || (p.tag(cr) != "TD" && p.tag(cr) != "TH") {
			continue
		}
		saved, savedLead, savedCell := w.line.String(), w.lead, w.cell
		w.line.Reset()
		w.cell = true
		w.kidsOf(cr, hidden)
		cells = append(cells, strings.TrimSpace(w.line.String()))
		w.line.Reset()
		w.line.WriteString(saved)
		w.lead, w.cell = savedLead, savedCell
	}
	return cells
}

// mdEscape keeps page text from reading as markdown that means something
// else: a bracket could forge a ref the agent would act on, and in a table
// cell a bar would start a new column.
func mdEscape(s string, cell bool) string {
	if !strings.ContainsAny(s, "[]|\\") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '[', ']', '\\':
			sb.WriteByte('\\')
		case '|':
			if cell {
				sb.WriteByte('\\')
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}
