package tools

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestTextChords: a text is typed a key per character, and judged by its
// first Enter, else its first space, else its first character.
func TestTextChords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, keys, judged string
	}{
		{"ls", "l s", "l"},
		{"a b", "a Space b", "Space"},
		{"ls -la\n", "l s Space - l a Enter", "Enter"},
		{"x\r\ny\n", "x Enter y Enter", "Enter"},
		{"A\tb", "A Tab b", "A"},
	}
	for _, tc := range tests {
		chords, judged, err := textChords(tc.text)
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		var names []string
		for _, c := range chords {
			names = append(names, c.Name)
		}
		if got := strings.Join(names, " "); got != tc.keys || judged.Name != tc.judged {
			t.Errorf("%q: keys %q judged by %s, want %q judged by %s", tc.text, got, judged.Name, tc.keys, tc.judged)
		}
	}
	if _, _, err := textChords("a\x01"); err == nil {
		t.Error("a control character was typed")
	}
}

// TestTypedEnterIsGated: a text typed with browser_press_key that ends in
// Enter, in a field of the payment form, submits it as Enter alone does, so
// the default policy asks a person first; rejected, nothing is typed.
func TestTypedEnterIsGated(t *testing.T) {
	t.Parallel()
	g := openGated(t, "/variants/checkout", "default", false, Config{})
	s := g.snap(false)
	r := g.act(toolapi.PressKey, map[string]any{"text": "SAVE10\n", "ref": browsertest.Ref(t, s, "textbox", "Coupon code")})
	asked := g.person.Requests()
	if len(asked) != 1 || asked[0].Concrete == nil {
		t.Fatalf("the person was asked %d times, want once with the concrete press", len(asked))
	}
	if a := asked[0].Concrete; a.Verb != checkpoint.VerbPress || a.String() != `press textbox "Coupon code" with key Enter` {
		t.Errorf("the person saw %q", a)
	}
	wantError(t, r, toolapi.HumanRejected)
	if strings.Contains(r.Snapshot.Page.URL, "order-placed") {
		t.Fatal("a rejected Enter placed the order")
	}
}
