package snapshot

import (
	"strings"
	"testing"
)

// Each element carries its DOM id, a short CSS path and, in a frame, the
// frame's URL; Render shows none of them.
func TestLocators(t *testing.T) {
	t.Parallel()
	b := []float64{0, 0, 80, 20}
	withAttrs := func(n tnode, attrs ...string) tnode { n.attrs = attrs; return n }
	div := func(attrs []string, kids ...tnode) tnode { return tnode{tag: "DIV", box: b, attrs: attrs, kids: kids} }
	tests := []struct {
		name string
		page []tnode
		// want is the last element's id, CSS path and frame.
		want [3]string
	}{
		{"id stops the path", []tnode{div([]string{"id", "outer"}, div(nil, withAttrs(button("Go", b...), "id", "go")))},
			[3]string{"go", "button#go", ""}},
		{"ancestor id", []tnode{div([]string{"id", "outer"}, div(nil, button("Go", b...)))},
			[3]string{"", "div#outer > div > button", ""}},
		{"three levels at most, first class", []tnode{div(nil, div([]string{"class", "  card wide"}, withAttrs(button("Go", b...), "class", "primary")))},
			[3]string{"", "div > div.card > button.primary", ""}},
		{"an id a selector cannot hold bare", []tnode{withAttrs(button("Go", b...), "id", `1 "x"`)},
			[3]string{`1 "x"`, `button[id="1 \"x\""]`, ""}},
		{"siblings of the same tag", []tnode{div(nil, button("A", b...), text("or", b...), button("B", b...))},
			[3]string{"", "body > div > button:nth-of-type(2)", ""}},
		{"in a frame", []tnode{{tag: "IFRAME", role: "Iframe", box: []float64{0, 60, 300, 200},
			frame: &tframe{url: "https://example.test/frame?x=1", vw: 300, vh: 200, kids: []tnode{button("In frame", 0, 30, 80, 20)}}}},
			[3]string{"", "html > body > button", "https://example.test/frame?x=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := build(t, tcapture(tt.page...), Options{}, 0)
			if len(s.Elements) == 0 {
				t.Fatal("no elements")
			}
			e := s.Elements[len(s.Elements)-1]
			if got := [3]string{e.DOMID, e.CSS, e.Frame}; got != tt.want {
				t.Errorf("id, css, frame = %q, want %q", got, tt.want)
			}
			for _, e := range s.Elements[:len(s.Elements)-1] {
				if e.Frame != "" {
					t.Errorf("%s in the main frame has frame %q", e.Ref, e.Frame)
				}
			}
			r := s.Render()
			for _, v := range tt.want {
				if v != "" && strings.Contains(r, v) {
					t.Errorf("Render shows %q:\n%s", v, r)
				}
			}
		})
	}
}
