package snapshot

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/google/uuid"
)

// Options bounds what a snapshot shows. The zero value means the defaults,
// except ViewportOnly, which the caller sets (get_snapshot defaults it to
// true).
type Options struct {
	// ViewportOnly leaves out elements outside the viewport and limits the
	// page text to the viewport.
	ViewportOnly bool
	// MaxElements caps the elements (default 100).
	MaxElements int
	// TokenBudget caps the elements' JSON in estimated tokens (default 2000).
	// A token is estimated as 4 bytes of compact JSON: tokens =
	// ceil(len(json.Marshal(elements)) / 4), measured without dom_id, css
	// and frame, which are for scripts and which Render leaves out.
	TokenBudget int
	// TextBudget caps the page text in bytes (default 2048).
	TextBudget int
	// Positions adds the page text's runs with their boxes
	// (Snapshot.Positions), as far as the page text goes.
	Positions bool
	// Keep is the ref table of the agent's last snapshot of the same
	// document: an element on a node it names keeps that ref, so that a
	// Delta between the two is what changed, not every ref renumbered.
	// Nil numbers every element anew. Only the caller knows that the
	// document is the same (a node id means nothing in another one).
	Keep Table
}

// The defaults of Options and the limits no option changes.
const (
	DefaultMaxElements = 100
	DefaultTokenBudget = 2000
	DefaultTextBudget  = 2048
	// maxDepth is the deepest nesting of elements; deeper ones are shown as
	// children of their ancestor at this depth.
	maxDepth = 10
	// maxNameLen is where names are cut; "..." follows a cut name.
	maxNameLen = 200
	// maxOptions is how many options of a select are shown as its
	// children; a note says when there are more.
	maxOptions = 25
)

// NameFallback is an element's NameSource when its name is not the
// accessible name but what the page binds to the element itself (see
// Element.NameSource).
const NameFallback = "fallback"

func (o Options) withDefaults() Options {
	if o.MaxElements <= 0 {
		o.MaxElements = DefaultMaxElements
	}
	if o.TokenBudget <= 0 {
		o.TokenBudget = DefaultTokenBudget
	}
	if o.TextBudget <= 0 {
		o.TextBudget = DefaultTextBudget
	}
	return o
}

// EstimateTokens is the token estimate used for every budget: one token per
// 4 bytes of JSON, rounded up.
func EstimateTokens(jsonBytes int) int { return (jsonBytes + 3) / 4 }

// ElementTokens is what els cost against the token budget: the estimate of
// their JSON without dom_id, css and frame, which Render leaves out.
func ElementTokens(els []Element) int {
	bare := make([]Element, len(els))
	for i, e := range els {
		e.DOMID, e.CSS, e.Frame = "", "", ""
		bare[i] = e
	}
	data, _ := json.Marshal(bare)
	return EstimateTokens(len(data))
}

// Visibility classes, best first; they rank elements when some must go.
const (
	visFull   = iota // wholly inside the viewport
	visPartly        // partly inside
	visOff           // outside the viewport
	visHidden        // rendered without a visible box
)

// locator is what a script records to find an element again (Element's
// DOMID, CSS and Frame).
type locator struct{ id, css, frame string }

// cand is a node that passed the inclusion rules: a candidate element.
type cand struct {
	frame  int32
	ax     int32
	dom    domRef
	parent int32 // nearest candidate ancestor, -1 for none
	role   string
	props  axProps
	bbox   BBox
	vis    int8
	prio   int8
	// interactive elements are acted on; the others (headings, regions,
	// dialogs, scroll containers) are there to be read.
	interactive bool
	// clickLike elements are generic elements with a click handler and a
	// pointer cursor; dropped is set when one turns out to wrap controls
	// and have no text of its own.
	clickLike bool
	dropped   bool
	// host elements are interactive without being a control of a kind
	// (a clickable row, a focusable list): what is clickable inside one is
	// an element of its own.
	host bool
	// items is set on a listbox or menu whose items are elements: the
	// page text reads through it to them.
	items bool
	// gestures are the gestures other than a plain click the element
	// answers, as bits (gestures.go).
	gestures uint8
	// loc is where the element is in the DOM, set with el.
	loc        locator
	scrollable bool
	// el and target are filled for the elements that may be shown.
	el      *Element
	target  *Target
	focused bool
}

// builder holds one Build's working state.
type builder struct {
	p       *page
	opts    Options
	cands   []cand
	visited [][]bool
	// candOf is the candidate of each accessibility node, or -1.
	candOf [][]int32
	// selects are the selects with options, and how many each has.
	selects []selectOptions
	// inert is set when the tree left out nodes for an open modal
	// <dialog>; modal is the candidate of the open modal dialog, or -1.
	inert bool
	modal int32
	// axOf is, per document and node, the index of a DOM node's
	// unignored accessibility node in its frame's tree, or -1; built on
	// first use (domItems).
	axOf [][]int32
	// answers holds the nodes that answer a gesture other than a plain
	// click, with its bits (gestures.go); nil when none does. answered
	// holds those already visited.
	answers  map[domRef]uint8
	answered map[domRef]bool
}

