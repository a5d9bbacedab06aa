package snapshotlive

import (
	"context"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestLiveClickables clicks what the snapshot of the inbox page exposes, at
// the box the snapshot gives, and checks that the page did what a person's
// click there does: an item of the popup list, not the list's middle; the
// star icon, not its row.
func TestLiveClickables(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tab := browsertest.Tab(t)
	if err := tab.Navigate(ctx, browsertest.Site(t)+"/variants/clickables"); err != nil {
		t.Fatal(err)
	}
	look := func() *snapshot.Snapshot {
		t.Helper()
		c, err := tab.Capture(ctx, browser.CaptureOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, _, _ := snapshot.Build(c, snapshot.Options{}, 0)
		return s
	}
	read := func(expr string) string {
		t.Helper()
		var out string
		if err := tab.Evaluate(ctx, expr, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	status := `document.getElementById('inbox-status').textContent`
	for _, tt := range []struct {
		role, name  string
		check, want string
	}{
		{"option", "Guam", `document.getElementById('country-input').value`, "Guam"},
		{"option", "Guatemala", `document.getElementById('picked').textContent`, "Picked Guatemala"},
		{"button", "star icon", status, "Starred"},
		{"button", "more icon", status, "More actions"},
		{"button", "Ada Lovelace Notes on the Analytical Engine", status, "Opened: Notes on the Analytical Engine"},
		{"button", "Archive", status, "Archived"},
	} {
		s := look()
		e, ok := find(t, s, tt.role, tt.name)
		if !ok {
			continue
		}
		// The row's middle is its subject; its icons sit at its end.
		if err := tab.Click(ctx, e.BBox.X+e.BBox.Width/2, e.BBox.Y+e.BBox.Height/2); err != nil {
			t.Fatal(err)
		}
		if got := read(tt.check); got != tt.want {
			t.Errorf("click on %s %q: %s is %q, want %q", tt.role, tt.name, tt.check, got, tt.want)
		}
	}

	// The slider's handle moves with the keys its page listens to, and the
	// next snapshot says where it is.
	read(`(() => { const k = document.getElementById('brightness'); k.focus();
		k.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true})); return k.getAttribute('aria-valuenow'); })()`)
	if e, ok := find(t, look(), "slider", "Brightness"); ok && (e.Value == nil || *e.Value != "40") {
		t.Errorf("slider value after ArrowRight: %v, want 40", e.Value)
	}
}
