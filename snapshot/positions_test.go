package snapshot

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPositions: with Options.Positions the snapshot carries each run of
// plain page text with its box, in the order of the text, and its rendering
// lists them; without it, neither the JSON nor the rendering has them, so
// the default budget does not pay for them.
func TestPositions(t *testing.T) {
	c := loadCaptures(t)["w-chart"]
	plain, _, _ := Build(c, Options{ViewportOnly: true}, 1)
	if plain.Positions != nil || strings.Contains(plain.Render(), "positions:") {
		t.Fatalf("positions without asking:\n%s", plain.Render())
	}
	s, _, _ := Build(c, Options{ViewportOnly: true, Positions: true}, 1)
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(data); err != nil {
		t.Fatalf("snapshot with positions does not validate: %v", err)
	}
	at := map[string]BBox{}
	var order []string
	for _, r := range s.Positions {
		if r.BBox.Width <= 0 || r.BBox.Height <= 0 {
			t.Errorf("run %q has no box: %+v", r.Text, r.BBox)
		}
		at[r.Text] = r.BBox
		order = append(order, r.Text)
	}
	for _, want := range []string{"Budget", "Noughts and crosses", "Nothing picked yet"} {
		if _, ok := at[want]; !ok {
			t.Errorf("no run %q in %q", want, order)
		}
	}
	// The game's heading is drawn inside its heading element, above the
	// board's cell with the O.
	var heading, cell BBox
	for _, e := range s.Elements {
		switch {
		case e.Role == "heading" && e.Name == "Noughts and crosses":
			heading = e.BBox
		case e.Name == "O":
			cell = e.BBox
		}
	}
	h := at["Noughts and crosses"]
	if h.X < heading.X || h.Y < heading.Y || h.X+h.Width > heading.X+heading.Width+1 || h.Y+h.Height > cell.Y {
		t.Errorf("run at %+v, its heading at %+v, the cell below at %+v", h, heading, cell)
	}
	if r := s.Render(); !strings.Contains(r, "positions:\n") || !strings.Contains(r, "\n\"Nothing picked yet\" ") {
		t.Errorf("rendering lacks the positions:\n%s", r)
	}
	if s.Text != plain.Text || ElementTokens(s.Elements) != ElementTokens(plain.Elements) {
		t.Errorf("positions changed the text or the elements")
	}
}
