package snapshot

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Seen is what a person would see of a page, as evidence for a verdict
// (docs/architecture.md, "Checkpoints"): the text drawn visibly, and the
// document each piece is in, so that the rules can tell which origin shows
// it. Only a snapshot built from a judged capture has it; Render, the JSON
// and the token budget leave it out.
type Seen struct {
	// Text holds runs of text a person can see, in document order, one
	// document at a time: a run ends where text a person cannot see comes
	// between, so no run joins words across hidden text.
	Text []SeenText
	// Drawn holds, per document, all the text its layout draws, seen or
	// not, CSS generated content (::before, ::after, ::marker) included,
	// in document order: what a failure indicator is matched against, as
	// a failure counts wherever the page says it.
	Drawn []string
}

// SeenText is one run of visible text.
type SeenText struct {
	Text string
	// Document is the URL of the document that draws the text; a frame
	// without a URL of its own (about:blank, about:srcdoc) has its
	// parent's, whose origin it runs in.
	Document string
	// Parts says which text node drew each stretch of Text, so that a
	// verdict can look at the pixels of the words it relies on.
	Parts []SeenPart
}

// SeenPart is the stretch Text[From:To] of a run, drawn by the text node
// Node (a backend node id as the capture numbers it, an out-of-process
// frame's NodeBase included).
type SeenPart struct {
	Node     int64
	From, To int
}

// runBuilder joins line boxes into a run, keeping where each came from.
type runBuilder struct {
	b     strings.Builder
	parts []SeenPart
}

func (r *runBuilder) add(text string, node int64) {
	if r.b.Len() > 0 {
		r.b.WriteByte(' ')
	}
	from := r.b.Len()
	r.b.WriteString(text)
	r.parts = append(r.parts, SeenPart{Node: node, From: from, To: r.b.Len()})
}

// take returns the run so far and starts a new one; ok is false when it
// was empty.
func (r *runBuilder) take() (text string, parts []SeenPart, ok bool) {
	if r.b.Len() == 0 {
		return "", nil, false
	}
	text, parts = r.b.String(), r.parts
	r.b.Reset()
	r.parts = nil
	return text, parts, true
}

// What a person can read, at the least: a contrast ratio (WCAG's, text over
// the background blended below it) and a font size in CSS pixels. Real
// pages' faintest text (placeholders, disabled labels) stays above both.
const (
	minContrast = 1.5
	minFontSize = 6.0
	// minAlpha is the opacity below which nothing counts as shown.
	minAlpha = 0.1
)

// clipRect is a clip in a document's page coordinates.
type clipRect struct{ x0, y0, x1, y1 float64 }

var noClip = clipRect{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}

func (c clipRect) and(o clipRect) clipRect {
	return clipRect{max(c.x0, o.x0), max(c.y0, o.y0), min(c.x1, o.x1), min(c.y1, o.y1)}
}

func boxClip(b BBox) clipRect { return clipRect{b.X, b.Y, b.X + b.Width, b.Y + b.Height} }

func (c clipRect) w() float64 { return max(0, c.x1-c.x0) }
func (c clipRect) h() float64 { return max(0, c.y1-c.y0) }

// sight is what reaches a node from its ancestors: their opacity, their
// visibility, and the clip of those that clip their content.
type sight struct {
	alpha  float64
	hidden bool
	// gone is set when the node cannot be seen whatever it is: its frame
	// is not shown.
	gone bool
	// fixed is set within a box fixed or stuck to the viewport, which
	// covers another part of the page at each scroll position.
	fixed bool
	clip  clipRect
	// winW and winH are the size of the smallest window the node is seen
	// through: a box that scrolls its content, or a frame's viewport. A
	// line of text taller than twice it cannot be read, however scrolled.
	winW, winH float64
}

// openSight is the sight of the top document: nothing hides or clips it.
var openSight = sight{alpha: 1, clip: noClip, winW: math.Inf(1), winH: math.Inf(1)}

// seer works out what a person sees of a judged capture.
type seer struct {
	p *page
	// self is each node's own sight, per document; nil for a document
	// not reached from the main one.
	self [][]sight
	// docURL is each document's URL for its origin.
	docURL []string
	// runs holds each document's seen text runs.
	runs [][]SeenText
	// parts holds each text node's line boxes, seen or not, by node.
	parts map[domRef][]piece
	// extents holds what a person can scroll to in each document.
	extents []clipRect
}

// piece is the text of one line box, and whether a person can read it.
type piece struct {
	text string
	seen bool
	node int64
}

