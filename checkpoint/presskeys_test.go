package checkpoint

import "testing"

// TestKeysInAFieldAreAFill: a rule that gates filling or selecting in a
// field gates the keys pressed into it, which type or pick an option
// there, but not the keys that only take the focus away, nor keys on
// something that is no field.
func TestKeysInAFieldAreAFill(t *testing.T) {
	t.Parallel()
	fill := ActionRule{Verb: VerbFill, NameMatches: "amount"}
	sel := ActionRule{Verb: VerbSelect, NameMatches: "plan"}
	card := ActionRule{PaymentField: true}
	press := func(role, name, key string, field bool) Action {
		return Action{Verb: VerbPress, Role: role, Name: name, Value: key, Field: field}
	}
	cases := []struct {
		name string
		rule ActionRule
		a    Action
		want bool
	}{
		{"a digit into the amount", fill, press("textbox", "Amount", "9", true), true},
		{"text into the amount", fill, press("textbox", "Amount", "900", true), true},
		{"Backspace in the amount", fill, press("textbox", "Amount", "Backspace", true), true},
		{"Control+V in the amount", fill, press("textbox", "Amount", "Control+V", true), true},
		{"a masked character", fill, press("textbox", "Amount", "••••••••", true), true},
		{"Tab out of the amount", fill, press("textbox", "Amount", "Tab", true), false},
		{"Shift+Tab out of the amount", fill, press("textbox", "Amount", "Shift+Tab", true), false},
		{"Escape in the amount", fill, press("textbox", "Amount", "Escape", true), false},
		{"a digit into another field", fill, press("textbox", "Name", "9", true), false},
		{"ArrowDown on the plan", sel, press("combobox", "Plan", "ArrowDown", true), true},
		{"a letter on the plan", sel, press("combobox", "Plan", "p", true), true},
		{"End on the plan", sel, press("combobox", "Plan", "End", true), true},
		{"a key on a button named plan", sel, press("button", "Plan", "ArrowDown", false), false},
		{"a digit into the card number", card, Action{Verb: VerbPress, Role: "textbox", Name: "Card number", Value: "4", Field: true, Autocomplete: "cc-number"}, true},
		{"Tab out of the card number", card, Action{Verb: VerbPress, Role: "textbox", Name: "Card number", Value: "Tab", Field: true, Autocomplete: "cc-number"}, false},
		{"a fill of the amount", fill, Action{Verb: VerbFill, Role: "textbox", Name: "Amount", Value: "5", Field: true}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.rule.Match(c.a); got != c.want {
				t.Errorf("%+v.Match(%s) = %v, want %v", c.rule, c.a, got, c.want)
			}
		})
	}
}