// selectOptions says how many options select k has.
type selectOptions struct {
	k     int32
	total int
}

// How far inside an interactive element a node is, for visit and classify.
const (
	withinNone    = iota
	withinHost    // inside a clickable row or a focusable list
	withinControl // inside a link, a button or another control
)

// Build turns a capture into a snapshot whose refs start at @e{firstRef}. It
// returns the snapshot, its ref table and the next free ref number.
//
// Elements are the accessibility nodes that pass the inclusion rules (see
// interactiveRoles, containerRoles, headings of level 1 to 3, keyboard-
// focusable elements, a focusable handle with aria-valuenow as a slider,
// generic elements with a click handler and a pointer cursor, also inside
// another such element (an icon in a clickable row), the items of a list that
// handles their clicks, the first maxOptions options of a select, scroll
// containers; and by behaviour (behaviour.go): a compact element with a click
// handler and no pointer cursor (a CSS icon, an SVG label, a game cell), the
// children of a listbox or menu as its options or menu items whatever their
// tags, what a person drags (draggable, a grab cursor, the items of a
// sortable list), a focusable handle its classes call a slider's, the
// item of a menu bar that holds a submenu shown on hover, and what answers
// a double click or a right click (gestures.go)), listed in
// depth-first document order with an open JavaScript dialog's controls
// first. When more qualify than
// opts.MaxElements or opts.TokenBudget allow, the lowest-ranked are left out
// (rank: wholly in the viewport, partly, outside; then role priority; then
// document order) and a note says how many.
func Build(c *capture.Page, opts Options, firstRef int) (*Snapshot, Table, int) {
	s, table, next, _, _ := buildAll(c, opts, firstRef)
	return s, table, next
}

// buildAll is Build, also returning the builder and the refs of its candidates,
// which the markdown of BuildMarkdown is rendered from.
func buildAll(c *capture.Page, opts Options, firstRef int) (*Snapshot, Table, int, *builder, map[int32]string) {
	opts = opts.withDefaults()
	p := newPage(c)
	b := &builder{p: p, opts: opts}
	b.collect()

	s := &Snapshot{
		ID:        newID(),
		Timestamp: time.Now().UTC(),
		Page:      Page{URL: c.URL, Title: c.Title},
		Viewport:  Viewport(c.Viewport),
		Elements:  []Element{},
		Notes:     p.notes,
	}
	if c.Screenshot != nil {
		s.Screenshot = &Screenshot{MIMEType: c.Screenshot.MIMEType, Width: c.Screenshot.Width, Height: c.Screenshot.Height, Data: c.Screenshot.Data}
	}
	if c.ScreenshotError != "" {
		s.Notes = append(s.Notes, "no screenshot: "+c.ScreenshotError)
	}

	dialog := dialogElements(c.Dialog)
	if c.Dialog != nil {
		s.Dialog = &Dialog{Type: c.Dialog.Type, Message: c.Dialog.Message}
	}
	ranked, offscreen := b.rank()
	limit := opts.MaxElements - len(dialog)
	if limit < 0 {
		limit = 0
	}
	if len(ranked) > limit {
		ranked = ranked[:limit]
	}
	for _, k := range ranked {
		b.detail(k)
	}
	keep := b.fit(dialog, ranked, firstRef)
	els, table, refOf, next := b.assemble(dialog, ranked[:keep], firstRef, true)
	s.Elements = els
	for k, ref := range refOf {
		if b.cands[k].focused {
			r := ref
			s.Focused = &r
		}
	}
	if left := len(b.eligible()) - keep + offscreen; left > 0 {
		s.Notes = append(s.Notes, leftOutNote(len(b.eligible())-keep, offscreen, opts.ViewportOnly))
	}
	s.Notes = append(s.Notes, b.optionNotes(refOf)...)
	if p.gestureLeft > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d more rows' texts answer %s (the page listens for it everywhere) and have no ref", p.gestureLeft, strings.Join(gestureWords(p.gestureLeftBits), " and ")))
	}
	if p.judged() {
		w := newSeer(p)
		s.Seen = w.seen()
		at := make(map[string]int, len(s.Elements))
		for i, e := range s.Elements {
			at[e.Ref] = i
		}
		for k, ref := range refOf {
			c, e := &b.cands[k], &s.Elements[at[ref]]
			if c.dom.doc >= 0 && int(c.dom.doc) < len(w.docURL) {
				e.Seen, e.SeenText, e.SeenParts = w.element(c.dom)
				e.Document = w.docURL[c.dom.doc]
			}
		}
	}
	text, cut, runs := b.pageText(refOf)
	s.Text = text
	if opts.Positions {
		s.Positions = runs
	}
	if cut {
		s.Notes = append(s.Notes, fmt.Sprintf("page text cut at %d bytes", opts.TextBudget))
	}
	if b.modal >= 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("modal dialog %q is open: the page text leaves out the page behind it", b.cands[b.modal].el.Name))
	}
	return s, table, next, b, refOf
}