// judged reports whether the capture is one a verdict is judged on
// (capture.JudgedStyles): one taken while a dialog was open, with no
// layout, is judged too, and shows nothing but the dialog.
func (p *page) judged() bool {
	s := p.styles
	return s.color >= 0 && s.fontSize >= 0 && s.opacity >= 0
}

// newSeer walks every document reached from the main one, parents first.
func newSeer(p *page) *seer {
	w := &seer{p: p, self: make([][]sight, len(p.docs)), docURL: make([]string, len(p.docs)), runs: make([][]SeenText, len(p.docs)),
		parts: make(map[domRef][]piece), extents: make([]clipRect, len(p.docs))}
	if len(p.docs) > 0 {
		w.doc(0, openSight, "", 0)
	}
	return w
}

// doc works out document di, which its owner shows with sight init; parent
// is the URL of the document that embeds it.
func (w *seer) doc(di int, init sight, parent string, depth int) {
	p := w.p
	if w.self[di] != nil || depth > 16 {
		return
	}
	x := &p.docs[di]
	u := x.url
	if u == "" || strings.HasPrefix(u, "about:") {
		u = parent
	}
	w.docURL[di] = u
	if v, ok := p.rawBounds(domRef{int32(di), 0}); ok && di > 0 {
		init.winW, init.winH = min(init.winW, v.Width), min(init.winH, v.Height)
	}
	n := len(x.layoutOf)
	self := make([]sight, n)
	inner := make([]sight, n)
	w.self[di] = self
	nodes := &x.d.Nodes
	extent := w.extent(di)
	w.extents[di] = extent
	var run runBuilder
	flush := func() {
		if text, parts, ok := run.take(); ok {
			w.runs[di] = append(w.runs[di], SeenText{Text: text, Document: u, Parts: parts})
		}
	}
	type child struct {
		doc   int
		sight sight
	}
	var children []child
	for j := 0; j < n; j++ {
		st := init
		if j < len(nodes.ParentIndex) {
			if par := nodes.ParentIndex[j]; par >= 0 && par < j {
				st = inner[par]
			}
		}
		r := domRef{int32(di), int32(j)}
		typ := 0
		if j < len(nodes.NodeType) {
			typ = nodes.NodeType[j]
		}
		if typ != 1 || x.layoutOf[j] < 0 {
			self[j], inner[j] = st, st
			continue
		}
		st, in := w.elementSight(r, st)
		self[j], inner[j] = st, in
		if c, ok := x.contentDoc[j]; ok && c >= 0 && c < len(p.docs) {
			frame := sight{alpha: st.alpha, clip: noClip, gone: !w.boxSeen(r, st, extent), winW: st.winW, winH: st.winH}
			children = append(children, child{c, frame})
		}
	}
	// Text is judged once every box that may paint over it is known.
	covers := w.covers(di, self)
	for j := 0; j < n && j < len(nodes.NodeType); j++ {
		if nodes.NodeType[j] == 3 {
			w.text(di, j, self[j], extent, covers, &run, flush)
		}
	}
	flush()
	for _, c := range children {
		w.doc(c.doc, c.sight, u, depth+1)
	}
}

