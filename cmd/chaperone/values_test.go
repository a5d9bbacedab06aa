package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestValuesShown: on pages whose values, icons and marks only a person's
// eyes read (issue 31 item 4), over stdio, the snapshot a model reads
// carries them, and a click by the name they give lands: a slider's value
// shown beside it or its handle's position, icons and marks drawn by CSS
// images named by their file's words, nameless SVG shapes by colour and
// kind.
func TestValuesShown(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	tests := []struct {
		page  string
		shows []string // lines of the rendered snapshot, each a substring
		steps []widgetStep
	}{
		{page: "/widgets3/slider", shows: []string{`slider value="0" (shown beside)`, `slider value="30%" (position)`}},
		{page: "/widgets2/slider", shows: []string{`slider value="50" (shown beside)`, `slider "Balance" value="50"`}},
		{page: "/widgets3/menu", shows: []string{`menuitem "Favourite" icon="star icon"`, `menuitem "Save" icon="disk icon"`, `menuitem "Close"` + "\n"}},
		{page: "/widgets3/board", shows: []string{`button "o" (fallback name)`}, steps: []widgetStep{
			{tool: toolapi.Click, role: "button", nth: 1, want: "X in cell 1"},
		}},
		{page: "/widgets3/reply", steps: []widgetStep{
			{tool: toolapi.Click, role: "button", name: "Reply", want: "Nothing sent yet"},
			{tool: toolapi.Fill, role: "textbox", name: "Message", want: "Nothing sent yet"},
			{tool: toolapi.Click, role: "button", name: "send", want: "Sent: Sounds good"},
			{tool: toolapi.Click, role: "button", name: "trash", want: "Discarded"},
		}},
		{page: "/widgets3/shapes", shows: []string{`button "red circle" (shape) box 242,172,40,40`, `button "blue square" (shape)`, `button "yellow ellipse" (shape)`, `button "black letter k" (shape)`, `img "blue circle" (shape) box `, "note: …984 more nameless SVG shapes"}, steps: []widgetStep{
			{tool: toolapi.Click, role: "button", name: "green triangle", want: "Clicked shape 3"},
			{tool: toolapi.Click, role: "button", name: "red circle", want: "Clicked shape 1"},
		}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.page, "/"), func(t *testing.T) {
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+tt.page, "--profile", "none")
			s := getSnapshot(t, c)
			text := s.Render()
			for _, want := range tt.shows {
				if !strings.Contains(text, want) {
					t.Errorf("the snapshot lacks %q:\n%s", want, text)
				}
			}
			for _, st := range tt.steps {
				if st.tool == toolapi.Fill {
					r, after := act(t, c, st.tool, map[string]any{"ref": widgetRef(t, s, st.role, st.name, 0), "value": "Sounds good"})
					if !r.Success {
						t.Fatalf("fill %q: %s", st.name, r.Message)
					}
					s = after
					continue
				}
				s = widgetAct(t, c, s, st)
			}
			if tt.page == "/widgets3/board" {
				// The X a click put in cell 1 is its ::before's image.
				if e := s.Elements; !strings.Contains(s.Render(), `button "x" (fallback name)`) {
					t.Errorf("the cell clicked shows no x (%d elements):\n%s", len(e), s.Render())
				}
				// The second board's cells, which only the board listens
				// for, are buttons too: its O, and an empty cell to click.
				var cells []snapshot.Element
				for _, e := range s.Elements {
					if e.Role == "button" && len(e.Name) <= 1 {
						cells = append(cells, e)
					}
				}
				var empty, marks []string
				for _, e := range cells[max(0, len(cells)-9):] {
					if e.Name == "" {
						empty = append(empty, e.Ref)
					} else {
						marks = append(marks, e.Name)
					}
				}
				if len(empty) != 8 || len(marks) != 1 || marks[0] != "o" {
					t.Fatalf("the second board shows %d empty cells and marks %q, want 8 and [o]:\n%s", len(empty), marks, s.Render())
				}
				r, after := act(t, c, toolapi.Click, map[string]any{"ref": empty[1]})
				if !r.Success || !strings.Contains(after.Text, "X in cell 2 of board 2") {
					t.Fatalf("click an empty cell of board 2: %s\n%s", r.Message, after.Text)
				}
			}
		})
	}
}