// leftOutNote says how many elements the agent does not see and why.
func leftOutNote(overBudget, offscreen int, viewportOnly bool) string {
	switch {
	case overBudget > 0 && offscreen > 0:
		return fmt.Sprintf("%d more elements not shown (%d outside the viewport, %d over the element budget); scroll or use viewport_only=false", overBudget+offscreen, offscreen, overBudget)
	case offscreen > 0:
		return fmt.Sprintf("%d more elements outside the viewport; scroll or use viewport_only=false", offscreen)
	case viewportOnly:
		return fmt.Sprintf("%d more elements not shown (over the element budget); scroll to see them", overBudget)
	default:
		return fmt.Sprintf("%d more elements not shown (over the element budget); use viewport_only=true and scroll to see them", overBudget)
	}
}

func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		id, _ = uuid.NewRandom()
	}
	return id.String()
}

// collect walks every frame's tree depth-first from the main frame, splicing
// each iframe's tree in at its owner, and records the candidates in document
// order.
func (b *builder) collect() {
	p := b.p
	b.visited = make([][]bool, len(p.frames))
	b.candOf = make([][]int32, len(p.frames))
	for i := range p.frames {
		b.visited[i] = make([]bool, len(p.frames[i].nodes))
		b.candOf[i] = make([]int32, len(p.frames[i].nodes))
		for j := range b.candOf[i] {
			b.candOf[i][j] = -1
		}
	}
	b.answers = p.gestureTargets()
	done := make([]bool, len(p.frames))
	for f := range p.frames {
		// Frames not reached through an owner (the owner was not found)
		// are walked after the main frame.
		if done[f] || (f > 0 && b.reached(f)) {
			continue
		}
		done[f] = true
		if p.frames[f].root >= 0 {
			b.visit(f, p.frames[f].root, -1, withinNone)
		}
	}
	// Clickable wrappers that wrap controls are gone; their children hang
	// on the nearest remaining ancestor.
	for i := range b.cands {
		par := b.cands[i].parent
		for par >= 0 && b.cands[par].dropped {
			par = b.cands[par].parent
		}
		b.cands[i].parent = par
	}
	b.modal = b.modalDialog()
	b.boards()
	b.shapes()
}

// modalDialog finds the open modal dialog, whose page text is all the page
// text there is: the last dialog with aria-modal, or the <dialog> for which
// the tree left the rest of the page out as inert; -1 when there is none.
func (b *builder) modalDialog() int32 {
	m := int32(-1)
	for k := range b.cands {
		c := &b.cands[k]
		if c.role != "dialog" && c.role != "alertdialog" {
			continue
		}
		if v, _ := b.p.attr(c.dom, "aria-modal"); v == "true" || (b.inert && b.p.tag(c.dom) == "DIALOG") {
			m = int32(k)
		}
	}
	return m
}

// reached reports whether frame f's root was visited.
func (b *builder) reached(f int) bool {
	r := b.p.frames[f].root
	return r >= 0 && b.visited[f][r]
}

