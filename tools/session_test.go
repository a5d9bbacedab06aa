package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// harness is a session on a fresh tab of the shared browser, at a page of
// the demo site.
type harness struct {
	t    *testing.T
	s    *Session
	tab  *browser.Context
	site string
}

func open(t *testing.T, path string) *harness {
	t.Helper()
	return openWith(t, path, Config{})
}

// openWith is open with a configuration and session options of the test's.
// Budgets the test leaves unset are wider than the product's: those are for
// a person waiting, and a CI runner with every package's Chromium busy at
// once can overrun them. A test that wants a budget to run out sets it.
func openWith(t *testing.T, path string, cfg Config, opts ...SessionOption) *harness {
	t.Helper()
	for _, b := range []*time.Duration{&cfg.ActionTimeout, &cfg.ScrollTimeout, &cfg.SnapshotTimeout} {
		if *b == 0 {
			*b = 6 * time.Second
		}
	}
	tab := browsertest.Tab(t)
	site := browsertest.Site(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tab.Navigate(ctx, site+path); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return &harness{t: t, s: NewSession(tab, cfg, opts...), tab: tab, site: site}
}

// call runs a tool with arguments given as a Go value.
func (h *harness) call(name string, args any) Output {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := h.s.Call(ctx, name, raw)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return out
}

// snap takes a snapshot and fails the test unless it is a plain snapshot.
func (h *harness) snap(viewportOnly bool) *snapshot.Snapshot {
	h.t.Helper()
	out := h.call(toolapi.GetSnapshot, map[string]any{"viewport_only": viewportOnly})
	s, ok := out.Value.(*snapshot.Snapshot)
	if !ok {
		h.t.Fatalf("get_snapshot returned %T: %+v", out.Value, out.Value)
	}
	return s
}

// act runs an action tool and returns its result, checking the contract
// that holds for every result: a snapshot is present, and success and error
// agree.
func (h *harness) act(name string, args any) toolapi.ActionResult {
	h.t.Helper()
	out := h.call(name, args)
	r, ok := out.Value.(toolapi.ActionResult)
	if !ok {
		h.t.Fatalf("%s returned %T", name, out.Value)
	}
	if r.Snapshot == nil {
		h.t.Fatalf("%s: result without a snapshot: %+v", name, r)
	}
	if r.Success != (r.Error == nil) {
		h.t.Fatalf("%s: success %v with error %v", name, r.Success, r.Error)
	}
	return r
}

// evalString runs a script in the page that yields a string, and returns
// the string.
func (h *harness) evalString(expr string) string {
	h.t.Helper()
	var s string
	h.eval(expr, &s)
	return s
}

// ok runs an action tool as act does, and fails the test unless the action
// succeeded.
func (h *harness) ok(name string, args any) toolapi.ActionResult {
	h.t.Helper()
	r := h.act(name, args)
	if !r.Success {
		h.t.Fatalf("%s failed: %s: %s", name, *r.Error, r.Message)
	}
	return r
}

// sub returns the harness for the subtest t, on the same session, so that a
// failure inside the subtest fails the subtest.
func (h *harness) sub(t *testing.T) *harness {
	c := *h
	c.t = t
	return &c
}

// eval runs a script in the page.
func (h *harness) eval(expr string, out any) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.tab.Evaluate(ctx, expr, out); err != nil {
		h.t.Fatalf("evaluate %s: %v", expr, err)
	}
}

func wantError(t *testing.T, r toolapi.ActionResult, want toolapi.Code) {
	t.Helper()
	if r.Error == nil || *r.Error != want {
		got := "none"
		if r.Error != nil {
			got = string(*r.Error)
		}
		t.Fatalf("error = %s, want %s (message %q)", got, want, r.Message)
	}
	if r.Message == "" {
		t.Errorf("error %s without a message", want)
	}
}

