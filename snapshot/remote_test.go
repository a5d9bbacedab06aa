package snapshot

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/capture"
)

// TestRemoteFrames builds the recorded checkout whose card form is a
// cross-site iframe holding another cross-site iframe: each frame's nodes
// keep their NodeBase and land inside their iframe's box.
func TestRemoteFrames(t *testing.T) {
	t.Parallel()
	c := loadCaptures(t)["cross-site"]
	if c == nil || len(c.RemoteDOM) != 2 {
		t.Fatal("the recorded cross-site capture should hold two out-of-process frames")
	}
	s, table, _ := build(t, c, Options{}, 0)
	region, ok := s.Find("region", "Card payment")
	if !ok {
		t.Fatalf("no region of the page:\n%s", s.Outline())
	}
	for _, tc := range []struct {
		role, name string
		base       int64
		doc        string
	}{
		{"textbox", "Card number", c.RemoteDOM[0].NodeBase, "http://other.test/variants/card-frame?nested=1"},
		{"button", "Pay", c.RemoteDOM[0].NodeBase, "http://other.test/variants/card-frame?nested=1"},
		{"textbox", "Promo code", c.RemoteDOM[1].NodeBase, "http://demo.test/variants/frame-inner"},
		{"heading", "Card payment", 0, "http://demo.test/variants/cross-site-checkout?nested=1"},
	} {
		e, ok := s.Find(tc.role, tc.name)
		if !ok {
			t.Errorf("no %s %q:\n%s", tc.role, tc.name, s.Outline())
			continue
		}
		tg := table[e.Ref]
		if got := tg.BackendNodeID &^ (1<<32 - 1); got != tc.base {
			t.Errorf("%s %q: node %d, want it in the range of base %d", tc.role, tc.name, tg.BackendNodeID, tc.base)
		}
		if tg.DocumentURL != tc.doc {
			t.Errorf("%s %q belongs to %q, want %q", tc.role, tc.name, tg.DocumentURL, tc.doc)
		}
		r, b := region.BBox, e.BBox
		if b.Width <= 0 || b.X < r.X || b.Y < r.Y || b.X+b.Width > r.X+r.Width || b.Y+b.Height > r.Y+r.Height {
			t.Errorf("%s %q box %+v is outside the page's region %+v", tc.role, tc.name, b, r)
		}
	}
	if !strings.Contains(s.Text, "Refunds take five days.") {
		t.Errorf("the frame's text is not in the page text:\n%s", s.Text)
	}
}

// TestRemoteFrameBroken: a frame's layout capture that cannot be joined to
// the page is left out with a note, and the rest of the snapshot stands.
func TestRemoteFrameBroken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		alter func(r *capture.RemoteDOM)
		note  string
	}{
		{"owner not in the page", func(r *capture.RemoteDOM) { r.Owner = 1 << 40 }, "is not in the page"},
		{"unreadable", func(r *capture.RemoteDOM) { r.DOM = json.RawMessage(`{"documents": 7}`) }, "unreadable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := *loadCaptures(t)["cross-site"]
			c.RemoteDOM = append([]capture.RemoteDOM(nil), c.RemoteDOM...)
			tc.alter(&c.RemoteDOM[0])
			s, _, _ := build(t, &c, Options{}, 0)
			if !strings.Contains(strings.Join(s.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", s.Notes, tc.note)
			}
			if _, ok := s.Find("button", "Show notice"); !ok {
				t.Errorf("the page's own button is gone:\n%s", s.Outline())
			}
		})
	}
}
