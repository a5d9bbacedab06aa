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

// Labelled returns the element whose ref the page text shows right after
// label, as "Username: [@e5]" ties a field to the plain text before it: how
// a field with no name of its own is told apart from the others.
func (s *Snapshot) Labelled(label string) (Element, bool) {
	if s == nil || label == "" {
		return Element{}, false
	}
	for from := 0; ; {
		i := strings.Index(s.Text[from:], label)
		if i < 0 {
			return Element{}, false
		}
		from += i + len(label)
		rest := strings.TrimLeft(s.Text[from:], ": *")
		if !strings.HasPrefix(rest, "[@e") {
			continue
		}
		if end := strings.IndexAny(rest, " ]"); end > 0 {
			if e, ok := s.Element(rest[1:end]); ok {
				return e, true
			}
		}
	}
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
