package snapshot

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a person reads off a control or a mark that the accessibility tree
// does not carry (docs/architecture.md, "Snapshots and refs"): an image a
// stylesheet draws (as content or as a background, on the element or its
// ::before and ::after), an SVG shape's kind and fill, and the value a
// slider without ARIA values shows beside it or by where its handle stands.
// All of it is read from what Chromium computed, never from the page's
// claims about itself.

// Where a value comes from, when the page does not say it in ARIA
// (Element.ValueSource).
const (
	// ValueShown is a value read from the text the page shows beside the
	// control.
	ValueShown = "shown beside"
	// ValuePosition is a handle's position along its track, in percent.
	ValuePosition = "position"
)

// cssImageName is what an image drawn by CSS on node r or its ::before or
// ::after says: the alternative text of a content image (content: url(x) /
// "alt"), else the words of the image's file name ("send-icon.svg" → "send
// icon"); "" when no such image is drawn or its address names nothing (a
// data: URL).
func (p *page) cssImageName(r domRef) string {
	if r.doc < 0 || (p.styles.content < 0 && p.styles.backgroundImage < 0) {
		return ""
	}
	for _, d := range p.withPseudo(r) {
		if _, ok := p.rawBounds(d); !ok {
			continue
		}
		if v := p.style(d, p.styles.content); strings.HasPrefix(v, "url(") {
			if _, alt, ok := strings.Cut(v, ") /"); ok {
				if s := collapseSpace(strings.Trim(strings.TrimSpace(alt), `"'`)); isWordy(s) {
					return cutName(s)
				}
			}
			if s := imageWords(v); s != "" {
				return s
			}
		}
		if s := imageWords(p.style(d, p.styles.backgroundImage)); s != "" {
			return s
		}
	}
	return ""
}

// withPseudo is node r followed by its ::before and ::after (and ::marker)
// pseudo-elements, which the layout capture lists as its children.
func (p *page) withPseudo(r domRef) []domRef {
	out := []domRef{r}
	par := p.docs[r.doc].d.Nodes.ParentIndex
	end := min(len(par), int(r.node)+64)
	for j := int(r.node) + 1; j < end; j++ {
		if par[j] != int(r.node) {
			continue
		}
		d := domRef{r.doc, int32(j)}
		if strings.HasPrefix(p.tag(d), "::") {
			out = append(out, d)
		}
	}
	return out
}

// cssImageHint is cssImageName of node r or of one of the first 40 nodes
// inside it: an icon button whose image is its child's background.
func (p *page) cssImageHint(r domRef) string {
	if s := p.cssImageName(r); s != "" {
		return s
	}
	if p.styles.content < 0 && p.styles.backgroundImage < 0 {
		return ""
	}
	depth := p.depths(int(r.doc))
	end := min(len(depth), int(r.node)+41)
	for j := int(r.node) + 1; j < end && depth[j] > depth[r.node]; j++ {
		d := domRef{r.doc, int32(j)}
		if p.nodeType(d) != 1 || strings.HasPrefix(p.tag(d), "::") {
			continue
		}
		if s := p.cssImageName(d); s != "" {
			return s
		}
	}
	return ""
}

// imageWords reads the first url() of a computed content or
// background-image value and returns the words of its file name, without
// the extension, sizes and numbers: "url(\"/img/send_icon@2x.png\")" gives
// "send icon".
func imageWords(v string) string {
	i := strings.Index(v, "url(")
	if i < 0 {
		return ""
	}
	v = v[i+len("url("):]
	j := strings.IndexByte(v, ')')
	if j < 0 {
		return ""
	}
	u := strings.Trim(strings.TrimSpace(v[:j]), `"'`)
	if strings.HasPrefix(strings.ToLower(u), "data:") {
		return ""
	}
	if k := strings.IndexAny(u, "?#"); k >= 0 {
		u = u[:k]
	}
	u = u[strings.LastIndexByte(u, '/')+1:]
	if s, err := url.PathUnescape(u); err == nil {
		u = s
	}
	if k := strings.LastIndexByte(u, '.'); k > 0 {
		u = u[:k]
	}
	var words []string
	for _, part := range strings.FieldsFunc(u, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' }) {
		for _, w := range classWords(part) {
			if isSize(w) {
				continue
			}
			words = append(words, w)
		}
	}
	s := strings.Join(words, " ")
	if len(s) > 40 || !isWordy(s) || sheetOnly(words) {
		return ""
	}
	return s
}

