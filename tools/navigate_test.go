package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// wantPage fails the test unless the result's snapshot is of the page at
// path (after the site) and holds the element role "name".
func (h *harness) wantPage(r toolapi.ActionResult, path, role, name string) {
	h.t.Helper()
	if r.Snapshot.Page.URL != h.site+path {
		h.t.Fatalf("snapshot of %s, want %s (message %q)", r.Snapshot.Page.URL, h.site+path, r.Message)
	}
	browsertest.Ref(h.t, r.Snapshot, role, name)
}

func TestNavigate(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/links")
	steps := []struct {
		name      string
		args      map[string]any
		path      string
		role, elt string
		says      string
	}{
		{"absolute url", map[string]any{"url": h.site + "/help"}, "/help", "heading", "Help Center", "Opened " + h.site + "/help."},
		{"relative url", map[string]any{"url": "variants/links"}, "/variants/links", "link", "Slow page", "Opened"},
		{"back", map[string]any{"action": "back"}, "/help", "heading", "Help Center", "Went back to " + h.site + "/help."},
		{"forward", map[string]any{"action": "forward"}, "/variants/links", "link", "Slow page", "Went forward"},
		{"reload", map[string]any{"action": "reload"}, "/variants/links", "link", "Slow page", "Reloaded"},
		{"through two redirects", map[string]any{"url": "/redirect?to=/redirect%3Fto%3D/help"}, "/help", "heading", "Help Center", "Opened"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			h := h.sub(t)
			r := h.ok(toolapi.Navigate, st.args)
			h.wantPage(r, st.path, st.role, st.elt)
			if !strings.Contains(r.Message, st.says) {
				t.Errorf("message %q does not say %q", r.Message, st.says)
			}
		})
	}
}

func TestNavigateRefuses(t *testing.T) {
	t.Parallel()
	h := open(t, "/help")
	tests := []struct {
		name string
		args map[string]any
		want toolapi.Code
		says string
	}{
		{"neither url nor action", map[string]any{}, toolapi.InvalidParams, "needs a url"},
		{"both url and action", map[string]any{"url": "/help", "action": "back"}, toolapi.InvalidParams, "not both"},
		{"an unknown action", map[string]any{"action": "home"}, toolapi.InvalidParams, "back, forward or reload"},
		{"javascript:", map[string]any{"url": "javascript:alert(1)"}, toolapi.ActionFailed, "blocked by policy"},
		{"file:", map[string]any{"url": "file:///etc/passwd"}, toolapi.ActionFailed, "blocked by policy"},
		{"forward at the end of the history", map[string]any{"action": "forward"}, toolapi.ActionFailed, "no page to go forward to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.sub(t).act(toolapi.Navigate, tt.args)
			wantError(t, r, tt.want)
			if !strings.Contains(r.Message, tt.says) {
				t.Errorf("message %q does not say %q", r.Message, tt.says)
			}
			// Nothing moved: the session is where it was.
			if r.Snapshot.Page.URL != h.site+"/help" {
				t.Errorf("snapshot of %s after a refusal", r.Snapshot.Page.URL)
			}
		})
	}
}

func TestSlowImageDoesNotFailTheClick(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/links")
	s := h.snap(true)
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "link", "Slow page")})
	if !strings.Contains(r.Message, stillLoading) {
		t.Errorf("message %q does not say the page is still loading", r.Message)
	}
	h.wantPage(r, "/variants/slow-image", "button", "Play trailer")
	// The new page's refs are live: act on one.
	h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Play trailer")})
}

func TestNavigationTimeoutLeavesTheSessionUsable(t *testing.T) {
	t.Parallel()
	// Only the navigation's budget can run out, however late a busy
	// machine reports that the navigation began.
	h := openWith(t, "/help", Config{NavigationTimeout: 300 * time.Millisecond, ActionTimeout: 15 * time.Second})
	r := h.act(toolapi.Navigate, map[string]any{"url": "/slow/image?ms=20000"})
	wantError(t, r, toolapi.Timeout)
	if !strings.Contains(r.Message, "no new document committed") {
		t.Errorf("message %q does not say nothing committed", r.Message)
	}
	h.wantPage(r, "/help", "heading", "Help Center")
	r = h.ok(toolapi.Navigate, map[string]any{"url": "/variants/links"})
	h.wantPage(r, "/variants/links", "link", "Slow page")
}

