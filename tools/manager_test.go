package tools_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// A session asked for while the browser still starts waits for it, and
// opens at the start URL.
func TestOpenWaitsForTheBrowser(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	m := fleet.Start(t.Context(), browser.Options{}, fleet.Config{})
	defer func() {
		if err := m.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	s, err := tools.Open(t.Context(), m, tools.Config{StartURL: site + "/retention"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Call(t.Context(), toolapi.GetSnapshot, nil)
	if err != nil {
		t.Fatal(err)
	}
	if snap, ok := out.Value.(*snapshot.Snapshot); !ok || !strings.HasSuffix(snap.Page.URL, "/retention") {
		t.Errorf("the first snapshot is %+v, want one of the start URL", out.Value)
	}
	if err := m.Started(t.Context()); err != nil {
		t.Errorf("Started after a session opened: %v", err)
	}
}

// A browser that cannot start fails each session with the reason, and the
// manager still closes.
func TestFleetFailureReachesOpen(t *testing.T) {
	t.Parallel()
	m := fleet.Start(t.Context(), browser.Options{Path: "/nonexistent/chromium"}, fleet.Config{})
	_, err := tools.Open(t.Context(), m, tools.Config{})
	if !errors.Is(err, browser.ErrNoBrowser) || !strings.Contains(err.Error(), "start browser") {
		t.Errorf("NewSession: %v, want the start's failure (%v)", err, browser.ErrNoBrowser)
	}
	if err := m.Started(t.Context()); !errors.Is(err, browser.ErrNoBrowser) {
		t.Errorf("Started: %v, want %v", err, browser.ErrNoBrowser)
	}
	if err := m.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// A start URL whose image takes 25 s opens a session as soon as the page is
// there; the session acts on it at once.
func TestSessionStartsOnASlowPage(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	m := fleet.Start(t.Context(), browser.Options{}, fleet.Config{})
	defer m.Close()
	s, err := tools.Open(t.Context(), m, tools.Config{StartURL: site + "/variants/slow-image?image-ms=25000"})
	if err != nil {
		t.Fatalf("NewSession on a slow page: %v", err)
	}
	defer s.Close()
	out, err := s.Call(t.Context(), toolapi.GetSnapshot, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, ok := out.Value.(*snapshot.Snapshot)
	if !ok {
		t.Fatalf("get_snapshot: %+v", out.Value)
	}
	play := browsertest.Ref(t, snap, "button", "Play trailer")
	out, err = s.Call(t.Context(), toolapi.Click, json.RawMessage(`{"ref":"`+play+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := out.Value.(toolapi.ActionResult); !ok || !r.Success {
		t.Errorf("click on the slow page: %+v", out.Value)
	}
	// Still loading: the start did not wait for the image.
	var state string
	if err := tools.TabOf(s).Evaluate(t.Context(), "document.readyState", &state); err != nil {
		t.Fatal(err)
	}
	if state != "interactive" {
		t.Errorf("readyState = %q, want interactive: the session start waited for the 25 s image", state)
	}
}