// visit walks node i of frame f. parent is the nearest candidate ancestor;
// within says how far inside an interactive ancestor the node is. It returns
// whether the subtree holds an interactive element.
func (b *builder) visit(f int, i int32, parent int32, within int8) bool {
	fr := &b.p.frames[f]
	if b.visited[f][i] {
		return false
	}
	b.visited[f][i] = true
	n := &fr.nodes[i]
	dom := noDOM
	if n.BackendNodeID != 0 {
		if r, ok := b.p.byBackend[n.BackendNodeID]; ok {
			dom = r
		}
	}
	role := n.Role.Value.s
	if role == "Iframe" || role == "IframePresentational" {
		if cf := b.childFrame(dom); cf >= 0 && b.p.frames[cf].root >= 0 {
			return b.visit(cf, b.p.frames[cf].root, parent, within)
		}
		return false
	}
	k := b.candOf[f][i]
	switch {
	case k >= 0:
		// Made already, as an item of its listbox or menu (domItems).
	case !n.Ignored:
		k = b.classify(f, i, n, dom, parent, within)
	case !b.inert && hasReason(n, "activeModalDialog"):
		b.inert = true
	case b.answers[dom] != 0 && plainlyIgnored(n):
		// A <span> holding a row's text, which the tree leaves out as
		// uninteresting, answers a double click all the same.
		k = b.classifyGesture(f, i, dom, parent, within)
	}
	if n.Role.Value.s == "StaticText" && b.answers != nil && !n.Ignored {
		// The text of an element that the tree leaves out altogether (a
		// <span> of a row, or one around a <b>): the element answers for
		// it.
		for r, up := b.p.parent(dom), 0; r.doc >= 0 && up < 3 && b.axIndex(r) < 0; r, up = b.p.parent(r), up+1 {
			if b.answers[r] != 0 {
				b.classifyGesture(f, -1, r, parent, within)
				break
			}
		}
	}
	childParent, childWithin := parent, within
	inter := false
	if k >= 0 {
		c := &b.cands[k]
		childParent = k
		inter = c.interactive
		switch {
		case c.interactive && c.host:
			childWithin = max(within, withinHost)
		case c.interactive:
			childWithin = withinControl
		}
	}
	if cr := n.Role.Value.s; !n.Ignored && itemRoles[cr] != "" && dom.doc >= 0 && b.p.tag(dom) != "SELECT" {
		at := k
		if at < 0 {
			at = parent
		}
		b.domItems(f, dom, cr, at)
	}
	sub := false
	switch b.p.tag(dom) {
	case "SELECT":
		if k >= 0 {
			b.options(f, i, k)
		}
	case "INPUT", "TEXTAREA":
		// A form control's children are its user-agent parts (the inner
		// editor, a date's fields): not elements.
	default:
		for _, id := range n.ChildIDs {
			if ci, ok := fr.byID[id]; ok && b.visit(f, ci, childParent, childWithin) {
				sub = true
			}
		}
	}
	// A clickable wrapper around controls is those controls, unless it has
	// text of its own (a message row around its star and reply icons).
	if k >= 0 && b.cands[k].clickLike && sub && !isWordy(b.axText(int32(f), i)) {
		b.cands[k].dropped = true
	}
	return sub || inter
}

// hasReason reports whether an ignored node was ignored for reason.
func hasReason(n *axNode, reason string) bool {
	for i := range n.IgnoredReasons {
		if n.IgnoredReasons[i].Name == reason {
			return true
		}
	}
	return false
}

// options makes the first maxOptions options of select k its children, so
// that the agent sees what it may choose though the select is closed.
func (b *builder) options(f int, i int32, k int32) {
	fr := &b.p.frames[f]
	total := 0
	var walk func(i int32, depth int)
	walk = func(i int32, depth int) {
		for _, id := range fr.nodes[i].ChildIDs {
			ci, ok := fr.byID[id]
			if !ok || b.visited[f][ci] {
				continue
			}
			n := &fr.nodes[ci]
			switch role := n.Role.Value.s; {
			case !n.Ignored && (role == "option" || role == "MenuListOption"):
				b.visited[f][ci] = true
				if total++; total <= maxOptions {
					b.option(f, ci, n, k)
				}
			case depth < 2:
				// The popup of a closed select, an optgroup, or the
				// wrapper the tree ignores around a list box's options.
				walk(ci, depth+1)
			}
		}
	}
	walk(i, 0)
	if total > 0 {
		b.selects = append(b.selects, selectOptions{k, total})
	}
}

// optionNotes says of each shown select that does not show all its options
// how many it shows.
func (b *builder) optionNotes(refOf map[int32]string) []string {
	var notes []string
	for _, so := range b.selects {
		if _, ok := refOf[so.k]; !ok {
			continue
		}
		shown := 0
		for k := range refOf {
			if b.cands[k].parent == so.k && b.cands[k].role == "option" {
				shown++
			}
		}
		if shown < so.total {
			// A note names the select, not its ref: each ref is shown
			// once, in the elements.
			e := b.cands[so.k].el
			what := fmt.Sprintf("the select %q", e.Name)
			if e.Name == "" && e.Value != nil {
				what = fmt.Sprintf("the select set to %q", *e.Value)
			}
			notes = append(notes, fmt.Sprintf("%s shows %d of its %d options; select any of them by its text", what, shown, so.total))
		}
	}
	return notes
}

// option records option node i of frame f as a child of select k. An option
// of a closed select has no box of its own: it is hidden, or offscreen with
// its select.
func (b *builder) option(f int, i int32, n *axNode, k int32) {
	p := b.p
	dom := noDOM
	if r, ok := p.byBackend[n.BackendNodeID]; ok {
		dom = r
	}
	c := cand{
		frame: int32(f), ax: i, dom: dom, parent: k, role: "option", props: readProps(n.Properties),
		interactive: true, prio: otherPriority,
	}
	bb, ok := p.bounds(dom)
	c.bbox, c.vis = bb, p.visClass(bb, ok)
	if !ok && b.cands[k].vis == visOff {
		c.vis = visOff
	}
	b.cands = append(b.cands, c)
	b.candOf[f][i] = int32(len(b.cands) - 1)
}

// childFrame finds the frame whose document an iframe node owns, or -1.
func (b *builder) childFrame(owner domRef) int {
	p := b.p
	if owner.doc < 0 {
		return -1
	}
	child, ok := p.docs[owner.doc].contentDoc[int(owner.node)]
	if !ok || child < 0 || child >= len(p.docs) {
		return -1
	}
	if f, ok := p.frameByID[p.docs[child].frameID]; ok {
		return f
	}
	for f := range p.frames {
		if p.frames[f].id == "" && p.frames[f].url == p.docs[child].url {
			return f
		}
	}
	return -1
}

