package tools

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestDeltaFrameNewDocumentKeepsNoRef: a cross-site frame that loads another
// document keeps none of its old refs, whatever node ids its new process
// gives: a ref the agent held in the old document is gone, never an element
// of the new one.
func TestDeltaFrameNewDocumentKeepsNoRef(t *testing.T) {
	t.Parallel()
	for _, to := range []string{"/variants/frame-inner", "/variants/card-frame?again"} {
		t.Run(to, func(t *testing.T) {
			t.Parallel()
			h := openWith(t, "/variants/cross-site-checkout", Config{SnapshotDelta: true})
			seen := h.snap(true)
			old := map[string]bool{}
			for _, e := range seen.Elements {
				if e.Frame != "" {
					old[e.Ref] = true
				}
			}
			h.eval(`new Promise(r => { const f = document.getElementById('pay-frame'); f.onload = () => r(true);
				f.src = f.src.replace('/variants/card-frame', '`+to+`'); })`, nil)
			r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, seen, "heading", "Pay for your order")})
			for _, e := range r.Snapshot.Elements {
				if e.Frame != "" && old[e.Ref] {
					t.Errorf("%s %s %q of the frame's new document kept a ref of its old one", e.Ref, e.Role, e.Name)
				}
			}
		})
	}
}