// elementSight works out element r's own sight from what reaches it, and the
// sight it passes to its content.
func (w *seer) elementSight(r domRef, st sight) (self, inner sight) {
	p := w.p
	s := p.styles
	if v := p.style(r, s.opacity); v != "" {
		if o, err := strconv.ParseFloat(v, 64); err == nil {
			st.alpha *= clamp01(o)
		}
	}
	if v := p.style(r, s.filter); v != "" && v != "none" {
		st.alpha *= filterOpacity(v)
	}
	if v := p.style(r, s.visibility); v != "" {
		st.hidden = v == "hidden" || v == "collapse"
	}
	b, _ := p.rawBounds(r)
	pos := p.style(r, s.position)
	if pos == "fixed" {
		// Fixed to the viewport: no ancestor's overflow clips it.
		st.clip = noClip
	}
	if pos == "fixed" || pos == "sticky" {
		st.fixed = true
	}
	if v := p.style(r, s.clipPath); v != "" && v != "none" {
		if c, ok := insetClip(v, b); ok {
			st.clip = st.clip.and(c)
		}
	}
	if v := p.style(r, s.clip); (pos == "absolute" || pos == "fixed") && strings.HasPrefix(v, "rect(") {
		if c, ok := rectClip(v, b); ok {
			st.clip = st.clip.and(c)
		}
	}
	self, inner = st, st
	// The content of a box that clips its overflow shows only inside its
	// padding box; one that scrolls shows it all, unless it has no room
	// to show anything.
	pad := b
	x := &p.docs[r.doc]
	if li := x.layoutOf[r.node]; int(li) < len(x.d.Layout.ClientRects) {
		if c := rect(x.d.Layout.ClientRects[li]); c.Width > 0 || c.Height > 0 {
			pad = BBox{X: b.X + c.X, Y: b.Y + c.Y, Width: c.Width, Height: c.Height}
		}
	}
	pc := boxClip(pad)
	switch p.style(r, s.overflowX) {
	case "hidden", "clip":
		inner.clip.x0, inner.clip.x1 = max(inner.clip.x0, pc.x0), min(inner.clip.x1, pc.x1)
	case "auto", "scroll", "overlay":
		inner.winW = min(inner.winW, pad.Width)
	}
	switch p.style(r, s.overflowY) {
	case "hidden", "clip":
		inner.clip.y0, inner.clip.y1 = max(inner.clip.y0, pc.y0), min(inner.clip.y1, pc.y1)
	case "auto", "scroll", "overlay":
		inner.winH = min(inner.winH, pad.Height)
	}
	return self, inner
}

// cover is a box that hides what is painted below it: an opaque
// background, or an image, video, canvas or frame.
type cover struct {
	node  int32
	paint int
	area  clipRect
}

// covers lists the boxes of document di, whose nodes have sight self,
// that hide what they are painted over. A box fixed or stuck to the
// viewport covers a different part of the page at each scroll position,
// so it is left out.
func (w *seer) covers(di int, self []sight) []cover {
	p := w.p
	x := &p.docs[di]
	l := &x.d.Layout
	if len(l.PaintOrders) == 0 {
		return nil
	}
	var out []cover
	for j, li := range x.layoutOf {
		if li < 0 || int(li) >= len(l.PaintOrders) {
			continue
		}
		st := self[j]
		if st.hidden || st.gone || st.fixed || st.alpha < 0.9 {
			continue
		}
		r := domRef{int32(di), int32(j)}
		opaque := false
		switch p.tag(r) {
		case "IMG", "VIDEO", "CANVAS", "IFRAME", "EMBED", "OBJECT":
			opaque = true
		default:
			c, ok := parseColor(p.style(r, p.styles.background))
			opaque = ok && c.a >= 0.9
		}
		if !opaque {
			continue
		}
		b, ok := p.rawBounds(r)
		if !ok || b.Width <= 0 || b.Height <= 0 {
			continue
		}
		out = append(out, cover{node: int32(j), paint: l.PaintOrders[li], area: boxClip(b).and(st.clip)})
	}
	return out
}

// covered reports whether a box painted below cover hides at least half
// of text node r's line box b. A box never covers its own text.
func (w *seer) covered(r domRef, b BBox, covers []cover) bool {
	p := w.p
	x := &p.docs[r.doc]
	l := &x.d.Layout
	li := x.layoutOf[r.node]
	if li < 0 || int(li) >= len(l.PaintOrders) || b.Width <= 0 || b.Height <= 0 {
		return false
	}
	paint := l.PaintOrders[li]
	for _, c := range covers {
		if c.paint <= paint {
			continue
		}
		o := boxClip(b).and(c.area)
		if o.w()*o.h() < b.Width*b.Height/2 {
			continue
		}
		if !w.ancestor(domRef{r.doc, c.node}, r) {
			return true
		}
	}
	return false
}

// ancestor reports whether a is an ancestor of r in its document.
func (w *seer) ancestor(a, r domRef) bool {
	for e := w.p.parent(r); e != noDOM; e = w.p.parent(e) {
		if e == a {
			return true
		}
	}
	return false
}

// shows reports whether a box drawn with sight st shows enough of itself:
// at least half its height and some width inside its clips and inside
// what the document can be scrolled to, and through a window large enough.
func shows(b BBox, st sight, extent clipRect) bool {
	if st.gone || st.hidden || st.alpha < minAlpha || b.Width <= 0 || b.Height <= 0 {
		return false
	}
	if st.winH < b.Height/2 || st.winW < min(b.Width, b.Height/2) {
		return false
	}
	v := boxClip(b).and(st.clip).and(extent)
	return v.h() >= b.Height/2 && v.w() >= min(b.Width, b.Height/2)
}

