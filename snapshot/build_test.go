package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/capture"
)

// shown lists "role name" of each element, in order.
func shown(s *Snapshot) []string {
	out := make([]string, len(s.Elements))
	for i, e := range s.Elements {
		out[i] = e.Role + " " + e.Name
	}
	return out
}

func focusable() map[string]any { return map[string]any{"focusable": true} }

func TestInclusionAndExclusion(t *testing.T) {
	t.Parallel()
	box := []float64{10, 10, 100, 20}
	low := []float64{10, 2000, 100, 20}
	tests := []struct {
		name string
		body []tnode
		opts Options
		want []string
	}{
		{"button", []tnode{button("Save", box...)}, Options{}, []string{"button Save"}},
		{"interactive roles", []tnode{
			{tag: "A", role: "link", name: "Home", box: box},
			{tag: "INPUT", role: "checkbox", name: "Agree", box: box},
			{tag: "INPUT", role: "radio", name: "Yes", box: box},
			{tag: "INPUT", role: "textbox", name: "User", box: box},
			{tag: "INPUT", role: "searchbox", name: "Find", box: box},
			{tag: "SELECT", role: "combobox", name: "Plan", box: box},
			{tag: "DIV", role: "listbox", name: "Colors", box: box, kids: []tnode{{tag: "DIV", role: "option", name: "Red", box: box}}},
			{tag: "DIV", role: "menuitem", name: "Open", box: box},
			{tag: "DIV", role: "menuitemcheckbox", name: "Bold", box: box},
			{tag: "DIV", role: "menuitemradio", name: "Left", box: box},
			{tag: "DIV", role: "tab", name: "Tab 1", box: box},
			{tag: "BUTTON", role: "switch", name: "Wifi", box: box},
			{tag: "INPUT", role: "slider", name: "Volume", box: box},
			{tag: "INPUT", role: "spinbutton", name: "Count", box: box},
		}, Options{}, []string{"link Home", "checkbox Agree", "radio Yes", "textbox User", "searchbox Find", "combobox Plan", "listbox Colors", "option Red", "menuitem Open", "menuitemcheckbox Bold", "menuitemradio Left", "tab Tab 1", "switch Wifi", "slider Volume", "spinbutton Count"}},
		{"headings 1-3 only", []tnode{
			{tag: "H1", role: "heading", name: "One", box: box, props: map[string]any{"level": 1}},
			{tag: "H3", role: "heading", name: "Three", box: box, props: map[string]any{"level": 3}},
			{tag: "H4", role: "heading", name: "Four", box: box, props: map[string]any{"level": 4}},
		}, Options{}, []string{"heading One", "heading Three"}},
		{"landmarks and dialogs", []tnode{
			{tag: "SECTION", role: "region", name: "Promo", box: box},
			{tag: "DIV", role: "dialog", name: "Dlg", box: box},
			{tag: "DIV", role: "alert", name: "Card declined", box: box},
			{tag: "DIV", role: "alertdialog", name: "Sure?", box: box},
			{tag: "NAV", role: "navigation", name: "Main", box: box},
		}, Options{}, []string{"region Promo", "dialog Dlg", "alert Card declined", "alertdialog Sure?"}},
		{"nameless alert named by its text", []tnode{
			{tag: "DIV", role: "alert", box: box, kids: []tnode{text("Payment failed", box...)}},
		}, Options{}, []string{"alert Payment failed"}},
		{"keyboard-focusable generic", []tnode{
			{tag: "DIV", role: "generic", box: box, attrs: []string{"tabindex", "0", "title", "Handle"}, props: focusable()},
		}, Options{}, []string{"generic Handle"}},
		{"script-focusable generic excluded", []tnode{
			{tag: "DIV", role: "generic", name: "", box: box, attrs: []string{"tabindex", "-1"}, props: focusable()},
		}, Options{}, []string{}},
		{"generic presentation none separator excluded", []tnode{
			{tag: "DIV", role: "generic", box: box, kids: []tnode{text("words", box...)}},
			{tag: "DIV", role: "presentation", box: box},
			{tag: "DIV", role: "none", box: box},
			{tag: "HR", role: "separator", box: box},
		}, Options{}, []string{}},
		{"focusable separator included", []tnode{
			{tag: "DIV", role: "separator", name: "Resize", box: box, props: focusable()},
		}, Options{}, []string{"separator Resize"}},
		{"static text only inside its control", []tnode{
			text("Loose text", box...),
			button("Go", box...),
		}, Options{}, []string{"button Go"}},
		{"div acting as a button", []tnode{
			{tag: "DIV", role: "generic", box: box, clickable: true, style: map[string]string{"cursor": "pointer"}, kids: []tnode{text("Delete", box...)}},
		}, Options{}, []string{"button Delete"}},
		{"compact clickable without pointer cursor is a button", []tnode{
			{tag: "DIV", role: "generic", box: box, clickable: true, kids: []tnode{text("Delete", box...)}},
		}, Options{}, []string{"button Delete"}},
		{"large clickable without pointer cursor excluded", []tnode{
			{tag: "DIV", role: "generic", box: []float64{0, 0, 800, 300}, clickable: true, kids: []tnode{text("Delete", box...)}},
		}, Options{}, []string{}},
		{"CSS icon named by its class", []tnode{
			{tag: "SPAN", role: "generic", box: []float64{10, 10, 20, 20}, clickable: true, attrs: []string{"class", "icon retweet"}},
		}, Options{}, []string{"button retweet icon"}},
		{"symbol label named by its symbol", []tnode{
			{tag: "text", role: "generic", box: []float64{10, 10, 12, 20}, clickable: true, kids: []tnode{text("+", 10, 10, 12, 20)}},
		}, Options{}, []string{"button +"}},
		{"listbox items without a role are options", []tnode{
			{tag: "UL", role: "listbox", box: box, attrs: []string{"role", "listbox"}, clickable: true, kids: []tnode{
				{tag: "LI", box: box, kids: []tnode{text("Apple", box...)}},
				{tag: "LI", box: box, kids: []tnode{text("Banana", box...)}},
				{tag: "LI", box: nil, kids: []tnode{text("Hidden", box...)}},
			}},
		}, Options{}, []string{"listbox ", "option Apple", "option Banana"}},
		{"a control inside a listbox item stays an element", []tnode{
			{tag: "UL", role: "listbox", box: box, attrs: []string{"role", "listbox"}, kids: []tnode{
				{tag: "LI", role: "generic", box: box, kids: []tnode{text("Apple", box...), {tag: "INPUT", role: "checkbox", name: "Keep", box: box}}},
			}},
		}, Options{}, []string{"listbox ", "option Apple", "checkbox Keep"}},
		{"menu items without a role are menu items", []tnode{
			{tag: "UL", role: "menu", box: box, attrs: []string{"role", "menu"}, kids: []tnode{
				{tag: "LI", role: "generic", box: box, kids: []tnode{text("Rename", box...)}},
				{tag: "LI", box: box, kids: []tnode{text("Delete", box...)}},
			}},
		}, Options{}, []string{"menuitem Rename", "menuitem Delete"}},
		{"items of a sortable list and draggable cards", []tnode{
			{tag: "UL", role: "list", box: []float64{0, 0, 300, 100}, attrs: []string{"class", "ui-sortable"}, clickable: true, kids: []tnode{
				{tag: "LI", role: "listitem", box: box, kids: []tnode{text("First", box...)}},
				{tag: "LI", role: "listitem", box: box, kids: []tnode{text("Second", box...)}},
			}},
			{tag: "DIV", role: "generic", box: box, attrs: []string{"draggable", "true"}, kids: []tnode{text("Card", box...)}},
			{tag: "DIV", role: "generic", box: box, style: map[string]string{"cursor": "grab"}, kids: []tnode{text("Grip", box...)}},
			{tag: "UL", role: "list", box: []float64{0, 0, 300, 100}, clickable: true, attrs: []string{"class", "plain"}, kids: []tnode{
				{tag: "LI", role: "listitem", box: box, kids: []tnode{text("Not sortable", box...)}},
			}},
		}, Options{}, []string{"listitem First", "listitem Second", "button Card", "button Grip"}},
		{"slider handle by its classes", []tnode{
			{tag: "DIV", role: "generic", box: box, attrs: []string{"class", "ui-slider"}, clickable: true, kids: []tnode{
				{tag: "SPAN", role: "generic", box: []float64{30, 8, 18, 18}, attrs: []string{"tabindex", "0", "class", "ui-slider-handle"}, props: focusable()},
			}},
		}, Options{}, []string{"slider "}},
		{"menu bar item that opens a submenu on hover", []tnode{
			{tag: "LI", role: "listitem", box: box, kids: []tnode{
				text("File", box...),
				{tag: "UL", box: nil, kids: []tnode{{tag: "LI", box: nil, clickable: true, kids: []tnode{{tag: "#text", name: "Save"}}}}},
			}},
			{tag: "LI", role: "listitem", box: box, kids: []tnode{text("Plain item", box...)}},
		}, Options{}, []string{"menuitem File"}},
		{"clickable wrapper does not double up", []tnode{
			{tag: "DIV", role: "generic", box: box, clickable: true, style: map[string]string{"cursor": "pointer"}, kids: []tnode{button("Inner", box...)}},
		}, Options{}, []string{"button Inner"}},
		{"clickable span inside a link does not double up", []tnode{
			{tag: "A", role: "link", name: "Card", box: box, clickable: true, kids: []tnode{
				{tag: "SPAN", role: "generic", box: box, clickable: true, style: map[string]string{"cursor": "pointer"}, kids: []tnode{text("Card", box...)}},
			}},
		}, Options{}, []string{"link Card"}},
		{"label is not a div-button", []tnode{
			{tag: "LABEL", role: "LabelText", box: box, clickable: true, style: map[string]string{"cursor": "pointer"}, kids: []tnode{text("Agree", box...)}},
		}, Options{}, []string{}},
		{"aria-hidden excluded", []tnode{
			{tag: "DIV", ignoredReason: "ariaHiddenElement", box: box, kids: []tnode{
				{tag: "BUTTON", role: "button", name: "Hidden", box: box, ignoredReason: "ariaHiddenSubtree"},
			}},
		}, Options{}, []string{}},
		{"display none excluded", []tnode{
			{tag: "BUTTON", role: "button", name: "Gone", box: box, style: map[string]string{"display": "none"}},
		}, Options{}, []string{}},
		{"visibility hidden excluded", []tnode{
			{tag: "BUTTON", role: "button", name: "Ghost", box: box, style: map[string]string{"visibility": "hidden"}},
		}, Options{}, []string{}},
		{"offscreen excluded when viewport only", []tnode{
			button("Top", box...), button("Bottom", low...),
		}, Options{ViewportOnly: true}, []string{"button Top"}},
		{"offscreen included otherwise", []tnode{
			button("Top", box...), button("Bottom", low...),
		}, Options{}, []string{"button Top", "button Bottom"}},
		{"scroll container", []tnode{
			{tag: "DIV", role: "generic", box: []float64{0, 0, 200, 100}, scroll: []float64{200, 400}, style: map[string]string{"overflow-y": "auto"}},
		}, Options{}, []string{"generic "}},
		{"form control parts are not elements", []tnode{
			{tag: "INPUT", role: "Date", box: box, attrs: []string{"type", "date"}, kids: []tnode{
				{tag: "DIV", role: "spinbutton", name: "Month", box: box, props: focusable()},
				{tag: "DIV", role: "button", name: "Show date picker", box: box, props: focusable()},
			}},
		}, Options{}, []string{"textbox "}},
		{"document and body are not elements", []tnode{
			{tag: "MAIN", role: "main", box: box, props: focusable(), attrs: []string{"tabindex", "-1"}},
		}, Options{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := build(t, tcapture(tt.body...), tt.opts, 0)
			if got := shown(s); !slices.Equal(got, tt.want) {
				t.Errorf("elements = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNameCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 250)
	s, table, _ := build(t, tcapture(button(long, 0, 0, 10, 10)), Options{}, 0)
	got := s.Elements[0].Name
	want := strings.Repeat("é", 200) + "..."
	if got != want {
		t.Errorf("name has %d characters, want the first 200 and ...", len([]rune(got)))
	}
	if table["@e0"].AXName != long {
		t.Errorf("target keeps the tree's own name; got %d characters", len([]rune(table["@e0"].AXName)))
	}
	short := strings.Repeat("a", 200)
	s, _, _ = build(t, tcapture(button(short, 0, 0, 10, 10)), Options{}, 0)
	if s.Elements[0].Name != short {
		t.Errorf("a 200-character name was cut")
	}
}

func TestRanking(t *testing.T) {
	t.Parallel()
	// One of each class, in reverse of rank order in the document.
	body := []tnode{
		{tag: "SECTION", role: "region", name: "Region", box: []float64{0, 0, 100, 10}},
		{tag: "H1", role: "heading", name: "Heading", box: []float64{0, 10, 100, 10}, props: map[string]any{"level": 1}},
		{tag: "SELECT", role: "combobox", name: "Combo", box: []float64{0, 20, 100, 10}},
		{tag: "INPUT", role: "textbox", name: "Text", box: []float64{0, 30, 100, 10}},
		button("Offscreen", 0, 5000, 100, 10),
		button("Partly", 0, 715, 100, 10),
		button("Full", 0, 50, 100, 10),
		{tag: "DIV", role: "tab", name: "Tab", box: []float64{0, 60, 100, 10}},
	}
	tests := []struct {
		max  int
		want []string
	}{
		{1, []string{"button Full"}},
		{2, []string{"textbox Text", "button Full"}},
		{3, []string{"combobox Combo", "textbox Text", "button Full"}},
		{4, []string{"heading Heading", "combobox Combo", "textbox Text", "button Full"}},
		{5, []string{"region Region", "heading Heading", "combobox Combo", "textbox Text", "button Full"}},
		{6, []string{"region Region", "heading Heading", "combobox Combo", "textbox Text", "button Full", "tab Tab"}},
		{7, []string{"region Region", "heading Heading", "combobox Combo", "textbox Text", "button Partly", "button Full", "tab Tab"}},
		{8, []string{"region Region", "heading Heading", "combobox Combo", "textbox Text", "button Offscreen", "button Partly", "button Full", "tab Tab"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			s, _, _ := build(t, tcapture(body...), Options{MaxElements: tt.max}, 0)
			if got := shown(s); !slices.Equal(got, tt.want) {
				t.Errorf("elements = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestElementCapAndBudget(t *testing.T) {
	t.Parallel()
	var body []tnode
	for i := range 300 {
		body = append(body, button(fmt.Sprintf("Button number %d", i), 0, float64(i)*2, 100, 2))
	}
	tests := []struct {
		name   string
		opts   Options
		tokens int
	}{
		{"default cap and budget", Options{}, DefaultTokenBudget},
		{"small budget", Options{TokenBudget: 300}, 300},
		{"cap binds first", Options{MaxElements: 5}, DefaultTokenBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, table, _ := build(t, tcapture(body...), tt.opts, 0)
			if n := ElementTokens(s.Elements); n > tt.tokens {
				t.Errorf("elements cost %d tokens, budget %d", n, tt.tokens)
			}
			limit := tt.opts.withDefaults().MaxElements
			if len(s.Elements) > limit || len(s.Elements) == 0 {
				t.Errorf("%d elements, cap %d", len(s.Elements), limit)
			}
			if len(table) != len(s.Elements) {
				t.Errorf("table has %d refs for %d elements", len(table), len(s.Elements))
			}
			// The first ones in the viewport are kept, in document order.
			if s.Elements[0].Name != "Button number 0" {
				t.Errorf("first element %q", s.Elements[0].Name)
			}
			want := fmt.Sprintf("%d more elements not shown", 300-len(s.Elements))
			if len(s.Notes) == 0 || !strings.HasPrefix(s.Notes[0], want) {
				t.Errorf("notes %q, want one starting %q", s.Notes, want)
			}
		})
	}
}

func TestRefsContinue(t *testing.T) {
	t.Parallel()
	c := tcapture(button("A", 0, 0, 10, 10), button("B", 0, 10, 10, 10), button("C", 0, 20, 10, 10))
	for _, first := range []int{0, 7, 1000} {
		s, table, next := build(t, c, Options{}, first)
		if next != first+3 {
			t.Errorf("next = %d, want %d", next, first+3)
		}
		for i, e := range s.Elements {
			want := fmt.Sprintf("@e%d", first+i)
			if e.Ref != want {
				t.Errorf("ref %s, want %s", e.Ref, want)
			}
			if tg, ok := table[want]; !ok || tg.Name != e.Name || tg.Ref != want || tg.BackendNodeID == 0 {
				t.Errorf("table[%s] = %+v", want, tg)
			}
		}
	}
}

func TestSameCaptureSameElements(t *testing.T) {
	t.Parallel()
	c := tcapture(
		tnode{tag: "H1", role: "heading", name: "Title", box: []float64{0, 0, 100, 30}, props: map[string]any{"level": 1}},
		button("One", 0, 40, 50, 20), button("Two", 60, 40, 50, 20),
		tnode{tag: "INPUT", role: "textbox", name: "Name", box: []float64{0, 70, 100, 20}, inputValue: str("x ")},
	)
	a, _, _ := build(t, c, Options{ViewportOnly: true}, 0)
	b, _, _ := build(t, c, Options{ViewportOnly: true}, 0)
	ja, _ := json.Marshal(a.Elements)
	jb, _ := json.Marshal(b.Elements)
	if !bytes.Equal(ja, jb) || a.Text != b.Text {
		t.Errorf("two builds differ:\n%s\n%s", ja, jb)
	}
	if a.ID == b.ID {
		t.Errorf("two snapshots share the id %s", a.ID)
	}
}

func TestPasswordNeverShown(t *testing.T) {
	t.Parallel()
	const secret = "hunter2secret"
	pw := tnode{
		tag: "INPUT", role: "textbox", box: []float64{100, 10, 100, 20}, attrs: []string{"type", "password", "value", "x"},
		value: "•••••••••••••", inputValue: str(secret), props: focusable(),
		kids: []tnode{{tag: "DIV", role: "generic", box: []float64{100, 10, 100, 20}, kids: []tnode{text("•••••••••••••", 100, 10, 100, 20)}}},
	}
	for _, opts := range []Options{{}, {ViewportOnly: true}} {
		s, table, _ := build(t, tcapture(text("Password:", 0, 10, 90, 20), pw), opts, 0)
		data, _ := json.Marshal(s)
		tdata, _ := json.Marshal(table)
		for _, leak := range []string{secret, "•"} {
			if bytes.Contains(data, []byte(leak)) || bytes.Contains(tdata, []byte(leak)) {
				t.Errorf("snapshot or table holds %q:\n%s\n%s", leak, data, tdata)
			}
		}
		// The text before the field is not its name; the page text ties
		// them.
		e := s.Elements[0]
		if e.Value != nil || e.Kind != "password" || e.Name != "" {
			t.Errorf("password element = %+v", e)
		}
		if s.Text != "Password: [@e0]" {
			t.Errorf("text = %q", s.Text)
		}
	}
}

func TestDialog(t *testing.T) {
	t.Parallel()
	page := []tnode{button("Behind", 0, 0, 10, 10)}
	tests := []struct {
		dialog capture.Dialog
		want   []string
		acts   []string
	}{
		{capture.Dialog{Type: "alert", Message: "Saved"}, []string{"alertdialog Saved", "button OK", "button Behind"}, []string{"", "accept", ""}},
		{capture.Dialog{Type: "confirm", Message: "Leave?"}, []string{"alertdialog Leave?", "button OK", "button Cancel", "button Behind"}, []string{"", "accept", "dismiss", ""}},
		{capture.Dialog{Type: "prompt", Message: "Your name", DefaultPrompt: " Ann "}, []string{"alertdialog Your name", "textbox Your name", "button OK", "button Cancel", "button Behind"}, []string{"", "prompt", "accept", "dismiss", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.dialog.Type, func(t *testing.T) {
			c := tcapture(page...)
			c.Dialog = &tt.dialog
			s, table, next := build(t, c, Options{}, 3)
			if got := shown(s); !slices.Equal(got, tt.want) {
				t.Fatalf("elements = %q, want %q", got, tt.want)
			}
			for i, e := range s.Elements {
				if table[e.Ref].Dialog != tt.acts[i] {
					t.Errorf("%s: Dialog = %q, want %q", e.Ref, table[e.Ref].Dialog, tt.acts[i])
				}
			}
			if n := len(s.Elements[0].Children); n != len(tt.want)-2 {
				t.Errorf("dialog has %d children", n)
			}
			if s.Dialog == nil || s.Dialog.Type != tt.dialog.Type || s.Dialog.Message != tt.dialog.Message {
				t.Errorf("Dialog = %+v, want %s %q", s.Dialog, tt.dialog.Type, tt.dialog.Message)
			}
			if s.Elements[0].Ref != "@e3" || next != 3+len(tt.want) {
				t.Errorf("first ref %s, next %d", s.Elements[0].Ref, next)
			}
			if tt.dialog.Type == "prompt" && (s.Elements[1].Value == nil || *s.Elements[1].Value != " Ann ") {
				t.Errorf("prompt value = %v", s.Elements[1].Value)
			}
		})
	}
	// While a dialog is open the browser captures nothing else.
	c := &capture.Page{URL: "https://example.test/", Viewport: capture.Viewport{Width: 800, Height: 600}, DOM: []byte("null"),
		Dialog: &capture.Dialog{Type: "alert", Message: "Hi"}, ScreenshotError: "a dialog is open"}
	s, _, _ := build(t, c, Options{}, 0)
	if got := shown(s); !slices.Equal(got, []string{"alertdialog Hi", "button OK"}) || len(s.Notes) != 1 {
		t.Errorf("elements %q notes %q", got, s.Notes)
	}
}

func TestLenientParsing(t *testing.T) {
	t.Parallel()
	c := tcapture(button("Known", 0, 0, 10, 10))
	// A role, a property and value shapes no version of cdproto knows.
	ax := `{"nodes":[
	 {"nodeId":"1","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"chromeRole":{"type":"internalRole","value":999},"childIds":["2","3","4"],"backendDOMNodeId":1,"frameId":"MAIN"},
	 {"nodeId":"2","ignored":false,"role":{"type":"brandNewType","value":"hologram"},"name":{"type":"computedString","value":"Future","sources":[{"type":"newSource","superseded":{"x":1}}]},"properties":[{"name":"quantumState","value":{"type":"superposition","value":{"up":true}}},{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}}],"parentId":"1","childIds":[],"backendDOMNodeId":99},
	 {"nodeId":"3","ignored":false,"role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Odd"},"value":{"type":"newType","value":[1,2]},"properties":[{"name":"checked","value":{"type":"tristate","value":null}},{"name":"level","value":{"type":"integer","value":"3"}}],"parentId":"1","childIds":[],"backendDOMNodeId":98},
	 {"nodeId":"4","ignored":true,"ignoredReasons":[{"name":"someNewReason","value":{"type":"x"}}],"role":{"type":"role","value":"none"},"parentId":"1","childIds":[]}
	]}`
	c.Frames[0].AX = []byte(ax)
	s, _, _ := build(t, c, Options{}, 0)
	if got := shown(s); !slices.Equal(got, []string{"hologram Future", "button Odd"}) {
		t.Errorf("elements = %q", got)
	}
	// Parts that do not decode are left out with a note, never an error.
	c.DOM = []byte(`{"documents":"surprise"}`)
	c.Frames = append(c.Frames, capture.Frame{URL: "x", AX: []byte(`[1,2]`)})
	s, _, _ = build(t, c, Options{}, 0)
	if len(s.Notes) != 2 {
		t.Errorf("notes = %q", s.Notes)
	}
}

func TestStatesValuesKinds(t *testing.T) {
	t.Parallel()
	b := []float64{0, 0, 100, 20}
	tests := []struct {
		node  tnode
		state []string
		value *string
		kind  string
	}{
		{tnode{tag: "INPUT", role: "checkbox", name: "c", box: b, props: map[string]any{"checked": "true"}}, []string{"visible", "enabled", "checked"}, nil, ""},
		{tnode{tag: "INPUT", role: "checkbox", name: "c", box: b, props: map[string]any{"checked": "mixed"}}, []string{"visible", "enabled", "mixed"}, nil, ""},
		{tnode{tag: "INPUT", role: "radio", name: "c", box: b}, []string{"visible", "enabled", "unchecked"}, nil, ""},
		{tnode{tag: "BUTTON", role: "button", name: "c", box: b, props: map[string]any{"disabled": true, "expanded": true}}, []string{"visible", "disabled", "expanded"}, nil, ""},
		{tnode{tag: "BUTTON", role: "button", name: "c", box: b, props: map[string]any{"expanded": false, "busy": true, "pressed": "true"}}, []string{"visible", "enabled", "pressed", "collapsed", "busy"}, nil, ""},
		{tnode{tag: "DIV", role: "tab", name: "c", box: b, props: map[string]any{"selected": true, "focused": true}}, []string{"visible", "enabled", "selected", "focused"}, nil, ""},
		{tnode{tag: "INPUT", role: "textbox", name: "c", box: b, attrs: []string{"type", "email"}, inputValue: str(" a@b.c "), props: map[string]any{"readonly": true, "required": true}}, []string{"visible", "enabled", "readonly", "required"}, str(" a@b.c "), "email"},
		{tnode{tag: "TEXTAREA", role: "textbox", name: "c", box: b, textValue: str("line one\nline two "), props: map[string]any{"multiline": true}}, []string{"visible", "enabled"}, str("line one\nline two "), "multiline"},
		{tnode{tag: "INPUT", role: "Date", name: "c", box: b, attrs: []string{"type", "date"}, inputValue: str("2024-01-02")}, []string{"visible", "enabled"}, str("2024-01-02"), "date"},
		{tnode{tag: "INPUT", role: "InputTime", name: "c", box: b, attrs: []string{"type", "time"}}, []string{"visible", "enabled"}, nil, "time"},
		{tnode{tag: "INPUT", role: "spinbutton", name: "c", box: b, attrs: []string{"type", "number"}, inputValue: str("3")}, []string{"visible", "enabled"}, str("3"), ""},
		{tnode{tag: "SELECT", role: "combobox", name: "c", box: b, value: "Two", props: map[string]any{"expanded": false}}, []string{"visible", "enabled", "collapsed"}, str("Two"), ""},
		{tnode{tag: "INPUT", role: "checkbox", name: "c", box: []float64{0, 0, 0, 0}}, []string{"hidden", "enabled", "unchecked"}, nil, ""},
		{tnode{tag: "BUTTON", role: "button", name: "c", box: []float64{0, 700, 100, 40}}, []string{"visible", "enabled"}, nil, ""},
		{tnode{tag: "H2", role: "heading", name: "c", box: b, props: map[string]any{"level": 2}}, []string{"visible"}, nil, ""},
		// Chromium sends some booleans as numbers.
		{tnode{tag: "SECTION", role: "region", name: "c", box: b, props: map[string]any{"busy": 1}}, []string{"visible", "busy"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.node.role+" "+strings.Join(tt.state, ","), func(t *testing.T) {
			s, _, _ := build(t, tcapture(tt.node), Options{}, 0)
			if len(s.Elements) != 1 {
				t.Fatalf("elements = %q", shown(s))
			}
			e := s.Elements[0]
			if !slices.Equal(e.State, tt.state) {
				t.Errorf("state = %q, want %q", e.State, tt.state)
			}
			if (e.Value == nil) != (tt.value == nil) || (e.Value != nil && *e.Value != *tt.value) {
				t.Errorf("value = %v, want %v", e.Value, tt.value)
			}
			if e.Kind != tt.kind {
				t.Errorf("kind = %q, want %q", e.Kind, tt.kind)
			}
			if slices.Contains(e.State, "focused") && (s.Focused == nil || *s.Focused != e.Ref) {
				t.Errorf("focused = %v", s.Focused)
			}
		})
	}
}

func TestFallbackNames(t *testing.T) {
	t.Parallel()
	b := []float64{100, 0, 20, 20}
	nameless := func(attrs []string, kids ...tnode) tnode {
		return tnode{tag: "BUTTON", role: "button", box: b, attrs: attrs, props: focusable(), clickable: true, kids: kids}
	}
	field := func(attrs ...string) tnode {
		return tnode{tag: "INPUT", role: "textbox", box: b, attrs: attrs, props: focusable()}
	}
	cell := func(tag string, kids ...tnode) tnode { return tnode{tag: tag, role: "cell", box: b, kids: kids} }
	row := func(kids ...tnode) tnode { return tnode{tag: "TR", role: "row", box: b, kids: kids} }
	svgTitle := tnode{tag: "svg", role: "image", box: b, kids: []tnode{{tag: "title", kids: []tnode{{tag: "#text", name: "Share"}}}}}
	tests := []struct {
		name string
		body []tnode
		want string
	}{
		{"title", []tnode{nameless([]string{"title", "Star it"})}, "Star it"},
		{"img alt", []tnode{nameless(nil, tnode{tag: "IMG", role: "image", box: b, attrs: []string{"alt", "Settings"}})}, "Settings"},
		{"svg title", []tnode{nameless(nil, svgTitle)}, "Share"},
		{"svg icon class", []tnode{nameless(nil, tnode{tag: "svg", role: "image", box: b, attrs: []string{"class", "icon icon-trash"}})}, "trash icon"},
		{"font icon", []tnode{nameless(nil, tnode{tag: "I", role: "generic", box: b, attrs: []string{"class", "fa fa-solid fa-star"}})}, "star icon"},
		{"svg use", []tnode{nameless(nil, tnode{tag: "svg", role: "image", box: b, kids: []tnode{{tag: "use", box: b, attrs: []string{"href", "/sprite.svg#icon-close"}}}})}, "close icon"},
		{"own icon class", []tnode{nameless([]string{"class", "btn bi-pencil-square"})}, "pencil square icon"},
		{"icon word in a class", []tnode{nameless([]string{"class", "tool btnReply"})}, "reply icon"},
		{"symbol text is no name", []tnode{nameless([]string{"class", "icon more"}, text("…", b...))}, "more icon"},
		{"placeholder", []tnode{field("placeholder", "Search films")}, "Search films"},
		{"no description", []tnode{{tag: "BUTTON", role: "button", box: b, props: focusable()}}, ""},
		{"text before is not a name", []tnode{text("Username:", 0, 0, 90, 20), {tag: "INPUT", role: "textbox", box: b}}, ""},
		{"a letter before is not a name", []tnode{{tag: "SPAN", role: "generic", box: b, kids: []tnode{text("D", b...)}}, field()}, ""},
		{"label of another control is not ours", []tnode{
			{tag: "LABEL", role: "LabelText", box: b, attrs: []string{"for", "x"}, kids: []tnode{text("Email", b...)}},
			{tag: "INPUT", role: "slider", box: b},
		}, ""},
		{"label for", []tnode{
			{tag: "LABEL", role: "LabelText", box: b, attrs: []string{"for", "tag"}, kids: []tnode{text("Tagline:", b...)}},
			{tag: "DIV", role: "textbox", box: b, attrs: []string{"id", "tag"}, props: focusable()},
		}, "Tagline"},
		{"wrapping label leaves out the value", []tnode{
			{tag: "LABEL", role: "LabelText", box: b, kids: []tnode{
				text("Nickname", b...),
				{tag: "SPAN", role: "textbox", box: b, props: focusable(), kids: []tnode{text("typed", b...)}},
			}},
		}, "Nickname"},
		{"column header", []tnode{{tag: "TABLE", role: "table", box: b, kids: []tnode{
			{tag: "THEAD", role: "rowgroup", box: b, kids: []tnode{row(cell("TH", text("Genre", b...)), cell("TH", text("Director", b...)))}},
			{tag: "TBODY", box: b, kids: []tnode{row(cell("TD", field()), cell("TD", field()))}},
		}}}, "Director"},
		{"column and row header", []tnode{{tag: "TABLE", role: "table", box: b, kids: []tnode{
			row(cell("TH"), cell("TH", text("Price", b...))),
			row(cell("TH", text("Basic", b...)), cell("TD", field())),
		}}}, "Price, Basic"},
		{"no header row", []tnode{{tag: "TABLE", role: "table", box: b, kids: []tnode{
			row(cell("TD", text("Director", b...)), cell("TD", field())),
		}}}, ""},
		{"fieldset legend", []tnode{{tag: "FIELDSET", role: "group", name: "Director", box: b, kids: []tnode{
			{tag: "LEGEND", role: "Legend", box: b, kids: []tnode{text("Director", b...)}},
			{tag: "P", role: "paragraph", box: b, kids: []tnode{text("Search for satire movies directed by Mejia from year 2017.", b...)}},
			field(),
		}}}, "Director"},
		{"name attribute is no name", []tnode{field("name", "postal_code")}, ""},
		{"link address", []tnode{{tag: "A", role: "link", box: b, attrs: []string{"href", "/help"}}}, "link to /help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, table, _ := build(t, tcapture(tt.body...), Options{}, 0)
			e := s.Elements[len(s.Elements)-1]
			if e.Name != tt.want {
				t.Errorf("name = %q, want %q", e.Name, tt.want)
			}
			if source := map[bool]string{true: NameFallback}[tt.want != ""]; e.NameSource != source {
				t.Errorf("name source = %q, want %q", e.NameSource, source)
			}
			if tg := table[e.Ref]; tg.AXName != "" || tg.Name != tt.want {
				t.Errorf("target name %q, tree name %q", tg.Name, tg.AXName)
			}
		})
	}
	// An accessible name is no fallback.
	s, _, _ := build(t, tcapture(button("Save", b...)), Options{}, 0)
	if e := s.Elements[0]; e.NameSource != "" {
		t.Errorf("accessible name has source %q", e.NameSource)
	}
}

func TestClickableInside(t *testing.T) {
	t.Parallel()
	b := []float64{0, 0, 400, 30}
	pointer := map[string]string{"cursor": "pointer"}
	clickable := func(tag, class string, kids ...tnode) tnode {
		return tnode{tag: tag, role: "generic", box: b, clickable: true, style: pointer, attrs: []string{"class", class}, kids: kids}
	}
	item := func(name string) tnode {
		return tnode{tag: "LI", role: "listitem", box: b, style: pointer, kids: []tnode{text(name, b...)}}
	}
	tests := []struct {
		name string
		body []tnode
		want []string
		kids map[int]int // element index to its number of children
	}{
		{"icons in a clickable row", []tnode{clickable("DIV", "msg",
			text("Ada Lovelace", b...),
			clickable("SPAN", "icon star", text("★", b...)),
			clickable("SPAN", "icon reply"),
		)}, []string{"button Ada Lovelace", "button star icon", "button reply icon"}, map[int]int{0: 2}},
		{"a button in a clickable row", []tnode{clickable("DIV", "msg", text("Grace Hopper", b...), button("Archive", b...))},
			[]string{"button Grace Hopper", "button Archive"}, map[int]int{0: 1}},
		{"items of a popup list that handles their clicks", []tnode{
			{tag: "UL", role: "list", box: b, clickable: true, style: pointer, kids: []tnode{item("Guadeloupe"), item("Guam"), item("Guatemala")}},
		}, []string{"option Guadeloupe", "option Guam", "option Guatemala"}, nil},
		{"items of a focusable list", []tnode{
			{tag: "UL", role: "list", box: b, clickable: true, attrs: []string{"tabindex", "0"}, props: focusable(), kids: []tnode{item("Guam"), item("Guatemala")}},
		}, []string{"list ", "option Guam", "option Guatemala"}, map[int]int{0: 2}},
		{"items of a list nobody clicks", []tnode{
			{tag: "UL", role: "list", box: b, kids: []tnode{item("Guam")}},
		}, []string{}, nil},
		{"a link's clickable text is the link", []tnode{
			{tag: "A", role: "link", name: "Card", box: b, clickable: true, props: focusable(), kids: []tnode{clickable("SPAN", "", text("Card", b...))}},
		}, []string{"link Card"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := build(t, tcapture(tt.body...), Options{}, 0)
			if got := shown(s); !slices.Equal(got, tt.want) {
				t.Fatalf("elements = %q, want %q", got, tt.want)
			}
			for i, n := range tt.kids {
				if len(s.Elements[i].Children) != n {
					t.Errorf("%s has children %q, want %d", s.Elements[i].Ref, s.Elements[i].Children, n)
				}
			}
		})
	}
}

func TestSliderHandle(t *testing.T) {
	t.Parallel()
	b := []float64{0, 0, 20, 20}
	for _, tt := range []struct {
		attrs []string
		value string
	}{
		{[]string{"tabindex", "0", "aria-valuenow", "30"}, "30"},
		{[]string{"tabindex", "0", "aria-valuenow", "3", "aria-valuetext", "3 stars"}, "3 stars"},
	} {
		s, _, _ := build(t, tcapture(tnode{tag: "SPAN", role: "generic", name: "Brightness", box: b, attrs: tt.attrs, props: focusable()}), Options{}, 0)
		if got := shown(s); !slices.Equal(got, []string{"slider Brightness"}) {
			t.Fatalf("elements = %q", got)
		}
		if v := s.Elements[0].Value; v == nil || *v != tt.value {
			t.Errorf("value = %v, want %q", v, tt.value)
		}
	}
}

func TestSelectOptions(t *testing.T) {
	t.Parallel()
	sel := func(box []float64, n int) tnode {
		var opts []tnode
		for i := range n {
			opts = append(opts, tnode{tag: "OPTION", role: "option", name: fmt.Sprint("Year ", 2000+i), props: map[string]any{"selected": i == 1}})
		}
		return tnode{tag: "SELECT", role: "combobox", name: "Year", box: box, props: focusable(), kids: []tnode{{tag: "DIV", role: "MenuListPopup", kids: opts}}}
	}
	s, _, _ := build(t, tcapture(sel([]float64{0, 0, 100, 30}, 3)), Options{}, 0)
	if got := shown(s); !slices.Equal(got, []string{"combobox Year", "option Year 2000", "option Year 2001", "option Year 2002"}) {
		t.Fatalf("elements = %q", got)
	}
	if c := s.Elements[0].Children; len(c) != 3 {
		t.Errorf("children = %q", c)
	}
	if st := s.Elements[2].State; !slices.Equal(st, []string{"hidden", "enabled", "selected"}) {
		t.Errorf("state of the selected option = %q", st)
	}
	if len(s.Notes) != 0 {
		t.Errorf("notes = %q", s.Notes)
	}

	s, _, _ = build(t, tcapture(sel([]float64{0, 0, 100, 30}, 40)), Options{}, 0)
	if n := len(s.Elements[0].Children); n != maxOptions {
		t.Errorf("%d options shown, want %d", n, maxOptions)
	}
	if want := `the select "Year" shows 25 of its 40 options`; len(s.Notes) != 1 || !strings.HasPrefix(s.Notes[0], want) {
		t.Errorf("notes = %q, want one starting %q", s.Notes, want)
	}

	// The options of a select outside the viewport are outside it too.
	s, _, _ = build(t, tcapture(sel([]float64{0, 3000, 100, 30}, 3)), Options{ViewportOnly: true}, 0)
	if len(s.Elements) != 0 {
		t.Errorf("elements = %q", shown(s))
	}
}

func TestModalPageText(t *testing.T) {
	t.Parallel()
	b := func(y float64) []float64 { return []float64{0, y, 300, 20} }
	behind := []tnode{text("Plan details", b(0)...), button("Cancel Membership", b(20)...)}
	tests := []struct {
		name string
		body []tnode
	}{
		{"aria-modal", append(behind, tnode{tag: "DIV", role: "dialog", name: "Special offer", box: b(100), attrs: []string{"aria-modal", "true"}, kids: []tnode{
			text("Special offer", b(100)...), button("Close", b(120)...),
		}})},
		{"modal dialog element", []tnode{
			{tag: "DIV", ignoredReason: "activeModalDialog", box: b(0), kids: []tnode{text("Plan details", b(0)...)}},
			{tag: "DIALOG", role: "dialog", name: "Special offer", box: b(100), kids: []tnode{text("Special offer", b(100)...), button("Close", b(120)...)}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := build(t, tcapture(tt.body...), Options{}, 0)
			e, _ := s.Find("button", "Close")
			if want := "Special offer\n[" + e.Ref + " Close]"; s.Text != want {
				t.Errorf("text = %q, want %q", s.Text, want)
			}
			if want := `modal dialog "Special offer" is open`; len(s.Notes) != 1 || !strings.HasPrefix(s.Notes[0], want) {
				t.Errorf("notes = %q", s.Notes)
			}
		})
	}
	// A dialog that is not modal leaves the page text whole.
	s, _, _ := build(t, tcapture(append(behind, tnode{tag: "DIV", role: "dialog", name: "Tip", box: b(100), kids: []tnode{text("Tip", b(100)...)}})...), Options{}, 0)
	if !strings.HasPrefix(s.Text, "Plan details") || len(s.Notes) != 0 {
		t.Errorf("text %q notes %q", s.Text, s.Notes)
	}
}

func TestIframeAndScroll(t *testing.T) {
	t.Parallel()
	frame := &tframe{url: "https://example.test/frame", vw: 300, vh: 200, kids: []tnode{button("In frame", 0, 30, 80, 20)}}
	iframe := tnode{tag: "IFRAME", role: "Iframe", box: []float64{600, 100, 316, 216}, frame: frame}
	// The iframe's border and padding: client box starts 5 px in, content 3 px further.
	c := tcaptureAt(capture.Viewport{Width: 1280, Height: 720, ScrollY: 50},
		button("Main", 10, 60, 50, 20), iframe, button("After", 10, 400, 50, 20))
	var dom map[string]any
	json.Unmarshal(c.DOM, &dom)
	layout := dom["documents"].([]any)[0].(map[string]any)["layout"].(map[string]any)
	nodes := layout["nodeIndex"].([]any)
	for i := range nodes {
		if b := layout["bounds"].([]any)[i].([]any); b[0].(float64) == 600 {
			layout["clientRects"].([]any)[i] = []any{5, 5, 306, 206}
		}
	}
	c.DOM, _ = json.Marshal(dom)
	s, table, _ := build(t, c, Options{}, 0)
	if got := shown(s); !slices.Equal(got, []string{"button Main", "button In frame", "button After"}) {
		t.Fatalf("elements = %q", got)
	}
	want := []BBox{{10, 10, 50, 20}, {608, 88, 80, 20}, {10, 350, 50, 20}}
	for i, e := range s.Elements {
		if e.BBox != want[i] {
			t.Errorf("%s bbox = %+v, want %+v", e.Name, e.BBox, want[i])
		}
	}
	if tg := table["@e1"]; tg.FrameID == "MAIN" || tg.DocumentURL != "https://example.test/frame" {
		t.Errorf("frame target = %+v", tg)
	}
}

func TestDepthLimit(t *testing.T) {
	t.Parallel()
	b := []float64{0, 0, 100, 20}
	n := button("Deepest", b...)
	for i := 14; i >= 1; i-- {
		n = tnode{tag: "SECTION", role: "region", name: fmt.Sprint("R", i), box: b, kids: []tnode{n}}
	}
	s, _, _ := build(t, tcapture(n), Options{}, 0)
	depth := map[string]int{}
	for _, e := range s.Elements {
		if depth[e.Ref] == 0 {
			depth[e.Ref] = 1
		}
		for _, c := range e.Children {
			depth[c] = depth[e.Ref] + 1
		}
	}
	for ref, d := range depth {
		if d > maxDepth {
			t.Errorf("%s at depth %d", ref, d)
		}
	}
	if len(s.Elements) != 15 {
		t.Errorf("%d elements, want all 15", len(s.Elements))
	}
}

func TestPageText(t *testing.T) {
	t.Parallel()
	b := func(x, y, w float64) []float64 { return []float64{x, y, w, 20} }
	tests := []struct {
		name string
		body []tnode
		opts Options
		want string
	}{
		{"labels tie to refs", []tnode{
			text("Username:", b(0, 0, 80)...), {tag: "INPUT", role: "textbox", name: "Username:", box: b(90, 0, 100)},
			text("Password:", b(200, 0, 80)...), {tag: "INPUT", role: "textbox", box: b(290, 0, 100), attrs: []string{"type", "password"}},
			button("Log in", b(400, 0, 60)...),
		}, Options{}, "Username: [@e0] Password: [@e1] [@e2 Log in]"},
		{"lines and table cells", []tnode{
			{tag: "H1", role: "heading", name: "Plans", box: b(0, 0, 100), props: map[string]any{"level": 1}, kids: []tnode{text("Plans", b(0, 0, 100)...)}},
			{tag: "TABLE", role: "table", box: b(0, 30, 300), kids: []tnode{
				{tag: "TR", role: "row", box: b(0, 30, 300), kids: []tnode{
					{tag: "TD", role: "cell", box: b(0, 30, 100), kids: []tnode{text("Basic", b(0, 30, 50)...)}},
					{tag: "TD", role: "cell", box: b(100, 30, 100), kids: []tnode{text("$5", b(100, 30, 50)...)}},
				}},
				{tag: "TR", role: "row", box: b(0, 50, 300), kids: []tnode{
					{tag: "TD", role: "cell", box: b(0, 50, 100), kids: []tnode{text("Premium", b(0, 50, 50)...)}},
					{tag: "TD", role: "cell", box: b(100, 50, 100), kids: []tnode{text("$20", b(100, 50, 50)...)}},
				}},
			}},
		}, Options{}, "Plans\nBasic | $5\nPremium | $20"},
		{"checkbox label after it", []tnode{
			{tag: "INPUT", role: "checkbox", name: "Agree", box: b(0, 0, 13)}, text("Agree", b(20, 0, 50)...),
		}, Options{}, "[@e0] Agree"},
		{"viewport only", []tnode{text("Top", b(0, 0, 50)...), text("Far below", b(0, 3000, 80)...)}, Options{ViewportOnly: true}, "Top"},
		{"whole page", []tnode{text("Top", b(0, 0, 50)...), text("Far below", b(0, 3000, 80)...)}, Options{}, "Top\nFar below"},
		{"hidden text", []tnode{
			{tag: "DIV", role: "generic", box: b(0, 0, 50), attrs: []string{"aria-hidden", "true"}, kids: []tnode{text("icon", b(0, 0, 50)...)}},
			{tag: "DIV", role: "generic", box: b(0, 20, 50), style: map[string]string{"visibility": "hidden"}, kids: []tnode{text("ghost", b(0, 20, 50)...)}},
			text("shown", b(0, 40, 50)...),
		}, Options{}, "shown"},
		{"budget cuts at element boundaries", []tnode{
			text("First line of text", b(0, 0, 100)...), button("A long button name", b(0, 20, 100)...),
		}, Options{TextBudget: 30}, "First line of text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := build(t, tcapture(tt.body...), tt.opts, 0)
			if s.Text != tt.want {
				t.Errorf("text = %q, want %q", s.Text, tt.want)
			}
			if len(s.Text) > tt.opts.withDefaults().TextBudget {
				t.Errorf("text has %d bytes", len(s.Text))
			}
		})
	}
}

func TestSnapshotFields(t *testing.T) {
	t.Parallel()
	c := tcapture(button("A", 0, 0, 10, 10))
	c.Screenshot = &capture.Screenshot{MIMEType: "image/png", Width: 640, Height: 360, Data: []byte("png")}
	s, _, _ := build(t, c, Options{}, 0)
	if s.Screenshot == nil || string(s.Screenshot.Data) != "png" || s.Screenshot.Width != 640 {
		t.Errorf("screenshot = %+v", s.Screenshot)
	}
	data, _ := json.Marshal(s)
	if bytes.Contains(data, []byte("cG5n")) {
		t.Errorf("screenshot bytes in JSON: %s", data)
	}
	if s.Page.URL != c.URL || s.Page.Title != c.Title || s.Viewport.Width != 1280 || s.Timestamp.Location().String() != "UTC" {
		t.Errorf("page %+v viewport %+v time %v", s.Page, s.Viewport, s.Timestamp)
	}
	c.Screenshot, c.ScreenshotError = nil, "renderer busy"
	s, _, _ = build(t, c, Options{}, 0)
	if s.Screenshot != nil || len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "renderer busy") {
		t.Errorf("screenshot %+v notes %q", s.Screenshot, s.Notes)
	}
}

func TestSchemaCopyInFixtures(t *testing.T) {
	t.Parallel()
	const path = "../fixtures/snapshot.schema.json"
	if *update {
		if err := os.WriteFile(path, schemaJSON, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, schemaJSON) {
		t.Errorf("%s differs from snapshot/schema.json; run go test ./snapshot -update", path)
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	s, _, _ := build(t, tcapture(button("A", 0, 0, 10, 10)), Options{}, 0)
	good, _ := json.Marshal(s)
	tests := map[string]func(m map[string]any){
		"bad ref":       func(m map[string]any) { el(m)["ref"] = "e1" },
		"unknown state": func(m map[string]any) { el(m)["state"] = []any{"glowing"} },
		"no bbox":       func(m map[string]any) { delete(el(m), "bbox") },
		"no id":         func(m map[string]any) { delete(m, "snapshot_id") },
		"extra field":   func(m map[string]any) { m["surprise"] = 1 },
		"focused ref":   func(m map[string]any) { m["focused"] = "button" },
	}
	for name, spoil := range tests {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			json.Unmarshal(good, &m)
			spoil(m)
			bad, _ := json.Marshal(m)
			if Validate(bad) == nil {
				t.Errorf("Validate accepted %s", bad)
			}
		})
	}
}

func el(m map[string]any) map[string]any { return m["elements"].([]any)[0].(map[string]any) }

func TestFind(t *testing.T) {
	t.Parallel()
	s := &Snapshot{Elements: []Element{
		{Ref: "@e0", Role: "heading", Name: "Save your work"},
		{Ref: "@e1", Role: "button", Name: "Save draft"},
		{Ref: "@e2", Role: "button", Name: "Save"},
	}}
	tests := []struct {
		role, name, want string
		ok               bool
	}{
		{"button", "Save", "@e1", true},
		{"button", "", "@e1", true},
		{"heading", "work", "@e0", true},
		{"link", "Save", "", false},
		{"button", "save", "", false},
	}
	for _, tt := range tests {
		e, ok := s.Find(tt.role, tt.name)
		if ok != tt.ok || e.Ref != tt.want {
			t.Errorf("Find(%q, %q) = %s, %v; want %s, %v", tt.role, tt.name, e.Ref, ok, tt.want, tt.ok)
		}
	}
	s.Text = "Save your work\nName: [@e1] Save: * [@e2 Save]"
	for label, want := range map[string]string{"Name": "@e1", "Save": "@e2", "work": "", "Nothing": ""} {
		if e, ok := s.Labelled(label); ok != (want != "") || e.Ref != want {
			t.Errorf("Labelled(%q) = %s, %v; want %s", label, e.Ref, ok, want)
		}
	}
	if e, ok := s.Element("@e2"); !ok || e.Name != "Save" {
		t.Errorf("Element(@e2) = %+v, %v", e, ok)
	}
	if _, ok := s.Element("@e9"); ok {
		t.Error("Element(@e9) found something")
	}
	if got, want := s.Outline(), "@e0 heading \"Save your work\"\n@e1 button \"Save draft\"\n@e2 button \"Save\""; got != want {
		t.Errorf("Outline() = %q, want %q", got, want)
	}
	var none *Snapshot
	if _, ok := none.Find("button", ""); ok {
		t.Error("nil snapshot found something")
	}
}
