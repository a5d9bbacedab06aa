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
// on the window, the document, <html> or <body> make elements only of the
// texts of rows no other listener covers.
func TestGestureExposure(t *testing.T) {
	type want struct {
		role, name string
		gestures   []string
	}
	double, right := []string{GestureDoubleClick}, []string{GestureRightClick}
	both := []string{GestureDoubleClick, GestureRightClick}
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
		// The page listens for both gestures on the window, the document,
		// <html> and <body>: that makes elements of the texts of its
		// lists' and its table's rows that no listener of their own
		// covers (as React 15, jQuery's $(document).on and Ember listen
		// for a todo's), and of nothing else: the paragraphs, the
		// headings, the table's header and the status line stay text.
		{"w-files", []want{
			{"listitem", "report.pdf 120 KB", right},
			{"listitem", "photo.jpg 2.4 MB", right},
			{"generic", "notes.txt", both},
			{"generic", "3 KB", both},
			{"generic", "Quarterly plan", double},
			{"generic", "Spring newsletter", double},
			{"generic", "Board minutes", double},
			{"listitem", "Ada shared report.pdf", both},
			{"listitem", "Grace commented on photo.jpg", both},
			{"listitem", "Alan renamed notes.txt", both},
			{"cell", "Ada", both},
			{"cell", "12", both},
			{"cell", "Grace", both},
			{"cell", "7", both},
		}, 14, []string{"notes.txt 3 KB", "Owner", "No action yet"}},
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
// whose document, <html> and <body> listen for both gestures adds, beyond
// those that answer for themselves, only the texts of its rows: two
// files' cells, three activity items and four table cells.
func TestGestureBudget(t *testing.T) {
	c := loadCaptures(t)["w-files"]
	s, _, _ := build(t, c, Options{}, 1)
	without := *c
	without.Gestures = nil
	base, _, _ := build(t, &without, Options{}, 1)
	if got, want := len(s.Elements), len(base.Elements)+14; got != want {
		t.Errorf("%d elements with the page's listeners, %d without: want 14 more (two files, the title, two drafts; a file's name and size, three activity items, four table cells)\n%s", got, len(base.Elements), s.Render())
	}
	for _, n := range s.Notes {
		if strings.Contains(n, "more rows") {
			t.Errorf("a note says rows were left out, want none on a page of 9 rows: %s", n)
		}
	}
}
