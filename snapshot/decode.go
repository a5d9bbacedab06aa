package snapshot

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The accessibility tree of a large page is megabytes of JSON, and decoding
// it with encoding/json was most of Build's time (reflection, a validating
// pre-pass, a string per field). decodeAXTree reads the same JSON in one pass
// into the same lenient structs, and takes every string that needs no
// unescaping as a substring of one copy of the input instead of allocating
// it. Strings that leave Build (names, values) are cloned first, so the copy
// is not kept alive by a snapshot.

// errSyntax reports JSON that decodeAXTree cannot read; the caller then
// falls back to encoding/json, which says what is wrong.
var errSyntax = errors.New("invalid JSON")

// decodeAXTree decodes an Accessibility.getFullAXTree result.
func decodeAXTree(data []byte) ([]axNode, error) {
	// encoding/json reads bytes that are not UTF-8 as U+FFFD, which the
	// substrings below would not; Chromium sends UTF-8, and anything else
	// goes to encoding/json.
	if !utf8.Valid(data) {
		return nil, errSyntax
	}
	d := decoder{s: string(data)}
	var nodes []axNode
	d.object(func(key string) {
		if key != "nodes" {
			d.other(key, "nodes")
			return
		}
		if d.null() {
			return
		}
		nodes = make([]axNode, 0, len(data)/400)
		d.array(func() {
			nodes = append(nodes, axNode{})
			d.node(&nodes[len(nodes)-1])
		})
	})
	d.ws()
	if d.err != nil || d.i != len(d.s) {
		return nil, errSyntax
	}
	return nodes, nil
}

// decoder is a minimal JSON reader over one string. After the first error
// every method returns at once.
type decoder struct {
	s   string
	i   int
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errSyntax
	}
	d.i = len(d.s)
}

func (d *decoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (d *decoder) peek() byte {
	d.ws()
	if d.i >= len(d.s) {
		return 0
	}
	return d.s[d.i]
}

// null consumes a null and reports whether there was one.
func (d *decoder) null() bool {
	if d.peek() == 'n' && len(d.s)-d.i >= 4 && d.s[d.i:d.i+4] == "null" {
		d.i += 4
		return true
	}
	return false
}

// object calls field for each key of an object; field must consume the
// value.
func (d *decoder) object(field func(key string)) {
	if d.peek() != '{' {
		d.fail()
		return
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return
	}
	for d.err == nil {
		if d.peek() != '"' {
			d.fail()
			return
		}
		key := d.str()
		if d.peek() != ':' {
			d.fail()
			return
		}
		d.i++
		field(key)
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return
		default:
			d.fail()
			return
		}
	}
}

// array calls elem for each element of an array; elem must consume it.
func (d *decoder) array(elem func()) {
	if d.peek() != '[' {
		d.fail()
		return
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return
	}
	for d.err == nil {
		elem()
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return
		default:
			d.fail()
			return
		}
	}
}

// str reads a string. Without escapes it is a substring of the input.
func (d *decoder) str() string {
	if d.peek() != '"' {
		d.fail()
		return ""
	}
	start := d.i + 1
	escaped := false
	for j := start; j < len(d.s); j++ {
		switch c := d.s[j]; {
		case c == '\\':
			escaped = true
			j++
		case c == '"':
			d.i = j + 1
			if !escaped {
				return d.s[start:j]
			}
			var out string
			if json.Unmarshal([]byte(d.s[start-1:j+1]), &out) != nil {
				d.fail()
			}
			return out
		case c < 0x20:
			d.fail()
			return ""
		}
	}
	d.fail()
	return ""
}

// literal consumes a number, true, false or null and returns its text.
func (d *decoder) literal() string {
	d.ws()
	start := d.i
	for d.i < len(d.s) {
		switch c := d.s[d.i]; {
		case c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r':
			if d.i == start {
				d.fail()
			}
			return d.s[start:d.i]
		case c == '"' || c == '{' || c == '[' || c == ':':
			d.fail()
			return ""
		}
		d.i++
	}
	if d.i == start {
		d.fail()
	}
	return d.s[start:d.i]
}

// skip consumes any value.
func (d *decoder) skip() {
	switch d.peek() {
	case '{':
		d.object(func(string) { d.skip() })
	case '[':
		d.array(d.skip)
	case '"':
		d.str()
	default:
		d.literal()
	}
}

// boolean reads true or false; anything else reads as false.
func (d *decoder) boolean() bool {
	switch d.peek() {
	case 't', 'f', 'n':
		return d.literal() == "true"
	}
	d.skip()
	return false
}