// sheetWords are the words of image files that hold many pictures (a
// sprite sheet, jQuery UI's ui-icons_444444_256x240.png) or none in
// particular: such a file says nothing of the one picture shown.
var sheetWords = map[string]bool{
	"sprite": true, "sprites": true, "spritesheet": true, "sheet": true, "icons": true, "ui": true,
	"bg": true, "background": true, "backgrounds": true, "image": true, "images": true, "img": true,
	"assets": true, "static": true, "default": true, "blank": true, "spacer": true, "transparent": true,
}

// sheetOnly reports whether every word is a sheetWords word.
func sheetOnly(words []string) bool {
	for _, w := range words {
		if !sheetWords[w] {
			return false
		}
	}
	return true
}

// iconRoles are the roles of items a person picks among by their icons:
// which menu item, option or tab has the star.
var iconRoles = map[string]bool{
	"menuitem": true, "menuitemcheckbox": true, "menuitemradio": true, "option": true,
	"tab": true, "treeitem": true, "listitem": true,
}

// itemIcon is what the icon of a named item says (an image drawn by CSS,
// an icon class, an image's alt, an SVG title), when its name does not
// say it already; "" for other roles.
func (p *page) itemIcon(role, name string, r domRef) string {
	if !iconRoles[role] || r.doc < 0 {
		return ""
	}
	icon := p.descendantHint(r)
	if icon == "" {
		icon = p.cssImageHint(r)
	}
	lower := strings.ToLower(name)
	for _, w := range strings.Fields(strings.ToLower(icon)) {
		if w != "icon" && !strings.Contains(lower, w) {
			return cutName(icon)
		}
	}
	return ""
}

// isSize reports whether a file-name word is a number or a size ("24",
// "2x", "16x16", "32px") rather than a word.
func isSize(w string) bool {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "px"), "x")
	if w == "" || w[0] < '0' || w[0] > '9' {
		return false
	}
	for _, r := range w {
		if (r < '0' || r > '9') && r != 'x' {
			return false
		}
	}
	return true
}

// svgShapes are the SVG shapes a person tells apart by kind and colour.
var svgShapes = map[string]string{
	"circle": "circle", "ellipse": "ellipse", "rect": "rectangle",
	"polygon": "polygon", "polyline": "line", "line": "line", "path": "shape",
}