// classify applies the inclusion and exclusion rules to one unignored node
// and records it as a candidate; it returns the candidate's index or -1.
func (b *builder) classify(f int, i int32, n *axNode, dom domRef, parent int32, within int8) int32 {
	p := b.p
	axRole := n.Role.Value.s
	switch axRole {
	case "RootWebArea", "WebArea", "StaticText", "InlineTextBox", "LineBreak", "":
		return -1
	}
	if dom.doc >= 0 {
		if v := p.style(dom, p.styles.visibility); v == "hidden" || v == "collapse" {
			return -1
		}
		if p.style(dom, p.styles.display) == "none" {
			return -1
		}
	}
	role := normalRole(axRole)
	props := readProps(n.Properties)
	var incl, inter, clickLike, scroll bool
	switch {
	case interactiveRoles[role]:
		incl, inter = true, true
	case role == "heading":
		lvl := props.level
		if lvl == 0 {
			lvl = 2 // the ARIA default
		}
		incl = lvl >= 1 && lvl <= 3
	case containerRoles[role]:
		incl = true
	}
	tag := p.tag(dom)
	if tag == "BODY" || tag == "HTML" {
		return -1
	}
	plain := role == "generic" || role == "none" || role == "presentation"
	if !incl && props.focusable && p.keyboardFocusable(dom) {
		incl, inter = true, true
		_, valued := p.attr(dom, "aria-valuenow")
		switch {
		case props.editable == "richtext" || props.editable == "plaintext":
			role = "textbox"
		case valued && plain, plain && p.sliderHandle(dom):
			// A slider's handle: a focusable span that says its value,
			// or that its classes call a slider's handle.
			role = "slider"
		case p.clickable(dom) && plain:
			role = "button"
		}
	}
	if !incl && dom.doc >= 0 && p.scrollable(dom) {
		incl, scroll = true, true
	}
	if !incl && within < withinControl && dom.doc >= 0 && tag != "LABEL" && p.pointer(dom) {
		switch {
		case p.clickable(dom):
			incl, inter, clickLike = true, true, true
			role = "button"
		case p.delegatedItem(dom):
			// An item of a popup list whose clicks the list handles.
			incl, inter, clickLike = true, true, true
			role = "option"
		}
	}
	if !incl && dom.doc >= 0 && tag != "LABEL" {
		item := p.itemRole(dom)
		switch {
		case item != "" && (plain || role == "listitem"):
			// A listbox's or menu's child is its item, whatever its tag.
			incl, inter, role = true, true, item
		case p.dragged(dom) && b.compactish(dom):
			incl, inter = true, true
			if plain {
				role = "button"
			}
		case within < withinControl && p.clickable(dom) && b.compact(f, i, dom):
			// A click listener without a pointer cursor: a CSS icon, an
			// SVG label, an empty game cell, a menu entry.
			incl, inter, clickLike = true, true, true
			role = "button"
		case within < withinControl && p.hoverMenu(dom) && b.compact(f, i, dom):
			incl, inter, role = true, true, "menuitem"
		}
	}
	g := b.answers[dom]
	if g != 0 && within < withinControl && !(tag == "LABEL" && p.ownsText(dom)) && ((incl && inter) || b.gestureSized(f, i, dom)) {
		if !inter {
			incl, inter = true, true
			if plain || axRole == "LabelText" {
				role = "generic"
				if p.clickable(dom) {
					role = "button"
				}
			}
		}
	} else {
		g = 0
	}
	if !incl {
		return -1
	}
	return b.addCand(cand{
		frame: int32(f), ax: i, dom: dom, parent: parent, role: role, props: props,
		interactive: inter, clickLike: clickLike, scrollable: scroll || (dom.doc >= 0 && p.scrollable(dom)),
		focused: props.focused, gestures: g,
	})
}

// addCand fills in what every candidate has from its node (whether it
// hosts other elements, its box, visibility and priority), records it and
// returns its index.
func (b *builder) addCand(c cand) int32 {
	c.host = c.interactive && (c.clickLike || !interactiveRoles[c.role])
	bb, ok := b.p.bounds(c.dom)
	if ok && c.interactive && (bb.Width <= 0 || bb.Height <= 0) {
		if d, drawn := b.p.drawnBounds(c.dom); drawn {
			bb = d
		} else if l, labelled := b.p.labelBounds(c.dom); labelled {
			bb = l
		}
	}
	c.bbox = bb
	c.vis = b.p.visClass(bb, ok)
	pr, known := rolePriority[c.role]
	if !known {
		pr = otherPriority
	}
	c.prio = int8(pr)
	b.cands = append(b.cands, c)
	k := int32(len(b.cands) - 1)
	if c.ax >= 0 {
		b.candOf[c.frame][c.ax] = k
	}
	return k
}

