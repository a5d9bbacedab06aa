package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// deltaAgent is an MCP client that keeps the page as an agent knows it: each
// whole snapshot it is sent, and each delta applied to the page before.
type deltaAgent struct {
	t    *testing.T
	c    *client.Client
	page *snapshot.Snapshot
}

// look calls get_snapshot, which is always whole.
func (a *deltaAgent) look() {
	a.t.Helper()
	a.page = getSnapshot(a.t, a.c)
}

// do calls an action and returns its result and text, checking that a
// delta applies to the page the agent had and that the text is the
// delta's rendering of the page it makes; or else that the result is a
// whole snapshot, valid against the schema.
func (a *deltaAgent) do(name string, args map[string]any) (toolapi.ActionResult, string) {
	a.t.Helper()
	res, data := call(a.t, a.c, name, args)
	text := textOf(a.t, res)
	var r toolapi.ActionResult
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		a.t.Fatal(err)
	}
	if r.Delta == nil {
		var raw struct {
			Snapshot json.RawMessage `json:"snapshot"`
		}
		if err := json.Unmarshal([]byte(data), &raw); err != nil {
			a.t.Fatal(err)
		}
		validateSnapshot(a.t, raw.Snapshot)
		if !strings.HasSuffix(text, r.Snapshot.Render()) {
			a.t.Fatalf("%s: the text is not the snapshot's:\n%s", name, text)
		}
		a.page = r.Snapshot
		return r, text
	}
	page, ok := snapshot.Apply(a.page, r.Delta)
	if !ok {
		a.t.Fatalf("%s: the delta (of %s) does not apply to the page the agent has (%s)", name, r.Delta.Of, a.page.ID)
	}
	if !strings.HasSuffix(text, r.Delta.Render(page)) || !strings.Contains(text, "delta of snapshot ") {
		a.t.Fatalf("%s: the text is not the delta's:\n%s", name, text)
	}
	a.page = page
	return r, text
}

// ref is the ref of the element role "name" on the page the agent has.
func (a *deltaAgent) ref(role, name string) string {
	a.t.Helper()
	return browsertest.Ref(a.t, a.page, role, name)
}

