package browser

import "testing"

func TestSameOptions(t *testing.T) {
	t.Parallel()
	basic := Selection{Value: "basic", Text: "Basic $5"}
	for _, tc := range []struct {
		name          string
		approved, now []Selection
		same          bool
	}{
		{"the same option", []Selection{basic}, []Selection{basic}, true},
		{"none approved, none picked", []Selection{}, []Selection{}, true},
		{"renamed", []Selection{basic}, []Selection{{Value: "basic", Text: "Premium annual $6000"}}, false},
		{"revalued", []Selection{basic}, []Selection{{Value: "premium-annual", Text: "Basic $5"}}, false},
		{"one more", []Selection{basic}, []Selection{basic, {Value: "x", Text: "X"}}, false},
		{"in another order", []Selection{basic, {Value: "x", Text: "X"}}, []Selection{{Value: "x", Text: "X"}, basic}, false},
		{"a closed combobox's text, up to case and spacing", []Selection{{Text: "basic  $5"}}, []Selection{{Value: "b", Text: "Basic $5"}}, true},
		{"a closed combobox's text, another option", []Selection{{Text: "Basic $5"}}, []Selection{{Value: "b", Text: "Basic $50"}}, false},
	} {
		if got := sameOptions(tc.approved, tc.now); got != tc.same {
			t.Errorf("%s: sameOptions = %v, want %v", tc.name, got, tc.same)
		}
	}
}
