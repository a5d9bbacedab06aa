package snapshot

import (
	"strings"
	"testing"
)

func TestImageWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{`url("http://a.test/img/send-icon.svg")`, "send icon"},
		{`url("/files/send.svg")`, "send"},
		{`url(x.png)`, "x"},
		{`url("http://a.test/o.png?v=3#frag")`, "o"},
		{`url("http://a.test/icons/trashCan_24px@2x.png")`, "trash can"},
		{`url("http://a.test/i/16x16/reply%20all.gif")`, "reply all"},
		{`linear-gradient(red, blue), url("http://a.test/star.svg")`, "star"},
		{`url("data:image/svg+xml;utf8,<svg></svg>")`, ""},
		{`url("http://a.test/12345.png")`, ""},
		{`url("http://a.test/images/ui-icons_444444_256x240.png")`, ""},
		{`url("/img/sprites.png")`, ""},
		{`none`, ""},
		{`normal`, ""},
		{`url("http://a.test/` + "aaaaaaaaaa-bbbbbbbbbb-cccccccccc-dddddddddd-eeeeeeeeee" + `.png")`, ""},
	}
	for _, tt := range tests {
		if got := imageWords(tt.in); got != tt.want {
			t.Errorf("imageWords(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestColourWord(t *testing.T) {
	tests := []struct{ in, want string }{
		{"rgb(255, 0, 0)", "red"},
		{"rgb(224, 32, 27)", "red"},
		{"rgb(0, 128, 0)", "green"},
		{"rgb(0, 255, 0)", "green"},
		{"rgb(30, 80, 220)", "blue"},
		{"rgb(0, 255, 255)", "cyan"},
		{"rgb(255, 0, 255)", "magenta"},
		{"rgb(240, 224, 32)", "yellow"},
		{"rgb(0, 0, 0)", "black"},
		{"rgb(250, 250, 250)", "white"},
		{"rgba(255, 0, 0, 0)", ""},
		{"none", ""},
		{`url("#grad")`, ""},
	}
	for _, tt := range tests {
		if got := colourWord(tt.in); got != tt.want {
			t.Errorf("colourWord(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestValuesRead: what a person reads off controls and marks that no ARIA
// says, on hand-written captures: CSS images as names and icons, SVG shapes
// by colour and kind (bounded, with a note), a board's cells, a slider's
// value beside it or its position.
func TestValuesRead(t *testing.T) {
	t.Parallel()
	img := func(prop, url string) map[string]string { return map[string]string{prop: `url("` + url + `")`} }
	icon := func(name, url string, box ...float64) tnode {
		return tnode{tag: "SPAN", role: "generic", box: box, clickable: true, style: map[string]string{"cursor": "pointer"}, kids: []tnode{
			{tag: "I", box: box, style: img("background-image", url)},
		}}
	}
	shape := func(tag, fill string, attrs []string, box ...float64) tnode {
		return tnode{tag: tag, box: box, attrs: attrs, style: map[string]string{"fill": fill}}
	}
	dots := make([]tnode, 20)
	for i := range dots {
		dots[i] = shape("circle", "rgb(11, 87, 208)", nil, float64(10+i*6), 300, 4, 4)
	}
	cells := make([]tnode, 9)
	for i := range cells {
		cells[i] = tnode{tag: "DIV", box: []float64{float64(400 + i%3*50), float64(400 + i/3*50), 48, 48}}
	}
	cells[4].style = img("content", "http://a.test/o.png")
	tests := []struct {
		name string
		body []tnode
		want []string // lines of the rendered snapshot
	}{
		{"icon buttons named by their images", []tnode{
			icon("send", "http://a.test/img/send.svg", 10, 10, 20, 20),
			icon("trash", "http://a.test/img/trash-can_24px.svg", 40, 10, 20, 20),
		}, []string{`button "send" (fallback name)`, `button "trash can" (fallback name)`}},
		{"a mark drawn by ::before with alternative text", []tnode{
			{tag: "DIV", role: "generic", box: []float64{10, 10, 40, 40}, clickable: true, kids: []tnode{
				{tag: "::before", box: []float64{12, 12, 36, 36}, style: map[string]string{"content": `url("http://a.test/x.png") / "cross"`}},
			}},
		}, []string{`button "cross" (fallback name)`}},
		{"a menu item's icon", []tnode{
			{tag: "UL", role: "menu", box: []float64{10, 10, 200, 60}, attrs: []string{"role", "menu"}, kids: []tnode{
				{tag: "LI", role: "menuitem", name: "Open", box: []float64{10, 10, 200, 30}, attrs: []string{"role", "menuitem"}, kids: []tnode{text("Open", 30, 10, 40, 20)}},
				{tag: "LI", role: "menuitem", name: "Keep", box: []float64{10, 40, 200, 30}, attrs: []string{"role", "menuitem"}, kids: []tnode{
					{tag: "::before", box: []float64{12, 42, 16, 16}, style: img("background-image", "http://a.test/star-icon.svg")},
					text("Keep", 30, 40, 40, 20),
				}},
			}},
		}, []string{`menuitem "Open"` + "\n", `menuitem "Keep" icon="star icon"`}},
		{"shapes by colour and kind, bounded", []tnode{
			{tag: "svg", box: []float64{0, 100, 400, 300}, kids: append([]tnode{
				shape("circle", "rgb(255, 0, 0)", nil, 10, 110, 40, 40),
				shape("polygon", "rgb(0, 128, 0)", []string{"points", "0,40 20,0 40,40"}, 60, 110, 40, 40),
				shape("rect", "rgb(30, 80, 220)", nil, 110, 110, 60, 30),
			}, dots...)},
		}, []string{`img "red circle" (shape) box 10,110,40,40`, `img "green triangle" (shape) box 60,110,40,40`, `img "blue rectangle" (shape) box 110,110,60,30`,
			`img "blue circle" (shape) box 10,300,4,4`, "note: …7 more nameless SVG shapes"}},
		{"a board's cells", []tnode{
			{tag: "DIV", role: "generic", box: []float64{400, 400, 150, 150}, clickable: true, kids: cells},
		}, []string{"button box 400,400,48,48", `button "o" (fallback name)`}},
		{"a slider's value shown beside it", []tnode{
			{tag: "P", role: "paragraph", box: []float64{10, 10, 300, 20}, kids: []tnode{
				text("Temperature: ", 10, 10, 100, 20),
				{tag: "SPAN", role: "generic", box: []float64{110, 10, 30, 20}, kids: []tnode{text("-40", 110, 10, 30, 20)}},
			}},
			{tag: "DIV", role: "generic", box: []float64{10, 40, 400, 12}, attrs: []string{"class", "ui-slider"}, kids: []tnode{
				{tag: "SPAN", role: "generic", box: []float64{110, 36, 20, 20}, props: focusable(), attrs: []string{"class", "ui-slider-handle", "tabindex", "0"}},
			}},
			{tag: "DIV", role: "generic", box: []float64{10, 200, 400, 12}, attrs: []string{"class", "ui-slider"}, kids: []tnode{
				{tag: "SPAN", role: "generic", box: []float64{300, 196, 20, 20}, props: focusable(), attrs: []string{"class", "ui-slider-handle", "tabindex", "0"}},
			}},
		}, []string{`slider value="-40" (shown beside) box 110,36,20,20`, `slider value="75%" (position) box 300,196,20,20`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := build(t, tcapture(tt.body...), Options{}, 0)
			text := s.Render()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("the snapshot lacks %q:\n%s", w, text)
				}
			}
		})
	}
}
