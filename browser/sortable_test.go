package browser_test

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestListPlace: two items of one list are read with their places, the
// list's direction and its items in order; a slider's handle and a button
// beside its track are no list.
func TestListPlace(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	if err := tab.Navigate(t.Context(), site+"/widgets3/sortable"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		from, to         string
		list, horizontal bool
		fromAt, toAt     int
		count            int
	}{
		{"Wash the car", "Water the plants", true, false, 0, 3, 5},
		{"Pay the rent", "Buy groceries", true, false, 4, 1, 5},
		{"Tue", "Thu", true, true, 1, 3, 4},
		{"Mon", "Wash the car", false, false, 0, 0, 0},
	}
	for _, tt := range tests {
		lp, err := tab.ListPlace(t.Context(), keysNode(t, tab, "listitem", tt.from), keysNode(t, tab, "listitem", tt.to))
		if err != nil {
			t.Fatal(err)
		}
		if lp.List != tt.list || lp.Horizontal != tt.horizontal || lp.From != tt.fromAt || lp.To != tt.toAt || lp.Count != tt.count {
			t.Errorf("%q onto %q: %+v", tt.from, tt.to, lp)
		}
		if tt.list && (lp.Items[tt.toAt] != tt.to || lp.Box.Width <= 0 || lp.Box.Height <= 0) {
			t.Errorf("%q onto %q: items %q, box %+v", tt.from, tt.to, lp.Items, lp.Box)
		}
	}
	if err := tab.Navigate(t.Context(), site+"/widgets2/slider"); err != nil {
		t.Fatal(err)
	}
	lp, err := tab.ListPlace(t.Context(), keysNode(t, tab, "slider", "Balance"), keysNode(t, tab, "button", "Centre"))
	if err != nil || lp.List {
		t.Errorf("a handle onto a button beside its track: %+v, %v", lp, err)
	}
}

// TestDropPoint: the drop lands past the target's midpoint in the drag's
// direction, on the list's axis, keeping the other coordinate.
func TestDropPoint(t *testing.T) {
	box := browser.Box{X: 100, Y: 200, Width: 80, Height: 40}
	tests := []struct {
		lp   browser.ListPlace
		x, y float64
	}{
		{browser.ListPlace{List: true, From: 0, To: 3, Box: box}, 140, 230},
		{browser.ListPlace{List: true, From: 3, To: 1, Box: box}, 140, 210},
		{browser.ListPlace{List: true, From: 0, To: 2, Box: box, Horizontal: true}, 160, 220},
		{browser.ListPlace{List: true, From: 2, To: 0, Box: box, Horizontal: true}, 120, 220},
	}
	for _, tt := range tests {
		if x, y := tt.lp.DropPoint(140, 220); x != tt.x || y != tt.y {
			t.Errorf("%+v: drop at %v,%v, want %v,%v", tt.lp, x, y, tt.x, tt.y)
		}
	}
}
