package browser_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// waitDialog waits until the tab reports an open dialog.
func waitDialog(t *testing.T, tab *browser.Context) *capture.Dialog {
	t.Helper()
	var d *capture.Dialog
	if !waitUntil(t, 5*time.Millisecond, func() bool { d = tab.Dialog(); return d != nil }) {
		t.Fatal("no dialog opened")
	}
	return d
}

func TestDialogs(t *testing.T) {
	t.Parallel()
	base := browsertest.Serve(t, pages())
	tests := []struct {
		kind      string
		accept    bool
		text      string
		wantTitle string
	}{
		{"alert", true, "", "undefined"},
		{"confirm", true, "", "true"},
		{"confirm", false, "", "false"},
		{"prompt", true, "typed answer", "typed answer"},
		{"prompt", false, "ignored", "null"},
	}
	tab := browsertest.Tab(t)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.kind, tt.accept), func(t *testing.T) {
			navigate(t, tab, base+"/dialog?kind="+tt.kind)
			// Opened once the page is there: a dialog during the
			// navigation would be the navigation's to answer.
			if err := tab.Evaluate(testCtx(t), "ask()", nil); err != nil {
				t.Fatal(err)
			}
			d := waitDialog(t, tab)
			if d.Type != tt.kind || d.Message != "question?" {
				t.Errorf("dialog %+v, want a %s saying question?", d, tt.kind)
			}
			// Nothing on the page answers while the dialog is open; Capture
			// must say so rather than wait for its deadline.
			c := captureOf(t, tab, browser.CaptureOptions{Screenshot: true})
			if c.Dialog == nil || c.Dialog.Type != tt.kind || c.Screenshot != nil || c.ScreenshotError == "" {
				t.Errorf("capture under a dialog: dialog %+v, screenshot %v, error %q", c.Dialog, c.Screenshot != nil, c.ScreenshotError)
			}
			if c.URL != base+"/dialog?kind="+tt.kind {
				t.Errorf("capture under a dialog: URL %q", c.URL)
			}
			if err := tab.HandleDialog(testCtx(t), tt.accept, tt.text); err != nil {
				t.Fatal(err)
			}
			if d := tab.Dialog(); d != nil {
				t.Errorf("dialog %+v still reported after HandleDialog", d)
			}
			// The page sets its title after the dialog returns.
			if !waitUntil(t, 5*time.Millisecond, func() bool {
				c = captureOf(t, tab, browser.CaptureOptions{Screenshot: true})
				return c.Title != "before"
			}) {
				t.Fatal("the page's title did not change after the dialog")
			}
			if c.Title != tt.wantTitle || c.Dialog != nil || c.Screenshot == nil {
				t.Errorf("after answering: title %q (want %q), dialog %+v, screenshot %v", c.Title, tt.wantTitle, c.Dialog, c.Screenshot != nil)
			}
		})
	}
	if err := tab.HandleDialog(testCtx(t), true, ""); !errors.Is(err, browser.ErrNoDialog) {
		t.Errorf("HandleDialog without a dialog = %v, want ErrNoDialog", err)
	}
}
