package tools

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestHoverOpensAMenu(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/variants/hover", Config{Caps: []string{toolapi.CapHover}})
	s := h.snap(true)
	if _, ok := s.Find("menuitem", "Sign out"); ok {
		t.Fatalf("the menu shows before the hover:\n%s", s.Outline())
	}
	r := h.ok(toolapi.Hover, map[string]any{"ref": browsertest.Ref(t, s, "button", "Account menu")})
	signOut := browsertest.Ref(t, r.Snapshot, "menuitem", "Sign out")
	// The menu stays open while the pointer is over it: its item can be
	// clicked next, as a person would.
	r = h.ok(toolapi.Click, map[string]any{"ref": signOut})
	if got := r.Snapshot.Page.URL; got != h.site+"/help" {
		t.Errorf("clicking the hover menu's item led to %s", got)
	}
}
