package tools

import (
	"bytes"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestPressKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// steps runs on a fresh /variants/keys and checks the outcome.
		steps func(h *harness)
	}{
		{"Enter submits a form that has no button", func(h *harness) {
			s := h.snap(true)
			box := browsertest.Ref(h.t, s, "searchbox", "Search titles")
			r := h.ok(toolapi.Fill, map[string]any{"ref": box, "value": "space opera"})
			r = h.ok(toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(h.t, r.Snapshot, "searchbox", "Search titles")})
			if !strings.Contains(r.Snapshot.Page.URL, "/variants/search-results?q=space+opera") {
				h.t.Fatalf("after Enter the page is %s, want the results of the search", r.Snapshot.Page.URL)
			}
			if got := h.evalString(`document.getElementById('query').textContent`); got != "space opera" {
				h.t.Errorf("the results page shows the query %q", got)
			}
		}},
		{"Escape closes a modal", func(h *harness) {
			s := h.snap(true)
			r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(h.t, s, "button", "Open newsletter")})
			if _, ok := r.Snapshot.Find("dialog", "Join our newsletter"); !ok {
				h.t.Fatalf("the modal did not open:\n%s", r.Snapshot.Outline())
			}
			r = h.ok(toolapi.PressKey, map[string]any{"key": "Escape"})
			if _, ok := r.Snapshot.Find("dialog", "Join our newsletter"); ok {
				h.t.Fatalf("Escape left the modal open:\n%s", r.Snapshot.Outline())
			}
			if !strings.Contains(r.Message, "Pressed Escape on button \"Join\"") {
				h.t.Errorf("message %q does not say the key went to the focused Join button", r.Message)
			}
		}},
		{"Control+A then typing replaces a field", func(h *harness) {
			s := h.snap(true)
			h.ok(toolapi.PressKey, map[string]any{"key": "Control+A", "ref": browsertest.Ref(h.t, s, "textbox", "Nickname")})
			h.ok(toolapi.PressKey, map[string]any{"key": "Z"})
			if got := h.evalString(`document.getElementById('nickname').value`); got != "Z" {
				h.t.Fatalf("nickname = %q, want Z: Control+A did not select the old value", got)
			}
		}},
		{"Tab moves focus to the next field", func(h *harness) {
			s := h.snap(true)
			r := h.ok(toolapi.PressKey, map[string]any{"key": "Tab", "ref": browsertest.Ref(h.t, s, "textbox", "First name")})
			last := browsertest.Ref(h.t, r.Snapshot, "textbox", "Last name")
			if r.Snapshot.Focused == nil || *r.Snapshot.Focused != last {
				h.t.Fatalf("focused %v, want Last name %s", r.Snapshot.Focused, last)
			}
			r = h.ok(toolapi.PressKey, map[string]any{"key": "Shift+Tab"})
			if first := browsertest.Ref(h.t, r.Snapshot, "textbox", "First name"); r.Snapshot.Focused == nil || *r.Snapshot.Focused != first {
				h.t.Fatalf("after Shift+Tab focused %v, want First name %s", r.Snapshot.Focused, first)
			}
		}},
		{"an unknown key is invalid_params with examples", func(h *harness) {
			for _, key := range []string{"Entr", "Control+Foo", "A+B", ""} {
				r := h.act(toolapi.PressKey, map[string]any{"key": key})
				wantError(h.t, r, toolapi.InvalidParams)
				if !strings.Contains(r.Message, "Control+A") || !strings.Contains(r.Message, "Enter") {
					h.t.Errorf("key %q: message %q lists no examples", key, r.Message)
				}
			}
			if got := h.evalString(`document.getElementById('keys-log').textContent`); got != "" {
				h.t.Errorf("a refused key reached the page: %q", got)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.steps(open(t, "/variants/keys"))
		})
	}
}

// TestPressKeyIsGated: Enter on "Place order", or in a field of the payment
// form, places the order as a click would, so the default policy asks a
// person first; rejected, nothing happens.
func TestPressKeyIsGated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		role, el  string
		approve   bool
		wantShown string
	}{
		{"Enter on Place order, rejected", "button", "Place order", false, `press button "Place order — $129" with key Enter`},
		{"Enter on Place order, approved", "button", "Place order", true, `press button "Place order — $129" with key Enter`},
		{"Enter in a field of the payment form, rejected", "textbox", "Coupon code", false, `press textbox "Coupon code" with key Enter`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := openGated(t, "/variants/checkout", "default", tc.approve, Config{})
			s := g.snap(false)
			r := g.act(toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(t, s, tc.role, tc.el)})
			asked := g.person.Requests()
			if len(asked) != 1 || asked[0].Concrete == nil {
				t.Fatalf("the person was asked %d times, want once with the concrete press", len(asked))
			}
			if a := asked[0].Concrete; a.Verb != checkpoint.VerbPress || a.String() != tc.wantShown {
				t.Errorf("the person saw %q, want %q", a, tc.wantShown)
			}
			if tc.approve {
				if !r.Success || !strings.HasSuffix(r.Snapshot.Page.URL, "/variants/order-placed") {
					t.Fatalf("approved Enter: %v %q at %s", r.Error, r.Message, r.Snapshot.Page.URL)
				}
				return
			}
			wantError(t, r, toolapi.HumanRejected)
			if strings.Contains(r.Snapshot.Page.URL, "order-placed") {
				t.Fatal("a rejected Enter placed the order")
			}
		})
	}
}

// TestPressKeyIntoPasswordIsMasked: a character pressed into a password
// field is typed, but neither the result nor the audit log shows it.
func TestPressKeyIntoPasswordIsMasked(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/variants/form", Config{})
	var log bytes.Buffer
	WithAudit(audit.New(&log, "test"))(h.s)
	s := h.snap(true)
	r := h.ok(toolapi.PressKey, map[string]any{"key": "§", "ref": browsertest.Labelled(t, s, "Password")})
	if got := h.evalString(`document.getElementById('password').value`); !strings.Contains(got, "§") {
		t.Fatalf("the key did not reach the password field: %q", got)
	}
	if strings.Contains(r.Message, "§") || strings.Contains(log.String(), "§") || strings.Contains(log.String(), `\u00a7`) {
		t.Errorf("the key shows in the result %q or the audit log:\n%s", r.Message, log.String())
	}
	if !strings.Contains(log.String(), `"key":"********"`) {
		t.Errorf("the audit log does not show the masked key:\n%s", log.String())
	}
}
