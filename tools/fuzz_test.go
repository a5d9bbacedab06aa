package tools

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// FuzzRefLookup looks arbitrary refs up in a live table: exactly the refs in
// the table are found; anything else is ref_invalid with a message a person
// or a model can read (no control characters, valid UTF-8), never a panic.
func FuzzRefLookup(f *testing.F) {
	for _, seed := range []string{"@e1", "@e42", "@e2", "e1", "@e", "@e01", "@e1\n", "@E1", " @e1", "@e١", "@e99999999999999999999", "\x1b[31m@e1"} {
		f.Add(seed)
	}
	live := snapshot.Table{
		"@e1":  {Ref: "@e1", BackendNodeID: 1, Role: "button", Name: "Buy"},
		"@e42": {Ref: "@e42", BackendNodeID: 42, Role: "link", Name: "Home"},
	}
	s := &Session{live: live}
	f.Fuzz(func(t *testing.T, ref string) {
		got, err := s.target(ref)
		want, ok := live[ref]
		if ok {
			if err != nil || got != want {
				t.Fatalf("target(%q) = %+v, %v; want %+v", ref, got, err, want)
			}
			return
		}
		var p *problem
		if !errors.As(err, &p) || p.code != toolapi.RefInvalid {
			t.Fatalf("target(%q) = %+v, %v; want ref_invalid", ref, got, err)
		}
		if !utf8.ValidString(p.msg) || strings.ContainsFunc(p.msg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("target(%q): message %q carries control characters or bad UTF-8", ref, p.msg)
		}
		if refPattern.MatchString(ref) != !strings.Contains(p.msg, "is not a ref") {
			t.Errorf("target(%q): message %q disagrees with the ref pattern", ref, p.msg)
		}
	})
}
