package tools

import (
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestRequestShowsWhatWillHappen: the person reads the value a fill types
// (masked for a password), the option a select will choose (text and
// value) and the dialog an answer is about. The lines each request shows
// are logged: they are the examples of approval prompts.
func TestRequestShowsWhatWillHappen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, page, profile string
		// act takes the action on a whole-page snapshot.
		act func(h *harness, s *snapshot.Snapshot)
		// want checks the action the person was shown.
		want func(t *testing.T, a *checkpoint.Action)
		// hidden must not be in what the person reads.
		hidden string
	}{
		{"click", "/variants/checkout", "default",
			func(h *harness, s *snapshot.Snapshot) {
				h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(h.t, s, "button", "Place order")})
			},
			func(t *testing.T, a *checkpoint.Action) {
				if a.Verb != checkpoint.VerbClick || a.Name != "Place order — $129" || !a.SubmitsPayment {
					t.Errorf("shown %+v", a)
				}
			}, ""},
		{"fill", "/variants/checkout", "default",
			func(h *harness, s *snapshot.Snapshot) {
				h.act(toolapi.Fill, map[string]any{"ref": browsertest.Ref(h.t, s, "textbox", "Card number"), "value": "4242 4242 4242 4242"})
			},
			func(t *testing.T, a *checkpoint.Action) {
				if a.Verb != checkpoint.VerbFill || a.Value != "4242 4242 4242 4242" || a.Masked || a.Autocomplete != "cc-number" {
					t.Errorf("shown %+v", a)
				}
			}, ""},
		{"fill a password", "/variants/form", `{"name":"profile","checkpoints":[{"url_contains":"/variants/form"}]}`,
			func(h *harness, s *snapshot.Snapshot) {
				h.act(toolapi.Fill, map[string]any{"ref": refOfKind(h.t, s, "password"), "value": "n3w-pa55word"})
			},
			func(t *testing.T, a *checkpoint.Action) {
				if a.Verb != checkpoint.VerbFill || !a.Masked || a.Value == "" {
					t.Errorf("shown %+v", a)
				}
			}, "n3w-pa55word"},
		{"select", "/survey", `{"name":"survey","checkpoints":[{"title_contains":"survey"}]}`,
			func(h *harness, s *snapshot.Snapshot) {
				h.act(toolapi.Select, map[string]any{"ref": browsertest.Ref(h.t, s, "combobox", "How long"), "value": "1 to 3 years"})
			},
			func(t *testing.T, a *checkpoint.Action) {
				if a.Verb != checkpoint.VerbSelect || !slices.Equal(a.Options, []checkpoint.Option{{Text: "1 to 3 years", Value: "1to3"}}) {
					t.Errorf("shown %+v (options %+v)", a, a.Options)
				}
			}, ""},
		{"answer a dialog", "/variants/checkout", `{"name":"leave","checkpoints":[{"dialog":{"type":"confirm","message_contains":"leave checkout"}}]}`,
			func(h *harness, s *snapshot.Snapshot) {
				r := h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(h.t, s, "button", "Cancel")})
				h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(h.t, r.Snapshot, "button", "OK")})
			},
			func(t *testing.T, a *checkpoint.Action) {
				if a.Dialog == nil || a.Dialog.Type != "confirm" || a.Dialog.Message != "Leave checkout? Your cart is kept." || a.Name != "OK" {
					t.Errorf("shown %+v (dialog %+v)", a, a.Dialog)
				}
			}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := openGated(t, tc.page, tc.profile, false, Config{})
			tc.act(g.sub(t), g.snap(false))
			asked := g.person.Requests()
			if len(asked) != 1 || asked[0].Concrete == nil {
				t.Fatalf("the person was asked %d times, want once about a concrete action", len(asked))
			}
			tc.want(t, asked[0].Concrete)
			lines := asked[0].Lines()
			if tc.hidden != "" && strings.Contains(strings.Join(lines, "\n"), tc.hidden) {
				t.Errorf("the person reads the password: %q", lines)
			}
			t.Logf("approval prompt (%s):\n\t%s", tc.name, strings.Join(lines, "\n\t"))
		})
	}
}