// TestSnapshotDelta drives /variants/delta over stdio with --snapshot-delta:
// a panel shown comes as a delta whose added refs work next, labels swapped
// on their nodes as changed, a node replaced as gone and added (its old ref
// refused with ref_invalid), a removed section as gone, a navigation whole;
// and after every delta the page the agent pieced together is the page a
// whole snapshot shows.
func TestSnapshotDelta(t *testing.T) {
	t.Parallel()
	c, _, _ := stdioClient(t, nil, "serve", "--profile", "none", "--snapshot-delta", "--url", "demo:/variants/delta")
	defer c.Close()
	a := &deltaAgent{t: t, c: c}
	a.look()
	first := a.page.ID

	r, text := a.do(toolapi.Click, map[string]any{"ref": a.ref("button", "Show plans")})
	if r.Delta == nil || r.Delta.Of != first {
		t.Fatalf("showing a panel: not a delta of the snapshot sent (%s):\n%s", first, text)
	}
	var added []string
	for _, e := range r.Delta.Added {
		added = append(added, e.Role+" "+e.Name)
	}
	for _, want := range []string{"radio Premium", "button Save plan", "button Delete account"} {
		if !slices.Contains(added, want) {
			t.Errorf("the delta does not add %s: %q\n%s", want, added, text)
		}
	}
	if len(r.Delta.Gone) > 0 {
		t.Errorf("showing a panel took refs away: %q", r.Delta.Gone)
	}

	// The added refs are the live ones.
	a.do(toolapi.Click, map[string]any{"ref": a.ref("radio", "Premium")})
	r, text = a.do(toolapi.Click, map[string]any{"ref": a.ref("button", "Save plan")})
	if r.Delta == nil || !strings.Contains(text, "+ Plan: Premium, two screens at a time.") {
		t.Errorf("saving the plan: the delta does not show the text that changed:\n%s", text)
	}

	// Labels swapped on the same nodes: each keeps its ref, shown with its
	// new label.
	keep, down := a.ref("button", "Keep plan"), a.ref("button", "Downgrade plan")
	r, text = a.do(toolapi.Click, map[string]any{"ref": a.ref("button", "Swap labels")})
	for ref, now := range map[string]string{keep: "Downgrade plan", down: "Keep plan"} {
		if r.Delta == nil || !strings.Contains(text, "~"+ref+` button "`+now+`"`) {
			t.Errorf("%s now reads %q: the delta does not show it changed:\n%s", ref, now, text)
		}
	}
	if got := a.ref("button", "Downgrade plan"); got != keep {
		t.Errorf("Downgrade plan is %s, want %s (the node the agent knew as Keep plan)", got, keep)
	}

	// A node replaced by another of the same text: its ref is gone, and
	// using it is the typed stale-ref error.
	promo := a.ref("link", "Half price for three months")
	r, text = a.do(toolapi.Click, map[string]any{"ref": a.ref("button", "Renew offer")})
	if r.Delta == nil || !slices.Contains(r.Delta.Gone, promo) || !strings.Contains(headerLine(text), "gone: "+promo) || strings.Contains(text, "text:") {
		t.Fatalf("the replaced link's ref %s is not gone:\n%s", promo, text)
	}
	if now := a.ref("link", "Half price for three months"); now == promo {
		t.Errorf("the new link kept the old node's ref %s", promo)
	}
	r, _ = a.do(toolapi.Click, map[string]any{"ref": promo})
	if r.Error == nil || *r.Error != toolapi.RefInvalid {
		t.Errorf("a ref the delta said was gone: error %v, want %s", r.Error, toolapi.RefInvalid)
	}

	dismiss := a.ref("button", "Dismiss offer")
	r, text = a.do(toolapi.Click, map[string]any{"ref": dismiss})
	if r.Delta == nil || !slices.Contains(r.Delta.Gone, dismiss) {
		t.Errorf("a removed section: its refs are not gone:\n%s", text)
	}

	// What the agent pieced together is the page. The last result's
	// screenshot (a clip, under --screenshots auto, whose place the text
	// tells) is of that result, not of the page.
	pieced := pageOnly(a.page).Render()
	a.look()
	if whole := pageOnly(a.page).Render(); whole != pieced {
		t.Errorf("the page pieced from deltas:\n%s\nthe whole snapshot:\n%s", pieced, whole)
	}

	// Another document is whole.
	r, text = a.do(toolapi.Click, map[string]any{"ref": a.ref("link", "Next page")})
	if r.Delta != nil || !strings.HasSuffix(r.Snapshot.Page.URL, "step=2") {
		t.Errorf("a navigation: want a whole snapshot of step=2:\n%s", text)
	}
}

// pageOnly is s without its result's screenshot.
func pageOnly(s *snapshot.Snapshot) *snapshot.Snapshot {
	c := *s
	c.Screenshot = nil
	return &c
}

// headerLine is the delta's first line in a result's text.
func headerLine(text string) string {
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, "delta of snapshot ") {
			return l
		}
	}
	return ""
}

// nextPage is the page an agent has after an action's result (its JSON):
// the result's whole snapshot, or its delta applied to page.
func nextPage(tb testing.TB, page *snapshot.Snapshot, data string) *snapshot.Snapshot {
	tb.Helper()
	var r toolapi.ActionResult
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		tb.Fatal(err)
	}
	if r.Delta == nil {
		return r.Snapshot
	}
	next, ok := snapshot.Apply(page, r.Delta)
	if !ok {
		tb.Fatalf("a delta of %s, not of the page the agent has (%s)", r.Delta.Of, page.ID)
	}
	return next
}