// integer reads a number as an int64; anything else reads as 0.
func (d *decoder) integer() int64 {
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		d.skip()
		return 0
	}
	l := d.literal()
	if l == "" {
		return 0
	}
	if len(l) < 18 {
		neg := l[0] == '-'
		digits := l
		if neg {
			digits = l[1:]
		}
		var n int64
		ok := len(digits) > 0
		for i := 0; i < len(digits) && ok; i++ {
			c := digits[i]
			ok = c >= '0' && c <= '9'
			n = n*10 + int64(c-'0')
		}
		if ok {
			if neg {
				n = -n
			}
			return n
		}
	}
	n, err := strconv.ParseInt(l, 10, 64)
	if err != nil {
		f, _ := strconv.ParseFloat(l, 64)
		n = int64(f)
	}
	return n
}

// text reads a string; anything else reads as "".
func (d *decoder) text() string {
	if d.peek() == '"' {
		return d.str()
	}
	d.skip()
	return ""
}

// scalar reads a string, number or boolean; anything else reads as none.
func (d *decoder) scalar(v *scalar) {
	*v = scalar{}
	switch c := d.peek(); {
	case c == '"':
		v.kind, v.s = 's', d.str()
	case c == 't' || c == 'f':
		v.kind, v.b = 'b', d.literal() == "true"
	case c == '-' || (c >= '0' && c <= '9'):
		if n, err := strconv.ParseFloat(d.literal(), 64); err == nil {
			v.kind, v.n = 'n', n
		}
	default:
		d.skip()
	}
}

func (d *decoder) axValue(v *axValue) {
	if d.null() {
		return
	}
	d.object(func(key string) {
		switch key {
		case "type":
			v.Type = d.text()
		case "value":
			d.scalar(&v.Value)
		default:
			d.other(key, "type", "value")
		}
	})
}

func (d *decoder) properties() []axProperty {
	if d.null() {
		return nil
	}
	ps := []axProperty{}
	d.array(func() {
		var p axProperty
		d.object(func(key string) {
			switch key {
			case "name":
				p.Name = d.text()
			case "value":
				d.axValue(&p.Value)
			default:
				d.other(key, "name", "value")
			}
		})
		ps = append(ps, p)
	})
	return ps
}

func (d *decoder) node(n *axNode) {
	d.object(func(key string) {
		switch key {
		case "nodeId":
			n.NodeID = d.id()
		case "ignored":
			n.Ignored = d.boolean()
		case "ignoredReasons":
			n.IgnoredReasons = d.properties()
		case "role":
			d.axValue(&n.Role)
		case "name":
			d.axValue(&n.Name)
		case "description":
			d.axValue(&n.Description)
		case "value":
			d.axValue(&n.Value)
		case "properties":
			n.Properties = d.properties()
		case "parentId":
			n.ParentID = d.id()
		case "childIds":
			if d.null() {
				return
			}
			n.ChildIDs = []string{}
			d.array(func() { n.ChildIDs = append(n.ChildIDs, d.id()) })
		case "backendDOMNodeId":
			n.BackendNodeID = d.integer()
		case "frameId":
			n.FrameID = d.text()
		default:
			d.other(key, axNodeKeys...)
		}
	})
}

// axNodeKeys are the keys node reads.
var axNodeKeys = []string{"nodeId", "ignored", "ignoredReasons", "role", "name", "description", "value",
	"properties", "parentId", "childIds", "backendDOMNodeId", "frameId"}

// other skips the value of a key the caller does not read. A key that
// differs from one it reads only in case is one encoding/json would read
// (it matches keys case-insensitively): the decoder gives up, and the caller
// falls back to encoding/json, so that both read the same. Chromium never
// sends such keys.
func (d *decoder) other(key string, known ...string) {
	for _, k := range known {
		if strings.EqualFold(key, k) {
			d.fail()
			return
		}
	}
	d.skip()
}

// id reads a node id: a string, or leniently a number.
func (d *decoder) id() string {
	if d.peek() == '"' {
		return d.str()
	}
	c := d.peek()
	if c == '-' || (c >= '0' && c <= '9') {
		return d.literal()
	}
	d.skip()
	return ""
}

// decodeDOM decodes a DOMSnapshot.captureSnapshot result: tables of small
// integers, which a reflective decoder reads slowly.
func decodeDOM(data []byte) (domCapture, error) {
	if !utf8.Valid(data) { // as in decodeAXTree
		return domCapture{}, errSyntax
	}
	d := decoder{s: string(data)}
	var c domCapture
	d.object(func(key string) {
		switch key {
		case "documents":
			if d.null() {
				return
			}
			c.Documents = []domDocument{}
			d.array(func() {
				c.Documents = append(c.Documents, domDocument{})
				d.document(&c.Documents[len(c.Documents)-1])
			})
		case "strings":
			if d.null() {
				return
			}
			c.Strings = make([]string, 0, 256)
			d.array(func() { c.Strings = append(c.Strings, d.text()) })
		default:
			d.skip()
		}
	})
	d.ws()
	if d.err != nil || d.i != len(d.s) {
		return domCapture{}, errSyntax
	}
	// Strings end up in names and page text; copy them out of the input.
	for i, s := range c.Strings {
		c.Strings[i] = strings.Clone(s)
	}
	return c, nil
}

