// Package snapshot turns a raw browser capture into what the agent sees: a
// pruned, ranked list of elements with session-unique refs, the visible page
// text, and the ref table that ties each ref to the node it names. It is pure
// code: no browser, no clock beyond the timestamp, testable on recorded
// captures.
package snapshot

import "time"

// Snapshot is the agent's view of a page (docs/architecture.md, "Snapshots
// and refs"). Its JSON form is described by fixtures/snapshot.schema.json.
type Snapshot struct {
	ID        string    `json:"snapshot_id"`
	Timestamp time.Time `json:"timestamp"`
	Elements  []Element `json:"elements"`
	// Focused is the ref of the focused element, or nil.
	Focused  *string  `json:"focused"`
	Page     Page     `json:"page"`
	Viewport Viewport `json:"viewport"`
	// Text is the visible page text in reading order, with each interactive
	// element shown as its ref, e.g. "Username: [@e3] [@e5 Log in]".
	Text string `json:"text,omitempty"`
	// Positions are the runs of the page text, each with its box, in the
	// same order, when Options.Positions asked for them: what an agent
	// needs to locate a chart's legend, a grid's labels or the letter left
	// of a square. Absent by default, and outside the token budget.
	Positions []TextRun `json:"positions,omitempty"`
	// Screenshot describes the image that travels beside the JSON; its bytes
	// never appear in the JSON.
	Screenshot *Screenshot `json:"screenshot,omitempty"`
	// Dialog is the JavaScript dialog open on the page, if any.
	Dialog *Dialog `json:"dialog,omitempty"`
	// Notes says what the agent should know that the elements do not show: a
	// screenshot that could not be taken, elements left out by the budget.
	Notes []string `json:"notes,omitempty"`
	// Seen is what a person would see of the page, for a verdict; nil
	// unless the capture was a judged one. Never in the JSON.
	Seen *Seen `json:"-"`
}

// Element is one thing on the page the agent can see or act on.
type Element struct {
	Ref  string `json:"ref"`
	Role string `json:"role"`
	// Name is the accessible name when there is one. A nameless element
	// takes a fallback only from what the page binds to the element itself
	// (see NameSource); else its name is "".
	Name string `json:"name"`
	// NameSource is NameFallback when Name is not the accessible name but
	// the element's placeholder, title, description, own text, icon, label,
	// table header or fieldset legend; empty for an accessible name.
	NameSource string   `json:"name_source,omitempty"`
	State      []string `json:"state"`
	BBox       BBox     `json:"bbox"`
	// Value is an input's value exactly as the page holds it; never a
	// password's.
	Value *string `json:"value,omitempty"`
	// ValueSource says where a slider's value without ARIA values was read
	// (ValueShown, ValuePosition); empty for a value the page holds.
	ValueSource string `json:"value_source,omitempty"`
	// Icon is what the icon of a named menu item, option, tab or list item
	// says (a CSS image's file name words, an icon class, an image's alt),
	// when its name does not: which menu item has a star.
	Icon string `json:"icon,omitempty"`
	// Level is a heading's level.
	Level int `json:"level,omitempty"`
	// Kind is what an input wants when its role hides it: date, time,
	// datetime-local, month, week, number, range, email, tel, url, search,
	// password, multiline, color, file.
	Kind string `json:"kind,omitempty"`
	// Gestures are what the element answers beside a plain click, by the
	// listeners the browser reports on it or on the list it is a row of:
	// GestureDoubleClick, GestureRightClick.
	Gestures []string `json:"gestures,omitempty"`
	Children []string `json:"children,omitempty"`
	// DOMID is the element's id attribute, CSS a short CSS path to it (at
	// most three levels, stopping at an ancestor with an id), and Frame the
	// URL of its document when that is not the main frame's. They let a
	// recorded script find the element again; Render leaves them out.
	DOMID string `json:"dom_id,omitempty"`
	CSS   string `json:"css,omitempty"`
	Frame string `json:"frame,omitempty"`
	// Seen, SeenText and Document are set on a snapshot of a judged
	// capture only, for a verdict, and are never in the JSON: whether a
	// person sees the element's box, the runs of its own text they can
	// read (its name counts as evidence only where it is drawn there),
	// and the URL of its document, whose origin shows it. SeenParts says,
	// for each run of SeenText, which text nodes draw it.
	Seen      bool         `json:"-"`
	SeenText  []string     `json:"-"`
	SeenParts [][]SeenPart `json:"-"`
	Document  string       `json:"-"`
}

// TextRun is one run of page text (one line box, or the part of it in
// view) and where it is.
type TextRun struct {
	Text string `json:"text"`
	BBox BBox   `json:"bbox"`
}

// BBox is an element's box in viewport CSS pixels.
type BBox struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Page names the page a snapshot was taken of.
type Page struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// Viewport is the visible part of the page in CSS pixels.
type Viewport struct {
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	ScrollX float64 `json:"scroll_x"`
	ScrollY float64 `json:"scroll_y"`
}

// Screenshot describes the screenshot that accompanies a snapshot. Data
// travels as an image block, never inside the JSON.
type Screenshot struct {
	MIMEType string `json:"mime_type"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	// Clip, when set, says the image is only the part of the viewport that
	// changed since the last screenshot sent (--screenshots auto), and
	// where it is, in viewport CSS pixels: the rest looks as it did.
	Clip *BBox  `json:"clip,omitempty"`
	Data []byte `json:"-"`
}

// Target is what a ref points at: the node and what the agent saw of it.
// Before acting, the server checks that the node still is what the agent saw.
type Target struct {
	Ref           string
	BackendNodeID int64
	FrameID       string
	// DocumentURL identifies the document the node belonged to.
	DocumentURL string
	Role        string
	Name        string
	// AXRole and AXName are the node's role and accessible name exactly as
	// the accessibility tree reported them (before fallback names or cuts),
	// which is what the check before an action compares against.
	AXRole string
	AXName string
	// Tag is the element's lower-case tag name, and InputType an input's type
	// attribute; they tell what fill and select may do with it.
	Tag       string
	InputType string
	// Editable is true for contenteditable elements.
	Editable bool
	// BBox is where the element was, in viewport CSS pixels.
	BBox BBox
	// Dialog is set on the synthetic controls of an open JavaScript dialog:
	// "accept", "dismiss" or "prompt" (the prompt's text box). Such targets
	// have no DOM node.
	Dialog string
}

// Table maps refs to targets; only the newest table of a session is live.
type Table map[string]Target

// Dialog is an open JavaScript dialog: alert, confirm, prompt or
// beforeunload, and its message.
type Dialog struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}
