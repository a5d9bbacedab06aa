package tools

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// dialogOpen reports whether a snapshot shows a JavaScript dialog.
func dialogOpen(s *snapshot.Snapshot) bool {
	_, ok := s.Find("alertdialog", "")
	return ok
}

func TestAlertIsAcceptedAndReported(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/dialogs")
	s := h.snap(true)
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Save settings")})
	if !strings.Contains(r.Message, "Saved!") {
		t.Errorf("the alert's text is not in the message: %q", r.Message)
	}
	if dialogOpen(r.Snapshot) {
		t.Error("an accepted alert is still in the snapshot")
	}
	// Nothing is blocked afterwards.
	if s := h.snap(true); s.Screenshot == nil {
		t.Error("no screenshot after the alert")
	}
}

func TestConfirmAndPromptAreAnsweredThroughRefs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, button, answer, fill, result, want string
	}{
		{"confirm OK", "Delete item", "OK", "", "#confirm-result", "true"},
		{"confirm Cancel", "Delete item", "Cancel", "", "#confirm-result", "false"},
		{"prompt with text", "Set name", "OK", "Grace", "#prompt-result", "Grace"},
		{"prompt cancelled", "Set name", "Cancel", "", "#prompt-result", "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := open(t, "/variants/dialogs")
			s := h.snap(true)
			r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", tc.button)})
			if !dialogOpen(r.Snapshot) {
				t.Fatalf("the dialog is not in the snapshot: %+v", r.Snapshot.Elements)
			}
			if r.Snapshot.Screenshot == nil && len(r.Snapshot.Notes) == 0 {
				t.Error("no screenshot and no note saying why")
			}
			if tc.fill != "" {
				r = h.ok(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "textbox", ""), "value": tc.fill})
			}
			r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", tc.answer)})
			if dialogOpen(r.Snapshot) {
				t.Fatal("the dialog is still open after answering it")
			}
			if got := h.evalString(`document.querySelector('` + tc.result + `').textContent`); got != tc.want {
				t.Errorf("the page got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBeforeUnloadIsForTheAgent(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/beforeunload")
	s := h.snap(true)
	// A beforeunload prompt needs a user gesture on the page first.
	r := h.ok(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", ""), "value": "unsaved"})
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "link", "Leave")})
	if !dialogOpen(r.Snapshot) {
		t.Fatalf("no beforeunload dialog in the snapshot at %s", r.Snapshot.Page.URL)
	}
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "OK")})
	if !strings.HasSuffix(r.Snapshot.Page.URL, "/account") {
		t.Errorf("after leaving the page is %s", r.Snapshot.Page.URL)
	}
}

func TestRecoverAfterRendererCrash(t *testing.T) {
	t.Parallel()
	h := open(t, "/retention")
	h.snap(true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.tab.CrashRenderer(ctx); err != nil {
		t.Fatalf("crash the renderer: %v", err)
	}
	r := h.act(toolapi.Click, map[string]any{"ref": "@e1"})
	wantError(t, r, toolapi.ActionFailed)
	if !strings.Contains(r.Message, "page crashed") || strings.Contains(r.Message, "restarted") || !strings.Contains(r.Message, "/retention") {
		t.Errorf("message does not say the page (not the browser) crashed, and where: %q", r.Message)
	}
	if !strings.HasSuffix(r.Snapshot.Page.URL, "/retention") || len(r.Snapshot.Elements) == 0 {
		t.Fatalf("the fresh snapshot is not of the page: %s with %d elements", r.Snapshot.Page.URL, len(r.Snapshot.Elements))
	}
	r = h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Continue to Cancel")})
	if !r.Success || !strings.HasSuffix(r.Snapshot.Page.URL, "/survey") {
		t.Fatalf("the session did not go on: %v at %s", r.Message, r.Snapshot.Page.URL)
	}
}

func TestRecoverAfterTheBrowserDies(t *testing.T) {
	t.Parallel()
	b := browsertest.NewBrowser(t, browser.Options{})
	tab := browsertest.TabOf(t, b)
	site := browsertest.Site(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tab.Navigate(ctx, site+"/retention"); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: NewSession(tab, Config{}), tab: tab, site: site}
	h.snap(true)
	p := b.Process()
	if p == nil {
		t.Fatal("no browser process to kill")
	}
	if err := p.Signal(syscall.SIGKILL); err != nil && err != os.ErrProcessDone {
		t.Fatalf("kill the browser: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for tab.Alive() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	r := h.act(toolapi.Click, map[string]any{"ref": "@e1"})
	wantError(t, r, toolapi.ActionFailed)
	if !strings.Contains(r.Message, "restarted") || !strings.Contains(r.Message, "/retention") {
		t.Errorf("message does not say the browser restarted and where: %q", r.Message)
	}
	r = h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "Continue to Cancel")})
	if !r.Success || !strings.HasSuffix(r.Snapshot.Page.URL, "/survey") {
		t.Fatalf("the session did not go on: %v at %s", r.Message, r.Snapshot.Page.URL)
	}
}
