package redact

import (
	"cmp"
	"slices"
	"strings"
)

// minFragment is the fewest characters of a value that Fragments hides: a
// shorter run of a value is found by chance in ordinary text too often.
const minFragment = 4

// Fragments returns a Redactor that hides every run of characters of the
// values r knows that is long enough to tell a good part of one (a third of
// it, and at least minFragment characters), each by the value's stand-in, in
// the forms String reads (any case, percent-, HTML- or JSON-escaped,
// separators between its characters). It is for text a page writes freely,
// which the page may cut a value into: a console message per half, one
// request's URL per half, a string cut where a log or a preview cuts it.
// Values shorter than minSubstring are left to r: their runs are too short
// to tell from chance. It knows what r knows now, not what r learns later.
func (r *Redactor) Fragments() *Redactor {
	r.mu.RLock()
	raws := map[string]string{}
	for _, v := range r.values {
		if _, ok := raws[v.raw]; !ok {
			raws[v.raw] = v.stand
		}
	}
	r.mu.RUnlock()
	f := &Redactor{}
	seen := map[string]bool{}
	for _, raw := range slices.Sorted(func(yield func(string) bool) {
		for k := range raws {
			if !yield(k) {
				return
			}
		}
	}) {
		runes := []rune(raw)
		n := len(runes)
		if n < minSubstring {
			continue
		}
		k := max(minFragment, (n+2)/3)
		// One form per suffix, matched by its first k characters or
		// more (value.least): the fragments starting at one place.
		for from := 0; from+k <= n; from++ {
			runes := foldString(string(runes[from:]))
			if seen[string(runes)] {
				continue
			}
			seen[string(runes)] = true
			f.values = append(f.values, value{raw: raw, text: string(runes), runes: runes, stand: raws[raw], least: k})
		}
	}
	slices.SortStableFunc(f.values, func(a, b value) int {
		return cmp.Or(len(b.runes)-len(a.runes), strings.Compare(a.text, b.text))
	})
	f.index()
	return f
}