// pointer reports whether node r shows a pointer cursor (or the capture did
// not ask for the cursor).
func (p *page) pointer(r domRef) bool {
	c := p.style(r, p.styles.cursor)
	return c == "pointer" || (c == "" && p.styles.cursor < 0)
}

// delegatedItem reports whether node r is an item of a list that handles
// its items' clicks itself: an <li> whose list, or one of the list's two
// nearest ancestors (a popup around the list's scroller, as selectric
// builds it), has the click handler.
func (p *page) delegatedItem(r domRef) bool {
	if p.tag(r) != "LI" {
		return false
	}
	a := p.parent(r)
	for range 3 {
		if p.clickable(a) {
			return true
		}
		a = p.parent(a)
	}
	return false
}

// keyboardFocusable reports whether a focusable node is reachable with Tab:
// a negative tabindex makes it focusable by script only.
func (p *page) keyboardFocusable(dom domRef) bool {
	if v, ok := p.attr(dom, "tabindex"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n < 0 {
			return false
		}
	}
	return true
}

// visClass places a viewport box against the viewport.
func (p *page) visClass(b BBox, ok bool) int8 {
	if !ok {
		return visHidden
	}
	if b.Width <= 0 || b.Height <= 0 {
		if b.X >= 0 && b.Y >= 0 && b.X <= p.vw && b.Y <= p.vh {
			return visHidden
		}
		return visOff
	}
	if b.X >= 0 && b.Y >= 0 && b.X+b.Width <= p.vw+0.5 && b.Y+b.Height <= p.vh+0.5 {
		return visFull
	}
	if b.X < p.vw && b.Y < p.vh && b.X+b.Width > 0 && b.Y+b.Height > 0 {
		return visPartly
	}
	return visOff
}

// eligible returns the candidates that may be shown, in document order.
func (b *builder) eligible() []int32 {
	out := make([]int32, 0, len(b.cands))
	for i := range b.cands {
		c := &b.cands[i]
		if c.dropped || (b.opts.ViewportOnly && c.vis == visOff) {
			continue
		}
		out = append(out, int32(i))
	}
	return out
}

// rank returns the eligible candidates best first, and how many were left
// out for being outside the viewport.
func (b *builder) rank() ([]int32, int) {
	out := b.eligible()
	off := 0
	if b.opts.ViewportOnly {
		for i := range b.cands {
			if !b.cands[i].dropped && b.cands[i].vis == visOff {
				off++
			}
		}
	}
	sort.SliceStable(out, func(x, y int) bool {
		a, c := &b.cands[out[x]], &b.cands[out[y]]
		va, vc := min(a.vis, visOff), min(c.vis, visOff)
		if va != vc {
			return va < vc
		}
		if a.prio != c.prio {
			return a.prio < c.prio
		}
		return out[x] < out[y]
	})
	return out, off
}