// TestSortableDrop: on mouse-driven sortable lists that move an item only
// as the pointer passes another's midpoint in the direction it moves (as
// jQuery UI's sortable does), browser_drag onto an item puts the dragged
// one in that item's place, down or up, vertical or horizontal, and the
// result says the list's new order (issue 31 item 6).
func TestSortableDrop(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/widgets3/sortable", "--profile", "none", "--caps", "drag")
	s := getSnapshot(t, c)
	steps := []struct {
		from, to, want, says string
	}{
		{"Wash the car", "Water the plants", "Order: Buy groceries, Call the bank, Water the plants, Wash the car, Pay the rent", `4. "Wash the car"`},
		{"Pay the rent", "Buy groceries", "Order: Pay the rent, Buy groceries, Call the bank, Water the plants, Wash the car", `1. "Pay the rent"`},
		{"Call the bank", "Water the plants", "Order: Pay the rent, Buy groceries, Water the plants, Call the bank, Wash the car", `4. "Call the bank"`},
		{"Mon", "Wed", "Days: Tue, Wed, Mon, Thu", `3. "Mon"`},
		{"Thu", "Tue", "Days: Thu, Tue, Wed, Mon", `1. "Thu"`},
	}
	for _, st := range steps {
		r, after := act(t, c, toolapi.Drag, map[string]any{"from_ref": widgetRef(t, s, "listitem", st.from, 0), "to_ref": widgetRef(t, s, "listitem", st.to, 0)})
		if !r.Success {
			t.Fatalf("drag %q onto %q: %s", st.from, st.to, r.Message)
		}
		if !strings.Contains(after.Text, st.want) {
			t.Fatalf("after dragging %q onto %q the page lacks %q:\n%s", st.from, st.to, st.want, after.Text)
		}
		if !strings.Contains(r.Message, st.says) {
			t.Errorf("dragging %q onto %q: the result does not give the new order (%s): %s", st.from, st.to, st.says, r.Message)
		}
		s = after
	}
}

// TestSliderFill: "Select -97 with the slider" on a jQuery-UI-like slider
// without ARIA values, one browser_fill that moves the handle by its keys
// as a person does, reading the value shown beside it after each press;
// and one whose only value is its handle's position. The result and the
// next snapshot say the value, and the page got it.
func TestSliderFill(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/widgets3/slider", "--profile", "none")
	s := getSnapshot(t, c)
	slider := func(s *snapshot.Snapshot, nth int) string {
		for _, e := range s.Elements {
			if e.Role == "slider" {
				if nth--; nth == 0 {
					return e.Ref
				}
			}
		}
		t.Fatalf("no slider %d:\n%s", nth, s.Render())
		return ""
	}
	for _, st := range []struct {
		nth                int
		value, says, shows string
	}{
		{1, "-97", "It shows -97 (shown beside).", `value="-97" (shown beside)`},
		{2, "70", "It shows 70% (position).", `value="70%" (position)`},
		{1, "12", "It shows 12 (shown beside).", `value="12" (shown beside)`},
	} {
		ref := slider(s, st.nth)
		r, after := act(t, c, toolapi.Fill, map[string]any{"ref": ref, "value": st.value})
		if !r.Success {
			t.Fatalf("fill %s with %s: %s", ref, st.value, r.Message)
		}
		if !strings.HasSuffix(r.Message, st.says) {
			t.Errorf("fill %s with %s says %q, want it to end %q", ref, st.value, r.Message, st.says)
		}
		if !strings.Contains(after.Render(), st.shows) {
			t.Errorf("after fill %s with %s the snapshot lacks %s:\n%s", ref, st.value, st.shows, after.Render())
		}
		s = after
	}
	r, after := act(t, c, toolapi.Click, map[string]any{"ref": widgetRef(t, s, "button", "Submit", 0)})
	if !r.Success || !strings.Contains(after.Text, "Submitted temperature 12, brightness 70") {
		t.Fatalf("submit: %s\n%s", r.Message, after.Text)
	}
	// A value the slider cannot show is a typed error, and the session
	// goes on.
	r, _ = act(t, c, toolapi.Fill, map[string]any{"ref": slider(after, 1), "value": "warm"})
	if r.Success || r.Error == nil || *r.Error != string(toolapi.InvalidParams) {
		t.Errorf("fill with a word: %+v", r)
	}
}

// TestSliderFillStopsWhenFocusMoves: a slider that hands the keyboard focus
// to a radio group after a few keys gets no more of a fill's keys, so no
// arrow picks another radio; the fill fails and says why.
func TestSliderFillStopsWhenFocusMoves(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/hostile/slider-focus", "--profile", "none")
	s := getSnapshot(t, c)
	r, after := act(t, c, toolapi.Fill, map[string]any{"ref": widgetRef(t, s, "slider", "", 1), "value": "45"})
	if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "moved the keyboard focus") {
		t.Fatalf("fill a slider that moves the focus: %+v", r)
	}
	if !strings.Contains(after.Text, "Speed: standard") {
		t.Fatalf("a fill's key reached the radios:\n%s", after.Text)
	}
}
