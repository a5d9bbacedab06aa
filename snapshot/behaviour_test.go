package snapshot

import (
	"strings"
	"testing"
)

// TestWidgetExposure: on the recorded widget pages, modelled on what widget
// libraries render, each control a person uses is an element under an
// honest name (a fallback marked as one), and the text of a listbox's or
// menu's items is in the page text.
func TestWidgetExposure(t *testing.T) {
	type want struct{ role, name string }
	tests := []struct {
		capture string
		els     []want
		text    []string
	}{
		{"w-timeline", []want{{"button", "reply icon"}, {"button", "retweet icon"}, {"button", "like icon"}, {"button", "more icon"}}, nil},
		{"w-inbox", []want{{"button", "star icon"}, {"button", "archive icon"}, {"button", "reply icon"}, {"button", "send icon"}, {"button", "Attach a file"}}, nil},
		{"w-dropdowns", []want{{"button", "Sort by"}, {"listbox", ""}, {"option", "Apple"}, {"option", "Banana"}, {"option", "Cherry"}, {"menuitem", "Rename"}, {"menuitem", "Duplicate"}, {"combobox", ""}},
			[]string{"[Apple]\n[Banana]\n[Cherry]", "[Rename]\n[Duplicate]"}},
		{"w-chart", []want{{"button", "Rent 40%"}, {"button", "add icon"}, {"button", "March: 21"}, {"button", "O"}, {"button", ""}}, nil},
		{"w-menubar", []want{{"menuitem", "File"}, {"menuitem", "Edit"}}, nil},
		{"w-menubar-open", []want{{"button", "New"}, {"button", "Save"}, {"button", "Print"}, {"menuitem", "Edit"}}, nil},
		{"w-sortable", []want{{"listitem", "Wash the car"}, {"listitem", "Buy groceries"}, {"listitem", "Call the bank"}, {"slider", ""}}, nil},
	}
	// The names the pages give themselves: a button's text, an SVG title.
	accessible := map[string]bool{"Sort by": true, "Rent 40%": true, "March: 21": true}
	captures := loadCaptures(t)
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			s, table, _ := build(t, captures[tt.capture], Options{ViewportOnly: true}, 1)
			for _, w := range tt.els {
				var e Element
				ok := false
				for _, x := range s.Elements {
					if x.Role == w.role && x.Name == w.name {
						e, ok = x, true
						break
					}
				}
				if !ok {
					t.Errorf("no %s %q in\n%s", w.role, w.name, s.Render())
					continue
				}
				if e.Name != "" && !accessible[e.Name] && e.NameSource != NameFallback {
					t.Errorf("%s %q is not marked as a fallback name", e.Role, e.Name)
				}
				if tg := table[e.Ref]; tg.BackendNodeID == 0 || e.BBox.Width <= 0 {
					t.Errorf("%s %q has no node or no box: %+v", e.Role, e.Name, tg)
				}
			}
			for _, x := range tt.text {
				if !strings.Contains(withoutRefs(s.Text), x) {
					t.Errorf("page text lacks %q:\n%s", x, s.Text)
				}
			}
		})
	}
}
