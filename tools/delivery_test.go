package tools

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestClickNotDelivered clicks a button of a cross-site frame that swaps an
// invisible cover in on pointerdown: the click never reaches the button,
// so browser_click answers action_failed saying what received it, and the
// frame is unchanged.
func TestClickNotDelivered(t *testing.T) {
	t.Parallel()
	h := open(t, "/hostile/delivery-host?inner=delivery-cover")
	s := h.snap(false)
	r := h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Apply coupon")})
	if r.Success || *r.Error != toolapi.ActionFailed {
		t.Fatalf("click under a swapped-in cover: success %v, error %v, message %q; want action_failed", r.Success, r.Error, r.Message)
	}
	for _, want := range []string{"did not reach", "Apply coupon", "div"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("the message lacks %q: %q", want, r.Message)
		}
	}
	if strings.Contains(r.Snapshot.Text, "Coupon applied") {
		t.Errorf("the failed click happened:\n%s", r.Snapshot.Text)
	}
}

// TestClickDeliveredWithoutAClick clicks controls whose click a person sees
// no click event for, or whose document goes: a native select (its popup
// takes the release), a file input (its chooser opens), a link to another
// page. Each is delivered, not refused.
func TestClickDeliveredWithoutAClick(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, role, name string }{
		{"/survey", "combobox", "How long were you a member?"},
		{"/variants/upload", "button", "Attachments"},
		{"/variants/links", "link", "Plain page"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			h := open(t, tc.path)
			h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, h.snap(false), tc.role, tc.name)})
		})
	}
}
