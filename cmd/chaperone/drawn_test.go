package main

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestDrawnControls (issue 31, items 3 and 5), over stdio against the
// built binary: a person clicks what they see, so a click by ref goes
// where the element is drawn — an icon drawn by ::before or ::after outside
// a button of no size or whose centre something covers, an icon font's
// glyph overflowing an element of no width — and a control a person cannot
// point at (transparent, 1×1, clipped to nothing, covered) is clicked
// through its visible label; the page's own listener hears it, and its
// status line says so.
func TestDrawnControls(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	tests := []struct {
		name, page string
		steps      []widgetStep
	}{
		{"::before outside a button of no size", "/drawn/post", []widgetStep{
			{tool: toolapi.Click, role: "button", name: "⋯", nth: 1, want: "Menu of @cras"},
		}},
		{"::after beside a covered button", "/drawn/post", []widgetStep{
			{tool: toolapi.Click, role: "button", name: "↪", nth: 2, want: "Shared the post by @lior"},
		}},
		{"icon font glyph overflowing an element of no width", "/drawn/post", []widgetStep{
			{tool: toolapi.Click, role: "button", name: "like icon", nth: 1, want: "Liked the post by @cras"},
		}},
		{"TodoMVC toggle-all, 1×1, its label listened to", "/drawn/todo?toggle=label", []widgetStep{
			{tool: toolapi.Click, role: "checkbox", name: "❯ Mark all as complete", want: "0 items left"},
		}},
		{"TodoMVC toggle-all, 1×1, its change listened to", "/drawn/todo", []widgetStep{
			{tool: toolapi.Click, role: "checkbox", name: "❯ Mark all as complete", want: "0 items left"},
		}},
		{"TodoMVC toggle-all covered by the first todo's toggle", "/drawn/todo?css=old", []widgetStep{
			{tool: toolapi.Click, role: "checkbox", name: "❯ Mark all as complete", want: "0 items left"},
		}},
		{"checkbox clipped to nothing, reached through its label", "/drawn/labels", []widgetStep{
			{tool: toolapi.Click, role: "checkbox", name: "Use large text", want: "Large text: on"},
		}},
		{"transparent 1×1 checkbox beside its label", "/drawn/labels", []widgetStep{
			{tool: toolapi.Click, role: "checkbox", name: "Show tips", want: "Tips: on"},
		}},
		{"checkbox of no size inside the label that draws its switch", "/drawn/labels", []widgetStep{
			{tool: toolapi.Click, role: "checkbox", name: "Notifications", want: "Notifications: on"},
		}},
		{"transparent radio under the pill its label draws", "/drawn/labels", []widgetStep{
			{tool: toolapi.Click, role: "radio", name: "Dark", want: "Theme: dark"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+tt.page, "--profile", "none")
			s := getSnapshot(t, c)
			for _, st := range tt.steps {
				// What a person sees is not "hidden" to the agent.
				for _, e := range s.Elements {
					if e.Role == st.role && e.Name == st.name && slices.Contains(e.State, "hidden") {
						t.Errorf("%s %q is shown to the agent as hidden:\n%s", st.role, st.name, s.Render())
					}
				}
				s = widgetAct(t, c, s, st)
			}
		})
	}
}

