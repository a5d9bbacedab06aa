// Package capture says what one raw look at a page is: the accessibility
// tree of every captured frame, one layout capture of all documents, the
// viewport, an open JavaScript dialog and the screenshot, as Chromium
// reported them and with nothing interpreted.
//
// Package browser takes captures; package snapshot turns them into what the
// agent sees. Neither needs the other's code for that, and this package
// imports nothing from the Chrome DevTools Protocol, so snapshot builds and
// tests on recorded captures with no browser at all (docs/architecture.md).
package capture

import "encoding/json"

// Page is one raw look at a page. It serialises to JSON, so that recorded
// captures drive golden tests without a browser.
type Page struct {
	// URL and Title are the main frame's.
	URL   string `json:"url"`
	Title string `json:"title"`
	// Viewport is the layout viewport in CSS pixels.
	Viewport Viewport `json:"viewport"`
	// Frames holds one accessibility tree per captured frame, main frame
	// first, then the iframes that run in the page's process (same-site
	// ones) in document order, then the out-of-process (cross-site) ones,
	// parents before children, each with its NodeBase. Empty while a
	// dialog is open.
	Frames []Frame `json:"frames"`
	// DOM is the verbatim result of DOMSnapshot.captureSnapshot
	// ({"documents": [...], "strings": [...]}, one document per frame) with
	// bounds, paint orders, the computed styles named in Styles, in that
	// order, and, when asked for, the DOM rects (offsetRects, clientRects,
	// scrollRects), and for a judged capture each layout object's blended
	// background colour and text colour opacity.
	// Bounds are page coordinates of their document: subtract the scroll.
	// The document's own layout object has an empty style list. Null while
	// a dialog is open.
	DOM json.RawMessage `json:"dom"`
	// Styles names the computed styles requested in DOM, in order.
	Styles []string `json:"styles"`
	// RemoteDOM holds the layout capture of each out-of-process frame, in
	// the order of their Frames, as DOM holds the page's: those documents
	// live in other renderer processes, so DOM does not reach them.
	RemoteDOM []RemoteDOM `json:"remote_dom,omitempty"`
	// Gestures are the page's listeners for a gesture other than a plain
	// click (DOMSnapshot's isClickable says that one), as the browser
	// reports them (DOMDebugger.getEventListeners on each process's
	// document, every world's listeners), on nodes of DOM and RemoteDOM.
	// Empty in a judged capture.
	Gestures []Gesture `json:"gestures,omitempty"`
	// Dialog is the JavaScript dialog open on the page, if any.
	Dialog *Dialog `json:"dialog,omitempty"`
	// Screenshot is the viewport image; nil when it could not be taken, and
	// then ScreenshotError says why. Not part of recorded captures.
	Screenshot      *Screenshot `json:"-"`
	ScreenshotError string      `json:"screenshot_error,omitempty"`
}

// Viewport is the visible part of the page, in CSS pixels.
type Viewport struct {
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	ScrollX float64 `json:"scroll_x"`
	ScrollY float64 `json:"scroll_y"`
}

// Frame is the verbatim result of Accessibility.getFullAXTree for one frame
// ({"nodes": [...]}), parsed leniently by package snapshot because Chromium
// adds enum values over time.
type Frame struct {
	FrameID string          `json:"frame_id"`
	URL     string          `json:"url"`
	AX      json.RawMessage `json:"ax"`
	// NodeBase, for an out-of-process frame, is added to every backend
	// node id of its tree: backend node ids are numbered per renderer
	// process, and the base keeps them apart from the page's and from
	// each other's (see package browser's NodeBase). Zero for frames of
	// the page's process.
	NodeBase int64 `json:"node_base,omitempty"`
}

// RemoteDOM is the layout capture of one out-of-process frame.
type RemoteDOM struct {
	// FrameID is the frame's id, as in its Frame.
	FrameID string `json:"frame_id"`
	// Owner is the backend node id of the iframe element that shows the
	// frame, in its parent's document, with the parent's NodeBase added.
	Owner int64 `json:"owner"`
	// NodeBase is added to every backend node id of DOM, as to the
	// frame's accessibility tree (Frame.NodeBase).
	NodeBase int64 `json:"node_base"`
	// DOM is the verbatim result of DOMSnapshot.captureSnapshot in the
	// frame's process, with the same options as Page.DOM; its first
	// document is the frame's.
	DOM json.RawMessage `json:"dom"`
}

// Gesture is one node's listener for a gesture.
type Gesture struct {
	// Node is the backend node id of the node that listens, with its
	// frame's NodeBase added.
	Node int64 `json:"node"`
	// Type is the event it listens for: GestureDoubleClick or
	// GestureContextMenu.
	Type string `json:"type"`
}

// The events of the gestures a capture lists.
const (
	GestureDoubleClick = "dblclick"
	GestureContextMenu = "contextmenu"
)

// Dialog is an open JavaScript dialog.
type Dialog struct {
	// Type is alert, confirm, prompt or beforeunload.
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"default_prompt,omitempty"`
}

// Screenshot is an encoded image of the viewport, already scaled to the
// screenshot budget.
type Screenshot struct {
	// MIMEType is image/png or image/jpeg.
	MIMEType string
	Width    int
	Height   int
	Data     []byte
}

// Styles returns the computed styles that every capture requests in its DOM
// snapshot, in order (Page.Styles): the last three tell what an icon drawn
// by CSS (an image as content or background) or an SVG shape's fill shows.
func Styles() []string {
	return []string{"display", "visibility", "cursor", "overflow-x", "overflow-y", "opacity", "pointer-events", "background-image", "content", "fill"}
}

// JudgedStyles returns the computed styles of a capture a verdict is judged
// on: those of Styles, in the same order, then what tells whether a person
// can see a box or read its text (its colour and fill colour, font size,
// clipping, positioning, filter, and the background that may cover
// another box's).
func JudgedStyles() []string {
	return append(Styles(), "color", "font-size", "clip-path", "clip", "position", "-webkit-text-fill-color", "filter", "background-color")
}
