package browser_test

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestJudgedInIsolatedWorld: the scripts that judge an action run with
// built-ins of their own, not the page's. On a page that redefines them to
// lie (fixtures/site/hostile/worlds-builtins.html), the inspection still
// finds the order button that covers "Read more", still aims at where
// "Read more" really is, and the focus is where it really is.
func TestJudgedInIsolatedWorld(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	for _, tc := range []struct{ name, query, covered string }{
		{"elementFromPoint lies", "trap=cover&lie=point", "Place order"},
		{"parentNode lies", "trap=cover&lie=parent", "Place order"},
		{"some and includes lie", "trap=cover&lie=some,includes", "Place order"},
		{"the box and the hit test lie", "lie=rect,point", ""},
		{"nothing lies", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, site+"/hostile/worlds-builtins?"+tc.query)
			in := inspect(t, tab, nodeOf(t, tab, "button", "Read more"), true)
			if !in.Visible || !strings.Contains(in.Covered, tc.covered) || tc.covered == "" && in.Covered != "" {
				t.Errorf("Read more: visible %v, covered by %q; want covered by %q", in.Visible, in.Covered, tc.covered)
			}
			// Read more is at 20,100, 200 by 40 (the fixture's style).
			if in.X < 20 || in.X >= 220 || in.Y < 100 || in.Y >= 140 {
				t.Errorf("the click point %v,%v is not on Read more (20,100 to 220,140)", in.X, in.Y)
			}
		})
	}
	t.Run("activeElement lies", func(t *testing.T) {
		t.Parallel()
		tab := browsertest.Tab(t)
		navigate(t, tab, site+"/hostile/worlds-builtins?lie=focus")
		note := nodeOf(t, tab, "textbox", "Note")
		if err := tab.Focus(testCtx(t), note); err != nil {
			t.Fatal(err)
		}
		got, err := tab.Focused(testCtx(t))
		if err != nil || got != note {
			t.Fatalf("Focused = %d, %v; want the Note field %d", got, err, note)
		}
	})
}