func TestClickMovesTheFlowOn(t *testing.T) {
	t.Parallel()
	h := open(t, "/account")
	s := h.snap(true)
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Cancel Membership")})
	if !strings.HasSuffix(r.Snapshot.Page.URL, "/retention") {
		t.Fatalf("after the click the page is %s, want /retention", r.Snapshot.Page.URL)
	}
	if r.Snapshot.ID == s.ID {
		t.Fatal("the result's snapshot is not fresh")
	}
	// The fresh snapshot's refs are the live ones and continue the count.
	next := browsertest.Ref(t, r.Snapshot, "button", "Continue to Cancel")
	if n := refNumber(t, next); n <= refNumber(t, s.Elements[len(s.Elements)-1].Ref) {
		t.Errorf("ref %s does not continue the session's count", next)
	}
	r = h.act(toolapi.Click, map[string]any{"ref": next})
	if !r.Success || !strings.HasSuffix(r.Snapshot.Page.URL, "/survey") {
		t.Fatalf("second click: %+v at %s", r.Error, r.Snapshot.Page.URL)
	}
}

func refNumber(t *testing.T, ref string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscanf(ref, "@e%d", &n); err != nil {
		t.Fatalf("ref %q: %v", ref, err)
	}
	return n
}

func TestRefsThatAreNotLive(t *testing.T) {
	t.Parallel()
	h := open(t, "/account")
	old := h.snap(true)
	stale := browsertest.Ref(t, old, "button", "Cancel Membership")
	h.snap(true) // a new snapshot makes the old table dead
	for _, tc := range []struct{ name, ref string }{
		{"from an earlier snapshot", stale},
		{"malformed", "e12"},
		{"never issued", "@e99999"},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.sub(t).act(toolapi.Click, map[string]any{"ref": tc.ref})
			wantError(t, r, toolapi.RefInvalid)
			if !strings.HasSuffix(r.Snapshot.Page.URL, "/account") {
				t.Errorf("a refused click moved the page to %s", r.Snapshot.Page.URL)
			}
		})
	}
}

func TestRelabelledElementIsNotClicked(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/busy")
	s := h.snap(true)
	save := browsertest.Ref(t, s, "button", "Save")
	// The page renames the button between the snapshot and the click, as a
	// re-render would.
	h.eval(`(() => { const b = [...document.querySelectorAll('button')].find(b => b.textContent.trim() === 'Save'); b.textContent = 'Delete'; b.onclick = () => { document.title = 'DELETED'; }; })()`, nil)
	r := h.act(toolapi.Click, map[string]any{"ref": save})
	wantError(t, r, toolapi.RefInvalid)
	if !strings.Contains(r.Message, "Delete") {
		t.Errorf("message does not say what changed: %q", r.Message)
	}
	if h.evalString(`document.title`) == "DELETED" {
		t.Fatal("the relabelled button was clicked")
	}
}

func TestActionErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		page  string
		setup func(h *harness, s *snapshot.Snapshot) (tool string, args map[string]any)
		want  toolapi.Code
		// says is what the message must tell the agent, if anything.
		says string
	}{
		{"disabled button", "/variants/disabled", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Click, map[string]any{"ref": browsertest.Ref(h.t, s, "button", "Finish Cancellation")}
		}, toolapi.ElementDisabled, ""},
		{"covered by a modal", "/variants/modal", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Click, map[string]any{"ref": browsertest.Ref(h.t, s, "button", "Cancel Membership")}
		}, toolapi.ElementObscured, ""},
		{"hidden after the snapshot", "/account", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			r := browsertest.Ref(h.t, s, "button", "Cancel Membership")
			h.eval(`document.querySelectorAll('button,a').forEach(e => { if (e.textContent.includes('Cancel Membership')) e.style.visibility = 'hidden'; })`, nil)
			return toolapi.Click, map[string]any{"ref": r}
		}, toolapi.ElementNotVisible, ""},
		{"scroll with neither ref nor direction", "/account", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Scroll, map[string]any{}
		}, toolapi.InvalidParams, ""},
		{"scroll in an unknown direction", "/account", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Scroll, map[string]any{"direction": "sideways"}
		}, toolapi.InvalidParams, ""},
		{"fill on a button", "/account", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Fill, map[string]any{"ref": browsertest.Ref(h.t, s, "button", "Cancel Membership"), "value": "x"}
		}, toolapi.InvalidParams, ""},
		{"select on a button", "/account", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Select, map[string]any{"ref": browsertest.Ref(h.t, s, "button", "Cancel Membership"), "value": "x"}
		}, toolapi.InvalidParams, ""},
		{"a malformed date names the format", "/variants/form", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Fill, map[string]any{"ref": refOfKind(h.t, h.snap(false), "date"), "value": "next tuesday"}
		}, toolapi.InvalidParams, "2011-10-11"},
		{"a missing option names the options", "/survey", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Select, map[string]any{"ref": browsertest.Ref(h.t, h.snap(false), "combobox", ""), "value": "forever"}
		}, toolapi.InvalidParams, "Less than a year"},
		{"an option of a closed select", "/variants/clickables", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			// The select sits below the fold: take the whole page.
			return toolapi.Click, map[string]any{"ref": browsertest.Ref(h.t, h.snap(false), "option", "Oldest first")}
		}, toolapi.ElementNotVisible, "browser_select"},
		{"a page whose script blocks", "/variants/busy", func(h *harness, s *snapshot.Snapshot) (string, map[string]any) {
			return toolapi.Click, map[string]any{"ref": browsertest.Ref(h.t, s, "button", "Freeze")}
		}, toolapi.Timeout, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := open(t, tc.page)
			s := h.snap(true)
			tool, args := tc.setup(h, s)
			r := h.act(tool, args)
			wantError(t, r, tc.want)
			if !strings.Contains(r.Message, tc.says) {
				t.Errorf("message does not say %q: %q", tc.says, r.Message)
			}
			t.Logf("%s: %s", tc.want, r.Message)
		})
	}
}

func TestObscuredNamesTheCover(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/modal")
	s := h.snap(true)
	r := h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Cancel Membership")})
	wantError(t, r, toolapi.ElementObscured)
	if !strings.Contains(r.Message, "Special offer") {
		t.Errorf("message does not name the modal: %q", r.Message)
	}
	// Closing the modal makes the button clickable.
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Close")})
	h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Cancel Membership")})
}

func TestAfterATimeoutTheSessionGoesOn(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/busy")
	s := h.snap(true)
	r := h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Freeze")})
	wantError(t, r, toolapi.Timeout)
	// The page unfreezes by itself; the session stays usable.
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := h.call(toolapi.GetSnapshot, map[string]any{})
		if s, ok := out.Value.(*snapshot.Snapshot); ok && len(s.Elements) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session did not come back after the page unfroze")
		}
	}
}

// TestResultShowsLateChanges: a change the click starts a little later (a
// re-render after a timer, within the quiet window) is in the result's
// snapshot, although the capture can be taken while the page settles.
func TestResultShowsLateChanges(t *testing.T) {
	t.Parallel()
	for _, delay := range []int{0, 10, 30} {
		t.Run(fmt.Sprintf("%dms", delay), func(t *testing.T) {
			h := open(t, "/account")
			h.eval(fmt.Sprintf(`(() => {
				const b = document.createElement('button');
				b.textContent = 'Load details';
				b.onclick = () => setTimeout(() => {
					const h = document.createElement('h2');
					h.textContent = 'Details loaded';
					document.querySelector('main').prepend(h);
				}, %d);
				document.querySelector('main').prepend(b);
			})()`, delay), nil)
			s := h.snap(true)
			r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Load details")})
			browsertest.Ref(t, r.Snapshot, "heading", "Details loaded")
		})
	}
}
