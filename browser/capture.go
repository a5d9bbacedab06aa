package browser

import "encoding/json"

// Capture is one raw look at a page, as Chromium reported it and with nothing
// interpreted: the accessibility tree of every captured frame, one layout
// capture of all documents, the viewport and the screenshot. Package snapshot
// turns it into what the agent sees. A Capture serialises to JSON so that
// recorded captures in fixtures/ can drive golden tests without a browser.
type Capture struct {
	// URL and Title are the main frame's.
	URL   string `json:"url"`
	Title string `json:"title"`
	// Viewport is the layout viewport in CSS pixels.
	Viewport Viewport `json:"viewport"`
	// Frames holds one accessibility tree per captured frame, main frame
	// first, then same-origin iframes in document order.
	Frames []FrameTree `json:"frames"`
	// DOM is the verbatim result of DOMSnapshot.captureSnapshot
	// ({"documents": [...], "strings": [...]}) with bounds, paint order and the
	// computed styles named in Styles, in that order.
	DOM json.RawMessage `json:"dom"`
	// Styles names the computed styles requested in DOM, in order.
	Styles []string `json:"styles"`
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

// FrameTree is the verbatim result of Accessibility.getFullAXTree for one
// frame ({"nodes": [...]}), parsed leniently by package snapshot because
// Chromium adds enum values over time.
type FrameTree struct {
	FrameID string          `json:"frame_id"`
	URL     string          `json:"url"`
	AX      json.RawMessage `json:"ax"`
}

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