// shapeName names an unnamed SVG shape by its fill colour as a word and its
// kind ("red circle", "blue square", "green triangle"), from the computed
// fill and the attributes that give its geometry; "" for anything else.
func (p *page) shapeName(r domRef) string {
	tag := p.tag(r)
	kind, ok := svgShapes[tag]
	if tag == "text" {
		// A letter or a short word drawn as a shape: what it reads, and
		// its colour.
		t := p.domText(r, true, noDOM)
		if t == "" || utf8.RuneCountInString(t) > 3 || strings.IndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 {
			// A symbol ("+", "×") is a label a person reads as it is.
			return ""
		}
		kind, ok = "letter "+t, true
		if utf8.RuneCountInString(t) > 1 {
			kind = "text " + t
		}
	}
	if !ok {
		return ""
	}
	bb, _ := p.bounds(r)
	switch tag {
	case "rect":
		if bb.Width > 0 && math.Abs(bb.Width-bb.Height) <= 0.05*max(bb.Width, bb.Height) {
			kind = "square"
		}
	case "ellipse":
		if bb.Width > 0 && math.Abs(bb.Width-bb.Height) <= 0.05*max(bb.Width, bb.Height) {
			kind = "circle"
		}
	case "polygon":
		pts, _ := p.attr(r, "points")
		switch n := len(strings.FieldsFunc(pts, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' })) / 2; n {
		case 3:
			kind = "triangle"
		case 4:
			kind = "quadrilateral"
		}
	}
	if c := colourWord(p.style(r, p.styles.fill)); c != "" {
		return c + " " + kind
	}
	return kind
}

// namedColours is the small palette a shape's fill is named from, nearest
// first by distance in sRGB; a name may stand at several points.
var namedColours = []struct {
	name    string
	r, g, b float64
}{
	{"black", 0, 0, 0}, {"white", 255, 255, 255}, {"gray", 128, 128, 128}, {"gray", 192, 192, 192},
	{"red", 255, 0, 0}, {"red", 200, 30, 30}, {"orange", 255, 165, 0}, {"yellow", 255, 255, 0},
	{"green", 0, 128, 0}, {"green", 0, 255, 0}, {"cyan", 0, 255, 255}, {"blue", 0, 0, 255},
	{"blue", 0, 0, 139}, {"purple", 128, 0, 128}, {"magenta", 255, 0, 255}, {"pink", 255, 192, 203},
	{"brown", 139, 69, 19},
}

// colourWord names a computed colour from namedColours; "" for none,
// transparent or anything not a colour (a gradient's url()).
func colourWord(s string) string {
	c, ok := parseColor(s)
	if !ok || c.a < 0.1 {
		return ""
	}
	best, name := math.Inf(1), ""
	for _, n := range namedColours {
		dr, dg, db := c.r*255-n.r, c.g*255-n.g, c.b*255-n.b
		if d := dr*dr + dg*dg + db*db; d < best {
			best, name = d, n.name
		}
	}
	return name
}

// sliderShown reads the value a slider handle without ARIA values shows:
// the short text with a number that stands nearest its track (a <span> or
// read-only field beside it, in the same section), else where the handle
// stands along its track, in percent. source says which.
func (p *page) sliderShown(handle domRef) (value, source string) {
	track := p.parent(handle)
	tb, ok := p.bounds(track)
	hb, hok := p.bounds(handle)
	if !ok || !hok || tb.Width <= 0 || tb.Height <= 0 {
		return "", ""
	}
	if v := p.textBeside(track, tb); v != "" {
		return v, ValueShown
	}
	var at float64
	if tb.Height > tb.Width {
		at = (tb.Y + tb.Height - (hb.Y + hb.Height/2)) / tb.Height
	} else {
		at = (hb.X + hb.Width/2 - tb.X) / tb.Width
	}
	return strconv.Itoa(int(math.Round(max(0, min(1, at))*100))) + "%", ValuePosition
}

// besideReach is how far from a slider's track the text showing its value
// may stand, in CSS pixels; besideAfter is what standing after the track
// in document order counts as, in pixels of distance.
const (
	besideReach = 120
	besideAfter = 6
)

// textBeside finds, in the three ancestors around track, the short text or
// read-only field value holding a number that stands nearest the track's
// box (tb), within besideReach and nearer to it than to any other slider's
// track; "" when there is none.
func (p *page) textBeside(track domRef, tb BBox) string {
	x := &p.docs[track.doc]
	depth := p.depths(int(track.doc))
	vals := x.d.Nodes.NodeValue
	scope := track
	for range 3 {
		if up := p.parent(scope); up.doc >= 0 && p.tag(up) != "HTML" {
			scope = up
		}
	}
	type placed struct {
		text string
		box  BBox
		node int32
	}
	var texts, others []placed
	end := min(len(depth), int(scope.node)+400)
	for j := int(scope.node) + 1; j < end && depth[j] > depth[scope.node]; j++ {
		d := domRef{track.doc, int32(j)}
		if d == track {
			// The track's own parts are its handle and ranges.
			for j+1 < len(depth) && depth[j+1] > depth[j] {
				j++
			}
			continue
		}
		var s string
		switch t := p.nodeType(d); {
		case t == 3 && j < len(vals) && x.layoutOf[j] >= 0:
			s = p.dom.str(vals[j])
		case t == 1 && p.tag(d) == "INPUT":
			if i, ok := x.inputValue[j]; ok {
				if _, ro := p.attr(d, "readonly"); ro {
					s = p.dom.str(i)
				}
			}
		case t == 1:
			// Another slider's track: text nearer to it is its value.
			for _, c := range p.children(d) {
				if p.sliderHandle(c) {
					if bb, ok := p.bounds(d); ok {
						others = append(others, placed{box: bb, node: d.node})
					}
					break
				}
			}
			continue
		default:
			continue
		}
		s = collapseSpace(s)
		if s == "" || len(s) > 24 || !strings.ContainsAny(s, "0123456789") {
			continue
		}
		box := d
		if p.nodeType(d) == 3 {
			box = p.parent(d)
		}
		if bb, ok := p.bounds(box); ok && bb.Width > 0 && bb.Height > 0 {
			texts = append(texts, placed{s, bb, d.node})
		}
	}
	// A value is read before or above its slider more often than after
	// it: between two sliders, text goes to the one it comes before.
	score := func(t placed, box BBox, node int32) float64 {
		d := boxDistance(t.box, box)
		if t.node > node {
			d += besideAfter
		}
		return d
	}
	best, found := math.Inf(1), ""
next:
	for _, t := range texts {
		dist := score(t, tb, track.node)
		if boxDistance(t.box, tb) > besideReach || dist >= best {
			continue
		}
		for _, o := range others {
			if score(t, o.box, o.node) <= dist {
				continue next
			}
		}
		best, found = dist, t.text
	}
	if _, after, ok := strings.Cut(found, ":"); ok && strings.ContainsAny(after, "0123456789") {
		found = strings.TrimSpace(after)
	}
	return found
}

// boxDistance is the gap between two boxes, 0 when they touch or overlap.
func boxDistance(a, b BBox) float64 {
	dx := max(0, max(a.X-(b.X+b.Width), b.X-(a.X+a.Width)))
	dy := max(0, max(a.Y-(b.Y+b.Height), b.Y-(a.Y+a.Height)))
	return math.Hypot(dx, dy)
}

// NameShape is an element's NameSource when its name is what a nameless
// SVG shape draws: its fill colour as a word and its kind ("red circle").
// Such an element's box is always shown, since where it is tells it apart.
const NameShape = "shape"

// maxShapes bounds the nameless SVG shapes a snapshot adds as elements of
// their own: a chart of a thousand dots is a few of them and a note.
const maxShapes = 16

// shapes adds, as elements, the nameless SVG shapes no rule made one of
// (no listener of their own): a button when an ancestor within four levels
// listens for clicks (a board or a chart that handles its shapes' clicks),
// an img otherwise, at most maxShapes in document order; the rest are
// counted in a note. Shapes inside a control (an icon's drawing) and in
// icon-sized drawings are not shapes a person picks.
func (b *builder) shapes() {
	p := b.p
	if p.styles.fill < 0 {
		return
	}
	have := make(map[domRef]int32, len(b.cands))
	for k := range b.cands {
		have[b.cands[k].dom] = int32(k)
	}
	added, more := 0, 0
	for di := range p.docs {
		x := &p.docs[di]
		for j := range x.layoutOf {
			if x.layoutOf[j] < 0 {
				continue
			}
			r := domRef{int32(di), int32(j)}
			tag := p.tag(r)
			if _, ok := svgShapes[tag]; !ok && tag != "text" {
				continue
			}
			if _, ok := have[r]; ok || !p.nameless(r) {
				continue
			}
			parent, svg, inControl, clicks := int32(-1), noDOM, false, false
			for a, i := p.parent(r), 0; a.doc >= 0 && i < 12; a, i = p.parent(a), i+1 {
				if k, ok := have[a]; ok && parent < 0 {
					parent = k
					inControl = b.cands[k].interactive && !b.cands[k].host
				}
				if i < 4 && p.clickable(a) {
					clicks = true
				}
				if p.tag(a) == "svg" && svg.doc < 0 {
					svg = a
				}
			}
			if inControl || svg.doc < 0 {
				continue
			}
			if sb, ok := p.bounds(svg); !ok || (sb.Width <= 32 && sb.Height <= 32) {
				continue
			}
			bb, ok := p.bounds(r)
			if !ok || bb.Width <= 0 || bb.Height <= 0 || colourWord(p.style(r, p.styles.fill)) == "" {
				continue
			}
			if v := p.style(r, p.styles.visibility); v == "hidden" || v == "collapse" {
				continue
			}
			if added == maxShapes {
				more++
				continue
			}
			added++
			role := "img"
			if clicks {
				role = "button"
			}
			b.cands = append(b.cands, cand{
				frame: b.frameOf(r), ax: -1, dom: r, parent: parent, role: role,
				interactive: clicks, clickLike: clicks, bbox: bb, vis: p.visClass(bb, true), prio: otherPriority,
			})
			have[r] = int32(len(b.cands) - 1)
		}
	}
	if more > 0 {
		p.notes = append(p.notes, "…"+strconv.Itoa(more)+" more nameless SVG shapes not listed (get_snapshot with positions, or a screenshot, shows where they are)")
	}
}

// nameless reports whether SVG node r has nothing that names it: no
// aria-label and no <title> inside.
func (p *page) nameless(r domRef) bool {
	if v, _ := p.attr(r, "aria-label"); strings.TrimSpace(v) != "" {
		return false
	}
	for _, c := range p.children(r) {
		if p.tag(c) == "title" {
			return false
		}
	}
	return true
}

// frameOf is the accessibility frame that shows DOM node r's document.
func (b *builder) frameOf(r domRef) int32 {
	if f, ok := b.p.frameByID[b.p.docs[r.doc].frameID]; ok {
		return int32(f)
	}
	return 0
}

// Limits of a board: a grid of at least minCells like cells, each no
// larger than compact, of sizes within cellSlack pixels of each other.
const (
	minCells  = 4
	maxCells  = 100
	cellSlack = 2
)

// boards makes the cells of a board elements: the children of an element
// that listens for clicks itself (a game board, a calendar, a colour
// palette that handles its cells' clicks) when they are alike boxes laid
// out in rows and columns with at most a mark's text. A cell is a button
// named by the mark drawn in it (a CSS image, its letter), nameless when
// empty: a person sees and clicks each.
func (b *builder) boards() {
	p := b.p
	have := make(map[domRef]int32, len(b.cands))
	for k := range b.cands {
		have[b.cands[k].dom] = int32(k)
	}
	for di := range p.docs {
		x := &p.docs[di]
		for j := range x.clickable {
			if !x.clickable[j] || x.layoutOf[j] < 0 {
				continue
			}
			board := domRef{int32(di), int32(j)}
			cells := p.children(board)
			if len(cells) < minCells || len(cells) > maxCells || !p.grid(cells) {
				continue
			}
			parent := int32(-1)
			for a, i := board, 0; a.doc >= 0 && i < 12; a, i = p.parent(a), i+1 {
				if k, ok := have[a]; ok {
					parent = k
					break
				}
			}
			if parent >= 0 && b.cands[parent].interactive && !b.cands[parent].host && b.cands[parent].dom != board {
				continue // inside a control
			}
			for _, c := range cells {
				if _, ok := have[c]; ok {
					continue
				}
				bb, _ := p.bounds(c)
				b.cands = append(b.cands, cand{
					frame: b.frameOf(c), ax: -1, dom: c, parent: parent, role: "button",
					interactive: true, clickLike: true, bbox: bb, vis: p.visClass(bb, true), prio: otherPriority,
				})
				have[c] = int32(len(b.cands) - 1)
			}
		}
	}
}

// grid reports whether cells are alike boxes, each compact and holding at
// most a mark's text, laid out in at least two rows and two columns: three
// in four of one size (a mark drawn as the cell's content may resize its
// cell), within cellSlack pixels.
func (p *page) grid(cells []domRef) bool {
	xs, ys := map[int]bool{}, map[int]bool{}
	sizes := map[[2]int]int{}
	boxes := make([]BBox, 0, len(cells))
	for _, c := range cells {
		bb, ok := p.bounds(c)
		if !ok || bb.Width <= 0 || bb.Height <= 0 || bb.Width > compactWidth || bb.Height > compactHeight {
			return false
		}
		if v := p.style(c, p.styles.visibility); v == "hidden" || v == "collapse" {
			return false
		}
		if utf8.RuneCountInString(p.domText(c, true, noDOM)) > 3 {
			return false
		}
		xs[int(math.Round(bb.X))] = true
		ys[int(math.Round(bb.Y))] = true
		sizes[[2]int{int(math.Round(bb.Width)), int(math.Round(bb.Height))}]++
		boxes = append(boxes, bb)
	}
	var common [2]int
	for sz, n := range sizes {
		if n > sizes[common] || (n == sizes[common] && (sz[0] < common[0] || (sz[0] == common[0] && sz[1] < common[1]))) {
			common = sz
		}
	}
	alike := 0
	for _, bb := range boxes {
		if math.Abs(bb.Width-float64(common[0])) <= cellSlack && math.Abs(bb.Height-float64(common[1])) <= cellSlack {
			alike++
		}
	}
	return alike*4 >= len(cells)*3 && len(xs) >= 2 && len(ys) >= 2
}
