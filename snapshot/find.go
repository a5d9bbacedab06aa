package snapshot

import (
	"fmt"
	"strings"
)

// Find returns the first element, in the snapshot's order, whose role is role
// and whose name contains name (case-sensitive; "" matches any name).
func (s *Snapshot) Find(role, name string) (Element, bool) {
	if s == nil {
		return Element{}, false
	}
	for _, e := range s.Elements {
		if e.Role == role && strings.Contains(e.Name, name) {
			return e, true
		}
	}
	return Element{}, false
}

// Element returns the element with the given ref.
func (s *Snapshot) Element(ref string) (Element, bool) {
	if s == nil {
		return Element{}, false
	}
	for _, e := range s.Elements {
		if e.Ref == ref {
			return e, true
		}
	}
	return Element{}, false
}

// Outline lists the elements one per line as `@e3 button "Save"`, for
// messages that say what a snapshot holds.
func (s *Snapshot) Outline() string {
	if s == nil {
		return ""
	}
	lines := make([]string, len(s.Elements))
	for i, e := range s.Elements {
		lines[i] = fmt.Sprintf("%s %s %q", e.Ref, e.Role, e.Name)
	}
	return strings.Join(lines, "\n")
}