func TestPopupsAndNewTabs(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/links")
	s := h.snap(true)

	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "link", "Help in a new tab")})
	if want := `Opened a new tab: "Help Center - StreamFlix" ` + h.site + "/help; 2 tabs."; !strings.Contains(r.Message, want) {
		t.Errorf("message %q does not say %q", r.Message, want)
	}
	h.wantPage(r, "/help", "heading", "Help Center")
	// The next snapshot is of the new tab too.
	if got := h.snap(true).Page.URL; got != h.site+"/help" {
		t.Errorf("get_snapshot after the new tab: %s", got)
	}

	// The new tab goes to the links too, and opens a popup from there.
	r = h.ok(toolapi.Navigate, map[string]any{"url": "/variants/links"})
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Open offer popup")})
	if !strings.Contains(r.Message, `Opened a new tab: "Special offer - StreamFlix"`) || !strings.Contains(r.Message, "3 tabs") {
		t.Errorf("message %q does not say the popup opened", r.Message)
	}
	h.wantPage(r, "/variants/popup", "button", "Close window")

	// A dialog on the popup is answered there.
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Accept offer")})
	if !dialogOpen(r.Snapshot) {
		t.Fatalf("no dialog in the snapshot after the popup's confirm: %q", r.Message)
	}
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "OK")})
	if got := h.evalString("document.getElementById('offer-result').textContent"); got != "true" {
		t.Errorf("offer-result = %q after OK", got)
	}

	// The popup closes itself: the session is back on its opener, the
	// second tab.
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Close window")})
	if want := `back on "Links and popups - StreamFlix" ` + h.site + "/variants/links; 2 tabs."; !strings.Contains(r.Message, want) {
		t.Errorf("message %q does not say %q", r.Message, want)
	}
	h.wantPage(r, "/variants/links", "link", "Slow page")
}

func TestTabsTool(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/variants/links", Config{Caps: []string{toolapi.CapTabs}})
	s := h.snap(true)
	h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "link", "Help in a new tab")})

	steps := []struct {
		name string
		args map[string]any
		want toolapi.Code
		path string // of the snapshot, after the site
		says []string
	}{
		{"list", map[string]any{"action": "list"}, "", "/help",
			[]string{"Tabs (2):", `0: "Links and popups - StreamFlix" ` + h.site + "/variants/links", `1 (current): "Help Center - StreamFlix"`}},
		{"select", map[string]any{"action": "select", "index": 0}, "", "/variants/links",
			[]string{"Switched to tab 0.", `0 (current): "Links and popups`}},
		{"select no such tab", map[string]any{"action": "select", "index": 5}, toolapi.InvalidParams, "/variants/links",
			[]string{"There is no tab 5"}},
		{"new with a url", map[string]any{"action": "new", "url": "/variants/popup"}, "", "/variants/popup",
			[]string{"Opened a new tab at " + h.site + "/variants/popup.", "Tabs (3):", `2 (current): "Special offer`}},
		{"new with a blocked url", map[string]any{"action": "new", "url": "file:///etc/passwd"}, toolapi.ActionFailed, "/variants/popup",
			[]string{"blocked by policy"}},
		{"close the current tab", map[string]any{"action": "close"}, "", "/variants/links",
			[]string{"Closed tab 2.", "Tabs (2):", `0 (current)`}},
		{"close another", map[string]any{"action": "close", "index": 1}, "", "/variants/links",
			[]string{"Closed tab 1.", "Tabs (1):"}},
		{"close the last", map[string]any{"action": "close"}, toolapi.ActionFailed, "/variants/links",
			[]string{"only tab"}},
		{"new and blank", map[string]any{"action": "new"}, "", "about:blank",
			[]string{"Opened a new, blank tab.", `1 (current): "about:blank" about:blank`}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := h.sub(t).act(toolapi.Tabs, st.args)
			if st.want == "" && !r.Success {
				t.Fatalf("failed: %s: %s", *r.Error, r.Message)
			}
			if st.want != "" {
				wantError(t, r, st.want)
			}
			for _, w := range st.says {
				if !strings.Contains(r.Message, w) {
					t.Errorf("message %q does not say %q", r.Message, w)
				}
			}
			if want := h.site + st.path; r.Snapshot.Page.URL != want && r.Snapshot.Page.URL != st.path {
				t.Errorf("snapshot of %s, want %s", r.Snapshot.Page.URL, st.path)
			}
		})
	}
}

func TestTabsIsOptIn(t *testing.T) {
	t.Parallel()
	h := open(t, "/help")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.s.Call(ctx, toolapi.Tabs, json.RawMessage(`{"action":"list"}`)); err == nil {
		t.Error("browser_tabs ran without the tabs capability")
	}
	for _, d := range Definitions() {
		if d.Name == toolapi.Tabs {
			t.Error("browser_tabs is listed without the tabs capability")
		}
	}
}

// TestNavigateIsGated holds browser_navigate to the gate: a person sees
// the absolute URL it would open, and a rejection leaves the page as it was.
func TestNavigateIsGated(t *testing.T) {
	t.Parallel()
	const profile = `{"name":"leaving","gated_actions":[{"name":"any navigation","verb":"navigate"}]}`
	for _, approve := range []bool{false, true} {
		t.Run(map[bool]string{false: "rejected", true: "approved"}[approve], func(t *testing.T) {
			g := openGated(t, "/help", profile, approve, Config{})
			r := g.act(toolapi.Navigate, map[string]any{"url": "/variants/links"})
			asked := g.person.Requests()
			if len(asked) != 1 || asked[0].Concrete == nil || asked[0].Concrete.Value != g.site+"/variants/links" {
				t.Fatalf("the person was asked %+v, want the navigation to %s", asked, g.site+"/variants/links")
			}
			if !approve {
				wantError(t, r, toolapi.HumanRejected)
				g.wantPage(r, "/help", "heading", "Help Center")
				return
			}
			if !r.Success {
				t.Fatalf("approved navigation failed: %s", r.Message)
			}
			g.wantPage(r, "/variants/links", "link", "Slow page")
		})
	}
}