func (d *decoder) document(doc *domDocument) {
	d.object(func(key string) {
		switch key {
		case "documentURL":
			doc.DocumentURL = int(d.integer())
		case "frameId":
			doc.FrameID = int(d.integer())
		case "scrollOffsetX":
			doc.ScrollOffsetX = d.float()
		case "scrollOffsetY":
			doc.ScrollOffsetY = d.float()
		case "contentWidth":
			doc.ContentWidth = d.float()
		case "contentHeight":
			doc.ContentHeight = d.float()
		case "nodes":
			n := &doc.Nodes
			d.fields(func(key string) {
				switch key {
				case "parentIndex":
					n.ParentIndex = d.ints(n.ParentIndex)
				case "nodeType":
					n.NodeType = d.ints(n.NodeType)
				case "nodeName":
					n.NodeName = d.ints(n.NodeName)
				case "nodeValue":
					n.NodeValue = d.ints(n.NodeValue)
				case "backendNodeId":
					n.BackendNodeID = d.int64s()
				case "attributes":
					n.Attributes = d.intTable()
				case "textValue":
					n.TextValue = d.rare()
				case "inputValue":
					n.InputValue = d.rare()
				case "contentDocumentIndex":
					n.ContentDocumentIndex = d.rare()
				case "isClickable":
					n.IsClickable.Index = d.rare().Index
				default:
					d.skip()
				}
			})
		case "layout":
			l := &doc.Layout
			d.fields(func(key string) {
				switch key {
				case "nodeIndex":
					l.NodeIndex = d.ints(nil)
				case "styles":
					l.Styles = d.intTable()
				case "bounds":
					l.Bounds = d.floatTable()
				case "text":
					l.Text = d.ints(nil)
				case "scrollRects":
					l.ScrollRects = d.floatTable()
				case "clientRects":
					l.ClientRects = d.floatTable()
				case "blendedBackgroundColors":
					l.BlendedBackgroundColors = d.ints(nil)
				case "textColorOpacities":
					l.TextColorOpacities = d.floats()
				case "paintOrders":
					l.PaintOrders = d.ints(nil)
				default:
					d.skip()
				}
			})
		case "textBoxes":
			t := &doc.TextBoxes
			d.fields(func(key string) {
				switch key {
				case "layoutIndex":
					t.LayoutIndex = d.ints(nil)
				case "bounds":
					t.Bounds = d.floatTable()
				case "start":
					t.Start = d.ints(nil)
				case "length":
					t.Length = d.ints(nil)
				default:
					d.skip()
				}
			})
		default:
			d.skip()
		}
	})
}

// fields reads an object, or a null as an empty one.
func (d *decoder) fields(field func(key string)) {
	if !d.null() {
		d.object(field)
	}
}

func (d *decoder) rare() rareStrings {
	var r rareStrings
	d.fields(func(key string) {
		switch key {
		case "index":
			r.Index = d.ints(nil)
		case "value":
			r.Value = d.ints(nil)
		default:
			d.skip()
		}
	})
	return r
}

// ints reads an array of integers, or null as none.
func (d *decoder) ints(buf []int) []int {
	if d.null() {
		return nil
	}
	out := buf[:0]
	if out == nil {
		out = []int{}
	}
	d.array(func() { out = append(out, int(d.integer())) })
	return out
}

func (d *decoder) int64s() []int64 {
	if d.null() {
		return nil
	}
	out := []int64{}
	d.array(func() { out = append(out, d.integer()) })
	return out
}

// floats reads an array of numbers, or null as none.
func (d *decoder) floats() []float64 {
	if d.null() {
		return nil
	}
	out := []float64{}
	d.array(func() { out = append(out, d.float()) })
	return out
}

func (d *decoder) intTable() [][]int {
	if d.null() {
		return nil
	}
	out := [][]int{}
	d.array(func() { out = append(out, d.ints(nil)) })
	return out
}

func (d *decoder) floatTable() [][]float64 {
	if d.null() {
		return nil
	}
	out := [][]float64{}
	d.array(func() {
		var row []float64
		if !d.null() {
			row = make([]float64, 0, 4)
			d.array(func() { row = append(row, d.float()) })
		}
		out = append(out, row)
	})
	return out
}

// float reads a number; anything else reads as 0.
func (d *decoder) float() float64 {
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		d.skip()
		return 0
	}
	f, _ := strconv.ParseFloat(d.literal(), 64)
	return f
}