// boxSeen reports whether element r's own box shows.
func (w *seer) boxSeen(r domRef, st sight, extent clipRect) bool {
	b, ok := w.p.rawBounds(r)
	return ok && shows(b, st, extent)
}

// text adds the line boxes of text node j that a person can read to run;
// one that cannot be read ends the run.
func (w *seer) text(di, j int, st sight, extent clipRect, covers []cover, run *runBuilder, flush func()) {
	p := w.p
	x := &p.docs[di]
	li := x.layoutOf[j]
	if li < 0 || int(li) >= len(x.d.Layout.Text) {
		return
	}
	s := p.dom.str(x.d.Layout.Text[li])
	start, count := x.boxStart[li], x.boxCount[li]
	if s == "" || count == 0 {
		return
	}
	readable := w.readable(domRef{int32(di), int32(j)}, st)
	var u16 []uint16
	tb := &x.d.TextBoxes
	for bi := start; bi < start+count; bi++ {
		if int(bi) >= len(tb.Bounds) || int(bi) >= len(tb.Start) || int(bi) >= len(tb.Length) {
			break
		}
		part := collapseSpace(boxText(s, &u16, tb.Start[bi], tb.Length[bi]))
		if part == "" {
			continue
		}
		r := domRef{int32(di), int32(j)}
		ok := readable && shows(rect(tb.Bounds[bi]), st, extent) && !w.covered(r, rect(tb.Bounds[bi]), covers)
		node := p.backendID(r)
		w.parts[r] = append(w.parts[r], piece{part, ok, node})
		if !ok {
			flush()
			continue
		}
		run.add(part, node)
	}
}

// extent is what a person can scroll to in document di: its content, or
// only its viewport where the root or the body clips its overflow (which
// then applies to the viewport).
func (w *seer) extent(di int) clipRect {
	p := w.p
	x := &p.docs[di]
	e := noClip
	if x.d.ContentWidth > 0 && x.d.ContentHeight > 0 {
		e = clipRect{0, 0, x.d.ContentWidth, x.d.ContentHeight}
	}
	v, ok := p.rawBounds(domRef{int32(di), 0})
	if !ok || v.Width <= 0 || v.Height <= 0 {
		return e
	}
	clips := func(s string) bool { return s == "hidden" || s == "clip" }
	nodes := &x.d.Nodes
	for j := 1; j < len(x.layoutOf) && j < len(nodes.ParentIndex); j++ {
		r := domRef{int32(di), int32(j)}
		tag := p.tag(r)
		if tag != "HTML" && tag != "BODY" {
			continue
		}
		if par := p.parent(r); par.node != 0 && p.tag(par) != "HTML" {
			continue
		}
		if clips(p.style(r, p.styles.overflowX)) {
			e.x0, e.x1 = max(e.x0, x.d.ScrollOffsetX), min(e.x1, x.d.ScrollOffsetX+v.Width)
		}
		if clips(p.style(r, p.styles.overflowY)) {
			e.y0, e.y1 = max(e.y0, x.d.ScrollOffsetY), min(e.y1, x.d.ScrollOffsetY+v.Height)
		}
		if tag == "BODY" {
			break
		}
	}
	return e
}

// readable reports whether text node r's text stands out from what it is
// drawn on: large enough, and its colour, at the opacity it ends up with,
// in contrast with the background blended below it.
func (w *seer) readable(r domRef, st sight) bool {
	p := w.p
	if v := p.style(r, p.styles.fontSize); v != "" {
		if px, err := strconv.ParseFloat(strings.TrimSuffix(v, "px"), 64); err == nil && px < minFontSize {
			return false
		}
	}
	// The text is painted in its fill colour, which is its colour unless
	// -webkit-text-fill-color says otherwise (transparent, for a gradient
	// shown through the text, reads as unseen: rare on a status message).
	fg, ok := parseColor(p.style(r, p.styles.color))
	if fill, fok := parseColor(p.style(r, p.styles.textFill)); fok {
		fg, ok = fill, true
	}
	if !ok {
		// A colour this code cannot read: judged on opacity alone.
		return st.alpha >= minAlpha
	}
	// Chromium reports the blended background and the text's opacity on
	// the element that holds the text.
	bg, alpha := white, st.alpha
	x := &p.docs[r.doc]
	l := &x.d.Layout
	for e := p.parent(r); e != noDOM; e = p.parent(e) {
		li := x.layoutOf[e.node]
		if li < 0 || int(li) >= len(l.BlendedBackgroundColors) || l.BlendedBackgroundColors[li] < 0 {
			continue
		}
		if c, ok := parseColor(p.dom.str(l.BlendedBackgroundColors[li])); ok {
			bg = c.over(white, 1)
		}
		if int(li) < len(l.TextColorOpacities) {
			alpha = min(alpha, l.TextColorOpacities[li])
		}
		break
	}
	if alpha*fg.a < minAlpha {
		return false
	}
	return contrast(fg.over(bg, alpha), bg) >= minContrast
}

