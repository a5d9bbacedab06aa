package browsertest

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Ref returns the ref of the first element of s with the role whose name
// contains name, as [snapshot.Snapshot.Find] finds it; it fails the test,
// showing the elements there are, if there is none.
func Ref(t testing.TB, s *snapshot.Snapshot, role, name string) string {
	t.Helper()
	e, ok := s.Find(role, name)
	if !ok {
		t.Fatalf("no %s named %q in the snapshot of %s; have:\n%s", role, name, s.Page.URL, s.Outline())
	}
	return e.Ref
}

// Labelled returns the ref of the element the page text ties to label, as
// "Username: [@e5]": a field labelled by plain text only has no name of its
// own to be found by. It fails the test if the text ties nothing to label.
func Labelled(t testing.TB, s *snapshot.Snapshot, label string) string {
	t.Helper()
	e, ok := s.Labelled(label)
	if !ok {
		t.Fatalf("the page text of %s ties no element to %q:\n%s", s.Page.URL, label, s.Text)
	}
	return e.Ref
}
