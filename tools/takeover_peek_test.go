package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// While a person has the browser, the agent's calls are refused, and what
// they answer shows nothing of the page the person acts on: not the
// password they are typing, echoed by the page, nor its URL, nor a
// screenshot. Every tool answers so.
func TestTakeoverAgentSeesNothingWhileTaken(t *testing.T) {
	t.Parallel()
	h := open(t, "/hostile/takeover-password")
	h.snap(true)
	h.s.TakeOver()
	ctx := t.Context()
	const typed = "Peek-Secret-93"
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := h.s.PersonInput(ctx, browser.PersonInput{Type: typ, X: 240, Y: 138, Button: "left", ClickCount: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range typed {
		for _, typ := range []string{"keyDown", "keyUp"} {
			if err := h.s.PersonInput(ctx, browser.PersonInput{Type: typ, Key: string(r), Text: string(r)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, call := range []struct {
		name string
		args any
	}{
		{toolapi.GetSnapshot, map[string]any{"viewport_only": false}},
		{toolapi.Click, map[string]any{"ref": "@e1"}},
		{toolapi.Extract, map[string]any{}},
	} {
		out := h.call(call.name, call.args)
		data, err := json.Marshal(out.Value)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(string(data)), "peek-secret") {
			t.Errorf("%s while a person has the browser shows what they type: %s", call.name, data)
		}
		if out.Image != nil {
			t.Errorf("%s while a person has the browser carries a screenshot", call.name)
		}
	}
}