// fit returns how many of the ranked candidates fit the token budget: the
// most that do, found by bisection on the exact JSON size.
func (b *builder) fit(dialog []dialogElement, ranked []int32, firstRef int) int {
	fits := func(n int) bool {
		els, _, _, _ := b.assemble(dialog, ranked[:n], firstRef, false)
		data, err := json.Marshal(els)
		return err == nil && EstimateTokens(len(data)) <= b.opts.TokenBudget
	}
	if fits(len(ranked)) {
		return len(ranked)
	}
	lo, hi := 0, len(ranked)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// assemble lays out the chosen candidates in document order after the
// dialog's elements, numbers their refs from firstRef, and links children.
// With located, elements carry their DOM id, CSS path and frame, which the
// budget leaves out.
func (b *builder) assemble(dialog []dialogElement, chosen []int32, firstRef int, located bool) ([]Element, Table, map[int32]string, int) {
	order := make([]int32, len(chosen))
	copy(order, chosen)
	sort.Slice(order, func(x, y int) bool { return order[x] < order[y] })

	els := make([]Element, 0, len(dialog)+len(order))
	table := make(Table, len(dialog)+len(order))
	next := firstRef
	// The dialog covers everything, so its controls come first.
	if len(dialog) > 0 {
		root := len(els)
		for j, d := range dialog {
			ref := "@e" + strconv.Itoa(next)
			next++
			e := d.el
			e.Ref = ref
			els = append(els, e)
			t := d.target
			t.Ref = ref
			table[ref] = t
			if j > 0 {
				els[root].Children = append(els[root].Children, ref)
			}
		}
	}
	kept := b.keptRefs(order)
	refOf := make(map[int32]string, len(order))
	pos := make(map[int32]int, len(order))
	depth := make(map[int32]int, len(order))
	shownParent := make(map[int32]int32, len(order))
	for _, k := range order {
		c := &b.cands[k]
		ref, ok := kept[k]
		if !ok {
			ref = "@e" + strconv.Itoa(next)
			next++
		}
		refOf[k] = ref
		e := *c.el
		e.Ref = ref
		e.Children = nil
		if located {
			e.DOMID, e.CSS, e.Frame = c.loc.id, c.loc.css, c.loc.frame
		}
		t := *c.target
		t.Ref = ref
		table[ref] = t
		// Nearest shown ancestor; deeper than maxDepth hangs on the
		// ancestor at maxDepth.
		par := c.parent
		for par >= 0 {
			if _, ok := refOf[par]; ok {
				break
			}
			par = b.cands[par].parent
		}
		d := 1
		if par >= 0 {
			d = depth[par] + 1
			if d > maxDepth {
				par = shownParent[par]
				d = maxDepth
			}
		}
		shownParent[k] = par
		depth[k] = d
		pos[k] = len(els)
		if par >= 0 {
			pe := &els[pos[par]]
			pe.Children = append(pe.Children, ref)
		}
		els = append(els, e)
	}
	return els, table, refOf, next
}

// keptRefs gives each chosen candidate on a node of Options.Keep that
// node's ref. A ref is kept once: a second candidate on the same node (and
// every synthetic control of a dialog, which has no node) is numbered anew,
// so a ref never names two elements.
func (b *builder) keptRefs(order []int32) map[int32]string {
	if len(b.opts.Keep) == 0 {
		return nil
	}
	type node struct {
		id    int64
		frame string
	}
	byNode := make(map[node]string, len(b.opts.Keep))
	for ref, t := range b.opts.Keep {
		if t.BackendNodeID != 0 && t.Dialog == "" {
			byNode[node{t.BackendNodeID, t.FrameID}] = ref
		}
	}
	kept := make(map[int32]string)
	used := make(map[string]bool)
	for _, k := range order {
		t := b.cands[k].target
		if t == nil || t.BackendNodeID == 0 {
			continue
		}
		if ref, ok := byNode[node{t.BackendNodeID, t.FrameID}]; ok && !used[ref] {
			kept[k], used[ref] = ref, true
		}
	}
	return kept
}

// detail fills in what a candidate shows: name, state, value, kind, level,
// box, and its ref-table target.
func (b *builder) detail(k int32) {
	c := &b.cands[k]
	if c.el != nil {
		return
	}
	p := b.p
	fr := &p.frames[c.frame]
	var n *axNode
	if c.ax >= 0 {
		n = &fr.nodes[c.ax]
	} else {
		// An item the tree leaves out (domItems): only its DOM node.
		n = &axNode{BackendNodeID: p.backendID(c.dom)}
	}
	// Strings from the tree are substrings of the whole tree's JSON; clone
	// the ones that outlive Build so that they do not keep it alive.
	axName := strings.Clone(n.Name.Value.String())
	c.role = strings.Clone(c.role)
	name := collapseSpace(axName)
	source := ""
	svgText := p.tag(c.dom) == "text"
	if name == "" && c.dom.doc >= 0 && !svgText {
		if name = p.shapeName(c.dom); name != "" {
			source = NameShape
		}
	}
	if name == "" && (c.interactive || containerRoles[c.role]) {
		if name = b.fallbackName(c, n); name != "" {
			source = NameFallback
		}
	}
	if svgText && (name == "" || (source == NameFallback && name == b.ownText(c))) {
		// A letter drawn in an SVG: what it reads and its colour, unless
		// something names it better (an icon class).
		if s := p.shapeName(c.dom); s != "" {
			name, source = s, NameShape
		}
	}
	name = cutName(name)

	tag := strings.ToLower(p.tag(c.dom))
	var inputType string
	if tag == "input" {
		inputType, _ = p.attr(c.dom, "type")
		inputType = strings.ToLower(strings.TrimSpace(inputType))
		if inputType == "" {
			inputType = "text"
		}
	}
	e := &Element{
		Role:       c.role,
		Name:       name,
		NameSource: source,
		State:      b.states(c),
		BBox:       roundBox(c.bbox),
	}
	if c.role == "heading" {
		e.Level = c.props.level
		if e.Level == 0 {
			e.Level = 2
		}
	}
	e.Value = b.value(c, n, tag, inputType)
	if e.Value == nil && c.role == "slider" && tag != "input" && p.sliderHandle(c.dom) {
		// A widget library's handle that says nothing in ARIA: the value
		// a person reads beside it, or where it stands.
		if v, src := p.sliderShown(c.dom); v != "" {
			e.Value, e.ValueSource = &v, src
		}
	}
	if source == "" && name != "" {
		e.Icon = p.itemIcon(c.role, name, c.dom)
	}
	e.Kind = kindOf(c, tag, inputType)
	e.Gestures = gestureWords(c.gestures)

	ce, _ := p.attr(c.dom, "contenteditable")
	_, hasCE := p.attr(c.dom, "contenteditable")
	frameID, docURL := fr.id, fr.url
	if c.dom.doc >= 0 {
		if d := &p.docs[c.dom.doc]; d.frameID != "" || d.url != "" {
			frameID, docURL = d.frameID, d.url
		}
	}
	id, _ := p.attr(c.dom, "id")
	c.loc = locator{id: strings.Clone(id), css: p.cssPath(c.dom)}
	if c.dom.doc > 0 || c.frame > 0 {
		c.loc.frame = docURL
	}
	c.el = e
	c.target = &Target{
		BackendNodeID: n.BackendNodeID,
		FrameID:       frameID,
		DocumentURL:   docURL,
		Role:          c.role,
		Name:          name,
		AXRole:        axRoleOf(c, n),
		AXName:        axName,
		Tag:           tag,
		InputType:     inputType,
		Editable:      (hasCE && !strings.EqualFold(ce, "false")) || c.props.editable == "richtext",
		BBox:          e.BBox,
	}
}

// axRoleOf is the role the check before an action will read for the
// candidate's node: the tree's, or for an item the tree leaves out
// (domItems), "none", which Chromium answers when asked for that node alone.
func axRoleOf(c *cand, n *axNode) string {
	if c.ax < 0 {
		return "none"
	}
	return strings.Clone(n.Role.Value.String())
}

// roundBox rounds a box to whole pixels, which keeps the JSON short.
func roundBox(b BBox) BBox {
	return BBox{X: math.Round(b.X), Y: math.Round(b.Y), Width: math.Round(b.Width), Height: math.Round(b.Height)}
}

// states lists an element's state values in a fixed order.
func (b *builder) states(c *cand) []string {
	s := make([]string, 0, 4)
	switch c.vis {
	case visFull, visPartly:
		s = append(s, "visible")
	case visOff:
		s = append(s, "offscreen")
	default:
		s = append(s, "hidden")
	}
	pr := &c.props
	if c.interactive {
		if pr.disabled {
			s = append(s, "disabled")
		} else {
			s = append(s, "enabled")
		}
	}
	if pr.readonly {
		s = append(s, "readonly")
	}
	if pr.hasChecked || checkableRoles[c.role] {
		switch pr.checked {
		case "true":
			s = append(s, "checked")
		case "mixed":
			s = append(s, "mixed")
		default:
			s = append(s, "unchecked")
		}
	}
	if pr.hasPressed && pr.pressed {
		s = append(s, "pressed")
	}
	if pr.hasExpanded {
		if pr.expanded {
			s = append(s, "expanded")
		} else {
			s = append(s, "collapsed")
		}
	}
	if pr.selected && selectableRoles[c.role] {
		s = append(s, "selected")
	}
	if pr.focused {
		s = append(s, "focused")
	}
	if pr.required {
		s = append(s, "required")
	}
	if pr.busy {
		s = append(s, "busy")
	}
	if c.scrollable {
		s = append(s, "scrollable")
	}
	return s
}

// value is an input's value exactly as the page holds it, or nil when it
// has none, it is empty, or it is a password's.
func (b *builder) value(c *cand, n *axNode, tag, inputType string) *string {
	p := b.p
	var v string
	switch tag {
	case "input":
		if valuelessInputs[inputType] {
			return nil
		}
		if i, ok := p.docs[c.dom.doc].inputValue[int(c.dom.node)]; ok {
			v = p.dom.str(i)
		} else {
			v = strings.Clone(n.Value.Value.String())
		}
	case "textarea":
		if i, ok := p.docs[c.dom.doc].textValue[int(c.dom.node)]; ok {
			v = p.dom.str(i)
		} else {
			v = strings.Clone(n.Value.Value.String())
		}
	default:
		if !valueRoles[c.role] {
			return nil
		}
		v = strings.Clone(n.Value.Value.String())
		if v == "" && c.role == "slider" {
			// A handle that is a slider by its aria-valuenow alone has no
			// value in the tree.
			if v, _ = p.attr(c.dom, "aria-valuetext"); v == "" {
				v, _ = p.attr(c.dom, "aria-valuenow")
			}
		}
		if masked(v) {
			return nil
		}
	}
	if v == "" {
		return nil
	}
	return &v
}

// masked reports whether s looks like a masked password (all bullets).
func masked(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '•' && r != '●' && r != '*' {
			return false
		}
	}
	return true
}

// kindOf says what an input wants when its role does not.
func kindOf(c *cand, tag, inputType string) string {
	switch {
	case tag == "textarea" || (c.props.multiline && (c.role == "textbox" || c.role == "searchbox")):
		return "multiline"
	case tag == "input" && inputKinds[inputType]:
		switch {
		case inputType == "search" && c.role == "searchbox",
			inputType == "number" && c.role == "spinbutton",
			inputType == "range" && c.role == "slider":
			return "" // the role says it
		}
		return inputType
	}
	return ""
}
