package snapshotlive

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestRecordedAcceptance checks the acceptance list of issue 2 on the
// recorded demo pages, without a browser.
func TestRecordedAcceptance(t *testing.T) { checkAcceptance(t, recorded(t)) }

// TestLiveAcceptance checks the same list on the same demo pages captured
// now by real Chromium, so that a change in Chromium's output shows here
// before it reaches an agent.
func TestLiveAcceptance(t *testing.T) {
	checkAcceptance(t, captureLive(t, browsertest.Site(t), browser.CaptureOptions{Screenshot: true}))
}

// get builds the snapshot of the capture called name and checks that its
// JSON validates against the schema, as every snapshot in every test must.
func get(t *testing.T, captures map[string]*capture.Page, name string, opts snapshot.Options) *snapshot.Snapshot {
	t.Helper()
	c, ok := captures[name]
	if !ok {
		t.Fatalf("no capture %s", name)
	}
	s, _, _ := snapshot.Build(c, opts, 0)
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal snapshot of %s: %v", name, err)
	}
	if err := snapshot.Validate(data); err != nil {
		t.Fatalf("snapshot of %s does not validate: %v\n%s", name, err, data)
	}
	return s
}

// find returns the element of s with exactly this role and name, failing the
// test when there is none.
func find(t *testing.T, s *snapshot.Snapshot, role, name string) (snapshot.Element, bool) {
	t.Helper()
	e, ok := s.Find(role, name)
	if !ok || e.Name != name {
		t.Errorf("%s: no %s %q in\n%s", s.Page.URL, role, name, s.Outline())
		return snapshot.Element{}, false
	}
	return e, true
}

// checkAcceptance checks issue 2's acceptance list on captures of the demo
// pages, by recording name.
func checkAcceptance(t *testing.T, captures map[string]*capture.Page) {
	vp := snapshot.Options{ViewportOnly: true}
	t.Run("flow pages", func(t *testing.T) {
		for _, n := range []string{"account", "retention", "survey", "finish", "cancelled"} {
			s := get(t, captures, n, vp)
			data, _ := json.Marshal(s.Elements)
			if tok := snapshot.EstimateTokens(len(data)); tok > 1000 {
				t.Errorf("%s: %d element tokens, target 1000", n, tok)
			}
			if s.Elements[0].Ref != "@e0" {
				t.Errorf("%s: first ref %s", n, s.Elements[0].Ref)
			}
		}
	})
	t.Run("named controls", func(t *testing.T) {
		for _, w := range []struct{ page, role, name string }{
			{"account", "button", "Cancel Membership"},
			{"retention", "button", "Continue to Cancel"},
			{"finish", "button", "Finish Cancellation"},
			{"cancelled", "heading", "Your membership has been cancelled"},
			{"iframe", "textbox", "Promo code"}, // inside an iframe
			{"iframe", "button", "Apply"},
			{"shadow", "button", "Pause membership"}, // inside a shadow root
			{"shadow", "checkbox", "Email me reminders"},
			{"widgets", "button", "Subscribe"},  // a div with a click handler
			{"widgets", "button", "trash icon"}, // an icon with no text
		} {
			find(t, get(t, captures, w.page, vp), w.role, w.name)
		}
	})
	t.Run("large page", func(t *testing.T) {
		s := get(t, captures, "large", vp)
		data, _ := json.Marshal(s.Elements)
		if tok := snapshot.EstimateTokens(len(data)); tok > snapshot.DefaultTokenBudget || len(s.Elements) > snapshot.DefaultMaxElements {
			t.Errorf("%d elements, %d tokens", len(s.Elements), tok)
		}
		for _, e := range s.Elements {
			if e.State[0] != "visible" {
				t.Errorf("%s %q is %s although in-viewport elements were left out", e.Ref, e.Name, e.State[0])
			}
		}
	})
	t.Run("boxes after scrolling", func(t *testing.T) {
		top, bottom := get(t, captures, "long", snapshot.Options{}), get(t, captures, "long-bottom", vp)
		a, okA := find(t, top, "button", "Cancel Membership")
		b, okB := find(t, bottom, "button", "Cancel Membership")
		if !okA || !okB {
			return
		}
		if !strings.Contains(strings.Join(a.State, " "), "offscreen") || b.State[0] != "visible" {
			t.Errorf("states %q then %q", a.State, b.State)
		}
		if scrolled := bottom.Viewport.ScrollY; scrolled == 0 || a.BBox.Y-b.BBox.Y != scrolled {
			t.Errorf("box moved by %v for a scroll of %v", a.BBox.Y-b.BBox.Y, scrolled)
		}
		if b.BBox.Y < 0 || b.BBox.Y+b.BBox.Height > bottom.Viewport.Height {
			t.Errorf("box %+v outside the viewport %+v", b.BBox, bottom.Viewport)
		}
	})
	t.Run("form", func(t *testing.T) {
		s := get(t, captures, "form", snapshot.Options{})
		data, _ := json.Marshal(s)
		if strings.Contains(string(data), "hunter2") || strings.Contains(string(data), "•") {
			t.Errorf("password value in the snapshot")
		}
		for _, label := range []string{"Username", "Password", "Email", "Notes"} {
			e, ok := find(t, s, "textbox", label)
			if ok && !strings.Contains(s.Text, label+": ["+e.Ref+"]") {
				t.Errorf("page text does not tie %q to %s:\n%s", label, e.Ref, s.Text)
			}
		}
		if e, ok := find(t, s, "textbox", "Notes"); ok && (e.Value == nil || *e.Value != "Hello world ") {
			t.Errorf("notes value %v", e.Value)
		}
	})
	t.Run("same page twice", func(t *testing.T) {
		a, b := get(t, captures, "survey", vp), get(t, captures, "survey", vp)
		ja, _ := json.Marshal(a.Elements)
		jb, _ := json.Marshal(b.Elements)
		if string(ja) != string(jb) || a.ID == b.ID {
			t.Errorf("elements differ or ids repeat")
		}
	})
}