// element reports whether element r's box shows, and the runs of its own
// text a person can read (none for an element that draws no text, or
// whose text nobody can read), with the text nodes that draw each.
func (w *seer) element(r domRef) (shown bool, text []string, parts [][]SeenPart) {
	p := w.p
	if r.doc < 0 || int(r.doc) >= len(w.self) || w.self[r.doc] == nil || int(r.node) >= len(w.self[r.doc]) {
		return false, nil, nil
	}
	if !w.boxSeen(r, w.self[r.doc][r.node], w.extents[r.doc]) {
		return false, nil, nil
	}
	x := &p.docs[r.doc]
	depth := p.depths(int(r.doc))
	var run runBuilder
	flush := func() {
		if t, ps, ok := run.take(); ok {
			text, parts = append(text, t), append(parts, ps)
		}
	}
	for j := int(r.node) + 1; j < len(depth) && j < len(x.layoutOf) && depth[j] > depth[r.node]; j++ {
		for _, pc := range w.parts[domRef{r.doc, int32(j)}] {
			if !pc.seen {
				flush()
				continue
			}
			run.add(pc.text, pc.node)
		}
	}
	flush()
	return true, text, parts
}

// seen returns the Seen of the page.
func (w *seer) seen() *Seen {
	s := &Seen{Text: []SeenText{}}
	for di, runs := range w.runs {
		s.Text = append(s.Text, runs...)
		if w.self[di] != nil {
			if d := w.drawn(di); d != "" {
				s.Drawn = append(s.Drawn, d)
			}
		}
	}
	return s
}

// drawn is the text document di's layout draws, seen or not, generated
// content included, in document order: the layout lists an element's
// ::after before its children, so it is moved after them. As for the
// page's text, what a control holds (a field's value is what was typed)
// and what visibility hides (a template kept for later) are left out.
func (w *seer) drawn(di int) string {
	p := w.p
	x := &p.docs[di]
	l := &x.d.Layout
	depth := p.depths(di)
	type drawnText struct {
		at   float64
		text string
	}
	var out []drawnText
	for li, ti := range l.Text {
		if ti < 0 || li >= len(l.NodeIndex) {
			continue
		}
		t := collapseSpace(p.dom.str(ti))
		j := l.NodeIndex[li]
		if t == "" || j < 0 || j >= len(depth) || !w.drawsText(domRef{int32(di), int32(j)}) {
			continue
		}
		at := float64(j)
		if p.tag(domRef{int32(di), int32(j)}) == "::after" {
			if par := p.parent(domRef{int32(di), int32(j)}); par != noDOM {
				end := int(par.node) + 1
				for end < len(depth) && depth[end] > depth[par.node] {
					end++
				}
				at = float64(end) - 0.5
			}
		}
		out = append(out, drawnText{at, t})
	}
	// What a closed <details> holds beyond its summary has no layout, yet
	// a person reads it with one click: it counts as drawn.
	vals := x.d.Nodes.NodeValue
	for j := range depth {
		r := domRef{int32(di), int32(j)}
		if p.nodeType(r) != 3 || j >= len(vals) || (j < len(x.layoutOf) && x.layoutOf[j] >= 0) || !w.inClosedDetails(r) {
			continue
		}
		if t := collapseSpace(p.dom.str(vals[j])); t != "" {
			out = append(out, drawnText{float64(j), t})
		}
	}
	slices.SortStableFunc(out, func(a, b drawnText) int { return cmp.Compare(a.at, b.at) })
	var b strings.Builder
	for _, d := range out {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.text)
	}
	return b.String()
}

// inClosedDetails reports whether node r is in what a closed <details>
// hides (not in its summary), and in nothing that draws no page text (a
// control, a script, a template).
func (w *seer) inClosedDetails(r domRef) bool {
	p := w.p
	closed := false
	for e, child := p.parent(r), r; e != noDOM; e, child = p.parent(e), e {
		switch p.tag(e) {
		case "INPUT", "TEXTAREA", "SELECT", "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE":
			return false
		case "DETAILS":
			if _, open := p.attr(e, "open"); !open && p.tag(child) != "SUMMARY" {
				closed = true
			}
		}
	}
	return closed
}

