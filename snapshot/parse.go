package snapshot

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// This file holds lenient mirrors of the two CDP results a capture carries:
// Accessibility.getFullAXTree and DOMSnapshot.captureSnapshot. Roles,
// property names and value types are plain strings, and a value of a shape we
// do not know is skipped rather than failing the decode, because Chromium adds
// enum values over time and cdproto's strict enums would reject them.

// axTree is one frame's Accessibility.getFullAXTree result.
type axTree struct {
	Nodes []axNode `json:"nodes"`
}

// axNode is one accessibility node. Only the fields the builder reads are
// decoded.
type axNode struct {
	NodeID         string       `json:"nodeId"`
	Ignored        bool         `json:"ignored"`
	IgnoredReasons []axProperty `json:"ignoredReasons"`
	Role           axValue      `json:"role"`
	Name           axValue      `json:"name"`
	Description    axValue      `json:"description"`
	Value          axValue      `json:"value"`
	Properties     []axProperty `json:"properties"`
	ParentID       string       `json:"parentId"`
	ChildIDs       []string     `json:"childIds"`
	BackendNodeID  int64        `json:"backendDOMNodeId"`
	FrameID        string       `json:"frameId"`
}

// axProperty is a named accessibility property such as focusable or checked.
type axProperty struct {
	Name  string  `json:"name"`
	Value axValue `json:"value"`
}

// axValue is an AXValue: a type name and a scalar value.
type axValue struct {
	Type  string `json:"type"`
	Value scalar `json:"value"`
}

// scalar is a JSON string, number or boolean. Any other JSON value (null, an
// object, an array) decodes to the zero scalar without error.
type scalar struct {
	kind byte // 0 none, 's' string, 'n' number, 'b' boolean
	s    string
	n    float64
	b    bool
}

// UnmarshalJSON decodes a string, number or boolean and ignores anything else.
func (v *scalar) UnmarshalJSON(data []byte) error {
	*v = scalar{}
	if len(data) == 0 {
		return nil
	}
	switch c := data[0]; {
	case c == '"':
		if len(data) >= 2 && bytes.IndexByte(data, '\\') < 0 {
			v.kind, v.s = 's', string(data[1:len(data)-1])
			return nil
		}
		if json.Unmarshal(data, &v.s) == nil {
			v.kind = 's'
		}
	case c == 't' || c == 'f':
		v.kind, v.b = 'b', c == 't'
	case c == '-' || (c >= '0' && c <= '9'):
		if n, err := strconv.ParseFloat(string(data), 64); err == nil {
			v.kind, v.n = 'n', n
		}
	}
	return nil
}

// String returns the value as text: a string as is, a number in its shortest
// form, a boolean as true or false, and nothing as "".
func (v scalar) String() string {
	switch v.kind {
	case 's':
		return v.s
	case 'n':
		return strconv.FormatFloat(v.n, 'f', -1, 64)
	case 'b':
		return strconv.FormatBool(v.b)
	}
	return ""
}

// truthy reports whether the value means true: the boolean true, the string
// "true" (tristate properties such as checked are strings), or a non-zero
// number (Chromium sends some booleans, such as busy, as 1).
func (v scalar) truthy() bool {
	return (v.kind == 'b' && v.b) || (v.kind == 's' && v.s == "true") || (v.kind == 'n' && v.n != 0)
}

// domCapture is the DOMSnapshot.captureSnapshot result.
type domCapture struct {
	Documents []domDocument `json:"documents"`
	Strings   []string      `json:"strings"`
}

// domDocument is one document of a layout capture. String fields are indexes
// into domCapture.Strings, -1 meaning none.
type domDocument struct {
	DocumentURL   int          `json:"documentURL"`
	FrameID       int          `json:"frameId"`
	Nodes         domNodes     `json:"nodes"`
	Layout        domLayout    `json:"layout"`
	TextBoxes     domTextBoxes `json:"textBoxes"`
	ScrollOffsetX float64      `json:"scrollOffsetX"`
	ScrollOffsetY float64      `json:"scrollOffsetY"`
	// ContentWidth and ContentHeight are the size of the document's
	// scrollable area: what a person can scroll to.
	ContentWidth  float64 `json:"contentWidth"`
	ContentHeight float64 `json:"contentHeight"`
}

// domNodes is the node table of a document, one entry per node in pre-order.
type domNodes struct {
	ParentIndex          []int       `json:"parentIndex"`
	NodeType             []int       `json:"nodeType"`
	NodeName             []int       `json:"nodeName"`
	NodeValue            []int       `json:"nodeValue"`
	BackendNodeID        []int64     `json:"backendNodeId"`
	Attributes           [][]int     `json:"attributes"`
	TextValue            rareStrings `json:"textValue"`
	InputValue           rareStrings `json:"inputValue"`
	ContentDocumentIndex rareStrings `json:"contentDocumentIndex"`
	IsClickable          rareBools   `json:"isClickable"`
}

// rareStrings is sparse per-node data: Value[i] belongs to node Index[i]. It
// also carries integer data, which has the same shape.
type rareStrings struct {
	Index []int `json:"index"`
	Value []int `json:"value"`
}

// rareBools lists the nodes for which a boolean is true.
type rareBools struct {
	Index []int `json:"index"`
}

// domLayout is the layout table: one entry per layout object, in no
// particular relation to node order.
type domLayout struct {
	NodeIndex   []int       `json:"nodeIndex"`
	Styles      [][]int     `json:"styles"`
	Bounds      [][]float64 `json:"bounds"`
	Text        []int       `json:"text"`
	ScrollRects [][]float64 `json:"scrollRects"`
	ClientRects [][]float64 `json:"clientRects"`
	// BlendedBackgroundColors (string indexes, -1 for none) and
	// TextColorOpacities are in a judged capture only: the background a
	// text-holding element's text is drawn on, all overlapping backgrounds
	// blended, and the opacity its text ends up with.
	BlendedBackgroundColors []int     `json:"blendedBackgroundColors"`
	TextColorOpacities      []float64 `json:"textColorOpacities"`
	// PaintOrders is each layout object's place in painting, later on
	// top; objects painted together share one.
	PaintOrders []int `json:"paintOrders"`
}

// domTextBoxes holds the post-layout line boxes of text layout objects.
type domTextBoxes struct {
	LayoutIndex []int       `json:"layoutIndex"`
	Bounds      [][]float64 `json:"bounds"`
	Start       []int       `json:"start"`
	Length      []int       `json:"length"`
}

// str returns the capture string at index i, or "" for -1 or out of range.
func (d *domCapture) str(i int) string {
	if i < 0 || i >= len(d.Strings) {
		return ""
	}
	return d.Strings[i]
}

// rect reads a DOMSnapshot rectangle [x, y, width, height]; a short or
// missing one reads as zero.
func rect(r []float64) BBox {
	if len(r) < 4 {
		return BBox{}
	}
	return BBox{X: r[0], Y: r[1], Width: r[2], Height: r[3]}
}
