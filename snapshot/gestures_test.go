package snapshot

import (
	"slices"
	"strings"
	"testing"
)

// TestGestureExposure: on the recorded pages whose elements answer a
// double click or a right click, each such element has a ref and says the
// gesture, whether it listens itself (Vue, Svelte), its list listens for
// it (jQuery, Backbone) or the app's root does (React 17+); and listeners
// on the window, the document, <html> or <body> make no element of the
// text they cover.
func TestGestureExposure(t *testing.T) {
	type want struct {
		role, name string
		gestures   []string
	}
	double, right := []string{GestureDoubleClick}, []string{GestureRightClick}
	todos := []want{{"generic", "Buy milk", double}, {"generic", "Walk the dog", double}, {"generic", "Call the bank", double}}
	tests := []struct {
		capture string
		els     []want
		// gestured is how many elements say a gesture: those of els.
		gestured int
		// plain is text that must stay page text, no element's name.
		plain []string
	}{
		{"w-todos-vue", todos, 3, []string{"2 items left", "No edit yet"}},
		{"w-todos-jquery", todos, 3, []string{"2 items left", "No edit yet"}},
		{"w-todos-react", []want{
			{"generic", "Buy milk", []string{GestureDoubleClick, GestureRightClick}},
			{"generic", "Walk the dog", []string{GestureDoubleClick, GestureRightClick}},
			{"generic", "Call the bank", []string{GestureDoubleClick, GestureRightClick}},
		}, 3, []string{"2 items left", "No edit yet"}},
		{"w-files", []want{
			{"listitem", "report.pdf 120 KB", right},
			{"listitem", "photo.jpg 2.4 MB", right},
			{"generic", "Quarterly plan", double},
			{"generic", "Spring newsletter", double},
			{"generic", "Board minutes", double},
		}, 5, []string{"notes.txt 3 KB", "Ada shared report.pdf", "Grace commented on photo.jpg", "Owner", "Ada", "12", "No action yet"}},
	}
	captures := loadCaptures(t)
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			s, table, _ := build(t, captures[tt.capture], Options{}, 1)
			text := s.Render()
			for _, w := range tt.els {
				e, ok := s.Find(w.role, w.name)
				if !ok {
					t.Errorf("no %s %q in\n%s", w.role, w.name, text)
					continue
				}
				if !slices.Equal(e.Gestures, w.gestures) {
					t.Errorf("%s %q answers %v, want %v", w.role, w.name, e.Gestures, w.gestures)
				}
				if tg := table[e.Ref]; tg.BackendNodeID == 0 || e.BBox.Width <= 0 {
					t.Errorf("%s %q has no node or no box: %+v", w.role, w.name, tg)
				}
				line := e.Ref + " " + e.Role + " "
				if i := strings.Index(text, line); i < 0 || !strings.Contains(strings.SplitN(text[i:], "\n", 2)[0], " "+strings.Join(w.gestures, " ")) {
					t.Errorf("the line of %s %q does not say %v:\n%s", w.role, w.name, w.gestures, text)
				}
			}
			n := 0
			for _, e := range s.Elements {
				if len(e.Gestures) > 0 {
					n++
				}
				for _, p := range tt.plain {
					if e.Name == p {
						t.Errorf("%q is an element (%s %s), want page text only", p, e.Ref, e.Role)
					}
				}
			}
			if n != tt.gestured {
				t.Errorf("%d elements say a gesture, want %d:\n%s", n, tt.gestured, text)
			}
		})
	}
}

// TestGestureBudget: the pages with no listener for a gesture keep the
// snapshot they had (their goldens hold it byte for byte); here, a page
// whose document, <html> and <body> listen for both gestures adds no
// element beyond those that answer for themselves, whatever the page's
// size.
func TestGestureBudget(t *testing.T) {
	c := loadCaptures(t)["w-files"]
	s, _, _ := build(t, c, Options{}, 1)
	without := *c
	without.Gestures = nil
	base, _, _ := build(t, &without, Options{}, 1)
	if got, want := len(s.Elements), len(base.Elements)+5; got != want {
		t.Errorf("%d elements with the page's listeners, %d without: want 5 more (two files, the title, two drafts)\n%s", got, len(base.Elements), s.Render())
	}
}