// drawsText reports whether the text of node r counts as page text: not
// inside a control, script or template, and not hidden by visibility.
func (w *seer) drawsText(r domRef) bool {
	p := w.p
	for e := r; e != noDOM; e = p.parent(e) {
		switch p.tag(e) {
		case "INPUT", "TEXTAREA", "SELECT", "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE":
			return false
		}
		if p.docs[e.doc].layoutOf[e.node] < 0 {
			continue
		}
		if v := p.style(e, p.styles.visibility); v != "" {
			// The nearest box with a visibility says it; an element may
			// show what its parent hides.
			return v != "hidden" && v != "collapse"
		}
	}
	return true
}

// filterOpacity is the opacity a CSS filter list leaves: the product of its
// opacity() functions, 1 without any.
func filterOpacity(v string) float64 {
	a := 1.0
	for rest := v; ; {
		_, after, ok := strings.Cut(rest, "opacity(")
		if !ok {
			return a
		}
		arg, tail, _ := strings.Cut(after, ")")
		if o, ok := cssNumber(arg, 1); ok {
			a *= clamp01(o)
		}
		rest = tail
	}
}

// insetClip reads clip-path: inset(top right bottom left [round …]) on box
// b. Other shapes are not read (ok false): they clip to a shape inside the
// box, which leaves most of it showing.
func insetClip(v string, b BBox) (clipRect, bool) {
	args, ok := strings.CutPrefix(strings.TrimSpace(v), "inset(")
	if !ok {
		return clipRect{}, false
	}
	args, _, _ = strings.Cut(strings.TrimSuffix(args, ")"), "round")
	f := strings.Fields(args)
	if len(f) == 0 || len(f) > 4 {
		return clipRect{}, false
	}
	// CSS's 1-to-4 value shorthand: top, right, bottom, left.
	for len(f) < 4 {
		switch len(f) {
		case 1:
			f = append(f, f[0])
		case 2:
			f = append(f, f[0])
		case 3:
			f = append(f, f[1])
		}
	}
	var e [4]float64
	for i, s := range f {
		scale := b.Height
		if i%2 == 1 {
			scale = b.Width
		}
		v, ok := length(s, scale)
		if !ok {
			return clipRect{}, false
		}
		e[i] = v
	}
	return clipRect{b.X + e[3], b.Y + e[0], b.X + b.Width - e[1], b.Y + b.Height - e[2]}, true
}

// rectClip reads the legacy clip: rect(top, right, bottom, left) on box b,
// whose edges are offsets from the box's top left corner; auto is the
// box's own edge.
func rectClip(v string, b BBox) (clipRect, bool) {
	args, ok := strings.CutPrefix(strings.TrimSpace(v), "rect(")
	if !ok {
		return clipRect{}, false
	}
	f := strings.FieldsFunc(strings.TrimSuffix(args, ")"), func(r rune) bool { return r == ',' || r == ' ' })
	if len(f) != 4 {
		return clipRect{}, false
	}
	edge := []float64{0, b.Width, b.Height, 0}
	var e [4]float64
	for i, s := range f {
		if s == "auto" {
			e[i] = edge[i]
			continue
		}
		v, ok := length(s, 0)
		if !ok {
			return clipRect{}, false
		}
		e[i] = v
	}
	return clipRect{b.X + e[3], b.Y + e[0], b.X + e[1], b.Y + e[2]}, true
}

// length reads a computed CSS length in px, or a percentage of scale.
func length(s string, scale float64) (float64, bool) {
	if s == "0" {
		return 0, true
	}
	if v, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(v, 64)
		return f / 100 * scale, err == nil
	}
	v, ok := strings.CutSuffix(s, "px")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// boxText is the part of layout text s that one text box shows, from and
// length in UTF-16 code units for text outside ASCII; u16 caches s in
// UTF-16 across the boxes of one text.
func boxText(s string, u16 *[]uint16, from, length int) string {
	if ascii(s) {
		if from < 0 || length < 0 || from+length > len(s) {
			return ""
		}
		return s[from : from+length]
	}
	if *u16 == nil {
		*u16 = utf16.Encode([]rune(s))
	}
	if from < 0 || length < 0 || from+length > len(*u16) {
		return ""
	}
	return string(utf16.Decode((*u16)[from : from+length]))
}
