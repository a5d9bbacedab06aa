package browser_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
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
	// The world is kept per document: a new document, and going back to
	// the old one (which the back-forward cache may keep), are judged in
	// a world of their own document.
	t.Run("a new document, and back", func(t *testing.T) {
		t.Parallel()
		tab := browsertest.Tab(t)
		first := site + "/hostile/worlds-builtins?trap=cover&lie=point"
		navigate(t, tab, first)
		if in := inspect(t, tab, nodeOf(t, tab, "button", "Read more"), true); !strings.Contains(in.Covered, "Place order") {
			t.Fatalf("first document: covered by %q", in.Covered)
		}
		navigate(t, tab, site+"/hostile/worlds-builtins?lie=rect,point")
		if in := inspect(t, tab, nodeOf(t, tab, "button", "Read more"), true); in.Covered != "" || in.Y < 100 || in.Y >= 140 {
			t.Fatalf("second document: covered by %q, click point %v,%v", in.Covered, in.X, in.Y)
		}
		back, err := tab.HistoryEntry(testCtx(t), -1)
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.GoToHistory(testCtx(t), back.ID); err != nil {
			t.Fatal(err)
		}
		if !waitUntil(t, 20*time.Millisecond, func() bool { return tab.URL() == first }) {
			t.Fatalf("back: the tab is at %s", tab.URL())
		}
		if in := inspect(t, tab, nodeOf(t, tab, "button", "Read more"), true); !strings.Contains(in.Covered, "Place order") {
			t.Errorf("back at the first document: covered by %q", in.Covered)
		}
	})
	// Done is what was approved: the select's focus handler turns the
	// approved option into another, and the page lies that it did not.
	for _, lie := range []string{"option", "none"} {
		t.Run("the select's "+lie+" lies", func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, site+"/hostile/worlds-builtins?lie="+lie)
			plan := nodeOf(t, tab, "combobox", "Plan")
			approved, err := tab.PickOptions(testCtx(t), plan, []string{"Basic $5"}, false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tab.Select(testCtx(t), plan, []string{"Basic $5"}, false, approved)
			var changed *browser.ChangedError
			if !errors.As(err, &changed) {
				t.Errorf("Select = %v, %v; want a ChangedError", got, err)
			}
			s, _, _ := snapshot.Build(captureOf(t, tab, browser.CaptureOptions{}), snapshot.Options{}, 0)
			if !strings.Contains(s.Text, "Plan heard: nothing") {
				t.Errorf("the page heard a choice nobody approved:\n%s", s.Text)
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
