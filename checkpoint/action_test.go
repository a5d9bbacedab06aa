package checkpoint

import "testing"

// TestSameSelectCoversOnlyItsOptions: an approval of a select covers the
// very set of options the person saw, not a subset, a superset or another
// order of it.
func TestSameSelectCoversOnlyItsOptions(t *testing.T) {
	t.Parallel()
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

// TestSameIsBoundToItsPlace: an approval of an action on a node covers it
// only on the same page, in the same frame and document, at the same URL,
// and for the same activated control: node ids repeat across tabs and
// documents.
func TestSameIsBoundToItsPlace(t *testing.T) {
	t.Parallel()
	here := Where{Target: "T0", Frame: "F0", Document: "D0", URL: "http://shop/cart?item=pencil"}
	approved := Action{Verb: VerbClick, Node: 12, Role: "button", Name: "Place order", Where: here}
	for _, c := range []struct {
		name  string
		where Where
		same  bool
	}{
		{"the same place", here, true},
		{"another tab", Where{Target: "T1", Frame: "F0", Document: "D0", URL: here.URL}, false},
		{"another frame", Where{Target: "T0", Frame: "F1", Document: "D0", URL: here.URL}, false},
		{"the page reloaded", Where{Target: "T0", Frame: "F0", Document: "D1", URL: here.URL}, false},
		{"another URL", Where{Target: "T0", Frame: "F0", Document: "D0", URL: "http://shop/cart?item=tv"}, false},
		{"nowhere", Where{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := approved
			b.Where = c.where
			if got := approved.Same(b); got != c.same {
				t.Errorf("Same at %+v = %v, want %v", c.where, got, c.same)
			}
		})
	}
	submit := approved
	submit.Verb, submit.Value, submit.Activates = VerbPress, "Enter", &Control{Role: "button", Name: "Pay"}
	other := submit
	other.Activates = &Control{Role: "button", Name: "Pay $6000"}
	none := submit
	none.Activates = nil
	if !submit.Same(submit) || submit.Same(other) || submit.Same(none) {
		t.Errorf("Same ignores the activated control: %v %v %v", submit.Same(submit), submit.Same(other), submit.Same(none))
	}
}

// TestSameIsTheVeryGesture: an approval of a click covers that gesture and
// no other (a double click, another button, keys held), and the person
// reads the gesture.
func TestSameIsTheVeryGesture(t *testing.T) {
	t.Parallel()
	approved := Action{Verb: VerbClick, Node: 4, Role: "button", Name: "Delete all tasks", Gesture: "double click"}
	if got, want := approved.String(), `double click button "Delete all tasks"`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
	for _, g := range []string{"", "triple click", "right click", "Control+double click", "middle click"} {
		b := approved
		b.Gesture = g
		if approved.Same(b) || b.Same(approved) {
			t.Errorf("an approval of %q covers %q", approved, b)
		}
	}
	if !approved.Same(approved) {
		t.Error("an approval does not cover its own gesture")
	}
	if lines := (Request{Concrete: &approved}).Lines(); len(lines) == 0 || lines[0] != "Action: double click" {
		t.Errorf("the person's card says %q, want the gesture first", lines)
	}
	// A gesture names a click only.
	drag := Action{Verb: VerbDrag, Role: "listitem", Name: "A", Value: `listitem "B"`, Gesture: "double click"}
	if got, want := drag.String(), `drag listitem "A" to listitem "B"`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}
