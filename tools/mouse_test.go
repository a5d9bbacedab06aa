package tools

import (
	"errors"
	"slices"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestMouseArguments: browser_click's button, count and modifiers are read
// as people write them (any case; Ctrl, Cmd, Command, Option), each key
// once, in one order, and named to a person as one gesture; what no mouse
// has is invalid_params.
func TestMouseArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      mouseInput
		button  string
		count   int
		keys    []string
		gesture string
	}{
		{mouseInput{}, "left", 1, nil, ""},
		{mouseInput{Button: "LEFT", Count: 1}, "left", 1, nil, ""},
		{mouseInput{Count: 2}, "left", 2, nil, "double click"},
		{mouseInput{Count: 3}, "left", 3, nil, "triple click"},
		{mouseInput{Button: "right"}, "right", 1, nil, "right click"},
		{mouseInput{Button: " Middle "}, "middle", 1, nil, "middle click"},
		{mouseInput{Modifiers: []string{"ctrl"}}, "left", 1, []string{"Control"}, "Control+click"},
		{mouseInput{Modifiers: []string{"Shift", "Control", "control", "CTRL"}}, "left", 1, []string{"Control", "Shift"}, "Control+Shift+click"},
		{mouseInput{Modifiers: []string{"Cmd"}, Count: 2}, "left", 2, []string{"Meta"}, "Meta+double click"},
		{mouseInput{Modifiers: []string{"command", "option"}, Button: "right"}, "right", 1, []string{"Alt", "Meta"}, "Alt+Meta+right click"},
	}
	for _, tc := range tests {
		m, g, err := tc.in.mouse()
		if err != nil {
			t.Errorf("%+v: %v", tc.in, err)
			continue
		}
		if m.Button != tc.button || m.Count != tc.count || !slices.Equal(m.Modifiers, tc.keys) || g != tc.gesture {
			t.Errorf("%+v: %+v %q, want %s %d %v %q", tc.in, m, g, tc.button, tc.count, tc.keys, tc.gesture)
		}
	}
	for _, bad := range []mouseInput{
		{Button: "back"}, {Button: "left-ish"}, {Count: 4}, {Count: -1},
		{Modifiers: []string{"Hyper"}}, {Modifiers: []string{""}}, {Modifiers: []string{"Control+Shift"}},
	} {
		_, _, err := bad.mouse()
		var p *problem
		if !errors.As(err, &p) || p.code != toolapi.InvalidParams {
			t.Errorf("%+v: %v, want invalid_params", bad, err)
		}
	}
}

// TestClickGesturesAreGated: under a profile that gates clicks on a
// button, each gesture on it asks, the person reading the gesture; a bad
// gesture is invalid_params before anyone is asked, and a dialog's
// buttons take only a plain click.
func TestClickGesturesAreGated(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/widgets/tasks", `{"name":"tasks","gated_actions":[{"name":"purge","verb":"click","name_matches":"delete all"}]}`, false, Config{})
	for _, tc := range []struct {
		args  map[string]any
		shown string
	}{
		{map[string]any{"count": 2}, `double click button "Delete all tasks"`},
		{map[string]any{"button": "right"}, `right click button "Delete all tasks"`},
		{map[string]any{"modifiers": []string{"Shift", "Ctrl"}}, `Control+Shift+click button "Delete all tasks"`},
	} {
		tc.args["ref"] = browsertest.Ref(t, g.snap(true), "button", "Delete all tasks")
		before := len(g.person.Requests())
		r := g.act(toolapi.Click, tc.args)
		wantError(t, r, toolapi.HumanRejected)
		asked := g.person.Requests()
		if len(asked) != before+1 || asked[len(asked)-1].Concrete == nil || asked[len(asked)-1].Concrete.String() != tc.shown {
			t.Fatalf("%v: the person was asked %+v, want once about %q", tc.args, asked[before:], tc.shown)
		}
		if got := g.evalString(`document.getElementById('log').textContent`); got != "No action yet" {
			t.Fatalf("%v: a rejected click acted: %q", tc.args, got)
		}
	}
	before := len(g.person.Requests())
	r := g.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, g.snap(true), "button", "Delete all tasks"), "count": 9})
	wantError(t, r, toolapi.InvalidParams)
	if len(g.person.Requests()) != before {
		t.Error("a person was asked about a click no mouse makes")
	}
}

// TestDialogButtonsTakeAPlainClick: a JavaScript dialog's OK takes no
// other button, count or keys: invalid_params, the dialog still open and
// answerable with a plain click.
func TestDialogButtonsTakeAPlainClick(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/dialogs")
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, h.snap(true), "button", "Delete item")})
	for _, args := range []map[string]any{{"count": 2}, {"button": "right"}, {"modifiers": []string{"Shift"}}} {
		args["ref"] = browsertest.Ref(t, r.Snapshot, "button", "OK")
		r = h.act(toolapi.Click, args)
		wantError(t, r, toolapi.InvalidParams)
		if !dialogOpen(r.Snapshot) {
			t.Fatalf("%v: the dialog closed", args)
		}
	}
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "OK")})
	if got := h.evalString(`document.querySelector('#confirm-result').textContent`); got != "true" {
		t.Errorf("the page got %q after OK", got)
	}
}
