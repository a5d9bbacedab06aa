package browser_test

import (
	"errors"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestPressEnterChangedOnItsKeydown: Enter in a field whose keydown changes
// what Enter submits (another default button moved into the form, the form
// sent elsewhere) is not released: a ChangedError, and the page never
// hears the keypress that submits. Enter whose keydown changes nothing
// submits as before.
func TestPressEnterChangedOnItsKeydown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		trick   string
		changed bool
	}{
		{"swap", true},
		{"action=/hostile/keys-transfer", true},
		{"", false},
	}
	for _, tc := range cases {
		t.Run(tc.trick, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, browsertest.Site(t)+"/hostile/keys-enter-swap?trick="+tc.trick)
			if err := tab.Focus(testCtx(t), nodeOf(t, tab, "textbox", "Search orders")); err != nil {
				t.Fatal(err)
			}
			chord, err := browser.ParseKey("Enter")
			if err != nil {
				t.Fatal(err)
			}
			err = tab.Press(testCtx(t), chord)
			var changed *browser.ChangedError
			if got := errors.As(err, &changed); got != tc.changed {
				t.Fatalf("Press Enter with trick %q: %v; want a ChangedError %v", tc.trick, err, tc.changed)
			}
			if !tc.changed {
				return
			}
			var status string
			if err := tab.Evaluate(testCtx(t), `document.getElementById('result').textContent + ' ' + location.pathname`, &status); err != nil {
				t.Fatal(err)
			}
			if status != "No order placed /hostile/keys-enter-swap" {
				t.Errorf("after a refused Enter the page says %q", status)
			}
		})
	}
}