// TestFillConsumed (issue 31, item 5): a field the page empties as it
// takes the value (an app that adds a todo on the field's change, or on
// Enter) is a fill that succeeded and says what the page did; a page that
// empties the field and shows nothing of the value, or another value, or
// keeps it only where no one sees it, or had shown it before the change
// already, is still action_failed: the value approved is not what the
// page holds.
func TestFillConsumed(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	tests := []struct {
		name, page, role, field string
		// enter presses Enter in the field after the fill.
		enter bool
		// took says the fill must succeed, saying the page took the
		// value; else it must fail as action_failed.
		took bool
		want string
	}{
		{"todo added on change", "/drawn/todo?via=change", "textbox", "What needs to be done?", false, true, "3 items left"},
		{"todo added on keydown Enter", "/drawn/todo", "textbox", "What needs to be done?", true, false, "3 items left"},
		{"todo added on keyup Enter", "/drawn/todo?via=keyup", "textbox", "What needs to be done?", true, false, "3 items left"},
		{"note taken on change", "/hostile/fill-consumed?mode=take", "textbox", "New note", false, true, "Buy milk"},
		{"note taken into a shadow root on change", "/hostile/fill-consumed?mode=shadow", "textbox", "New note", false, true, "Buy milk"},
		{"emptied, nothing shown", "/hostile/fill-consumed?mode=drop", "textbox", "New note", false, false, ""},
		{"emptied, another value shown", "/hostile/fill-consumed?mode=rewrite", "textbox", "New note", false, false, "Buy silk"},
		{"emptied, kept where no one sees it", "/hostile/fill-consumed?mode=hidden", "textbox", "New note", false, false, ""},
		{"emptied, shown transparent", "/hostile/fill-consumed?mode=faint", "textbox", "New note", false, false, ""},
		{"emptied, shown off the page's edge", "/hostile/fill-consumed?mode=away", "textbox", "New note", false, false, ""},
		{"emptied, shown as typed before the change", "/hostile/fill-consumed?mode=preview", "textbox", "New note", false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+tt.page, "--profile", "none")
			s := getSnapshot(t, c)
			ref := widgetRef(t, s, tt.role, tt.field, 0)
			r, after := act(t, c, toolapi.Fill, map[string]any{"ref": ref, "value": "Buy milk"})
			consumed := !tt.enter
			switch {
			case consumed && tt.took && (!r.Success || !strings.Contains(r.Message, "the page took the value")):
				t.Fatalf("fill: success %v, error %v, %q; want success saying the page took the value\n%s", r.Success, r.Error, r.Message, after.Render())
			case consumed && !tt.took && (r.Success || r.Error == nil || *r.Error != "action_failed" || !strings.Contains(r.Message, `holds ""`)):
				t.Fatalf("fill: success %v, error %v, %q; want action_failed saying the field holds \"\"\n%s", r.Success, r.Error, r.Message, after.Render())
			case !consumed && !r.Success:
				t.Fatalf("fill: error %v, %q", *r.Error, r.Message)
			}
			if tt.enter {
				r, after = act(t, c, toolapi.PressKey, map[string]any{"ref": widgetRef(t, after, tt.role, tt.field, 0), "key": "Enter"})
				if !r.Success {
					t.Fatalf("Enter: error %v, %q", *r.Error, r.Message)
				}
			}
			if tt.want != "" && !strings.Contains(after.Text, tt.want) {
				t.Errorf("the page text lacks %q:\n%s", tt.want, after.Render())
			}
		})
	}
}

// TestStandInAdvice (issue 31, item 5): a transparent control with no
// label, under the switch the page draws in its place, is refused for a
// click as covered, but the refusal says what a person does instead (the
// key, the stand-in) rather than "close it"; the key it names, on the same
// ref, works. A control covered by a dialog keeps the old advice.
func TestStandInAdvice(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/drawn/labels", "--profile", "none")
	s := getSnapshot(t, c)
	ref := widgetRef(t, s, "checkbox", "Compact view", 0)
	r, after := act(t, c, toolapi.Click, map[string]any{"ref": ref})
	if r.Success || r.Error == nil || *r.Error != "element_obscured" {
		t.Fatalf("click: success %v, error %v, %q; want element_obscured", r.Success, r.Error, r.Message)
	}
	if strings.Contains(r.Message, "close it") || !strings.Contains(r.Message, `key "Space"`) {
		t.Errorf("the advice does not name the key instead of closing: %q", r.Message)
	}
	if strings.Contains(after.Text, "Compact view: on") {
		t.Fatalf("a refused click toggled the switch:\n%s", after.Render())
	}
	ref = widgetRef(t, after, "checkbox", "Compact view", 0)
	r, after = act(t, c, toolapi.PressKey, map[string]any{"ref": ref, "key": "Space"})
	if !r.Success || !strings.Contains(after.Text, "Compact view: on") {
		t.Fatalf("Space on the switch: success %v, error %v, %q\n%s", r.Success, r.Error, r.Message, after.Render())
	}

	c, _, _ = stdioClient(t, nil, "serve", "--url", site.URL+"/variants/modal", "--profile", "none")
	s = getSnapshot(t, c)
	r, _ = act(t, c, toolapi.Click, map[string]any{"ref": widgetRef(t, s, "button", "Cancel Membership", 0)})
	if r.Success || r.Error == nil || *r.Error != "element_obscured" || !strings.Contains(r.Message, "close it") {
		t.Errorf("a button under a dialog: success %v, error %v, %q; want element_obscured saying to close it", r.Success, r.Error, r.Message)
	}
}
