package checkpoint

import "testing"

// TestSameSelectCoversOnlyItsOptions: an approval of a select covers the
// very set of options the person saw, not a subset, a superset or another
// order of it.
func TestSameSelectCoversOnlyItsOptions(t *testing.T) {
	drama, jazz, rock := Option{Text: "Drama", Value: "drama"}, Option{Text: "Jazz", Value: "jazz"}, Option{Text: "Rock", Value: "rock"}
	approved := Action{Verb: VerbSelect, Node: 7, Role: "listbox", Name: "Genres", Options: []Option{drama, jazz}}
	for _, c := range []struct {
		name    string
		options []Option
		same    bool
	}{
		{"the same set", []Option{drama, jazz}, true},
		{"a subset", []Option{drama}, false},
		{"a superset", []Option{drama, jazz, rock}, false},
		{"another set of the same size", []Option{drama, rock}, false},
		{"none", nil, false},
		{"the same text, another value", []Option{drama, {Text: "Jazz", Value: "jazz-fusion"}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := approved
			b.Options = c.options
			if got := approved.Same(b); got != c.same {
				t.Errorf("Same(%s) = %v, want %v", b, got, c.same)
			}
		})
	}
	if got, want := approved.String(), `select "Drama" (value "drama"), "Jazz" (value "jazz") in listbox "Genres"`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}
