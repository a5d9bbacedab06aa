package checkpoint

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestFailuresInFieldValues: a failure indicator holds on a field's value
// the page put there (a read-only field that looks like a line of text),
// but not on one that holds only what the agent typed; the page's words
// around what the agent typed still count.
func TestFailuresInFieldValues(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile([]byte(`{"name":"verdict","success_indicators":[{"text_contains":"Membership cancelled"}],
		"failure_indicators":[{"text_contains":"could not"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGate(p, nil, Options{})
	field := func(v string) snapshot.Element {
		return snapshot.Element{Ref: "@e2", Role: "textbox", Name: "Status", Value: &v}
	}
	cases := []struct {
		name  string
		value string
		typed []string
		fails bool
	}{
		{"the page's value", "We could not cancel your membership.", nil, true},
		{"the page's value, the agent typed other things", "We could NOT cancel.", []string{"hello"}, true},
		{"what the agent typed", "I could not find it at first.", []string{"I could not find it at first."}, false},
		{"part of what the agent typed, key by key", "could not find", []string{"I could not find it"}, false},
		{"the page's words around what the agent typed", "Error: we could not save: hi", []string{"hi"}, true},
		{"no failure", "All good", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := judgedPage("https://shop.example/account", "Account", "Membership cancelled", nil, field(c.value))
			ev := Evidence{Typed: c.typed}
			if got := len(g.Failures(page, ev)) > 0; got != c.fails {
				t.Errorf("Failures with value %q, typed %q = %v, want %v", c.value, c.typed, got, c.fails)
			}
			holds := false
			for _, in := range g.Evaluate(page, ev) {
				holds = holds || (in.Kind == "failure" && in.Holds)
			}
			if holds != c.fails {
				t.Errorf("Evaluate's failure with value %q = %v, want %v", c.value, holds, c.fails)
			}
			if *page.Elements[0].Value != c.value {
				t.Errorf("Failures changed the page's value to %q", *page.Elements[0].Value)
			}
		})
	}
}
