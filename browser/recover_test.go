package browser_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// waitErr waits until tab.Err() wraps want.
func waitErr(t *testing.T, tab *browser.Context, want error) {
	t.Helper()
	if !waitUntil(t, 5*time.Millisecond, func() bool { return errors.Is(tab.Err(), want) }) {
		t.Fatalf("tab.Err() = %v, want %v", tab.Err(), want)
	}
}

func TestRecoverFromRendererCrash(t *testing.T) {
	base := browsertest.Serve(t, pages())
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/set?v=kept")
	navigate(t, tab, base+"/show#here")
	if err := tab.CrashRenderer(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	waitErr(t, tab, browser.ErrTabCrashed)
	if tab.Alive() {
		t.Error("Alive() after a crash")
	}
	if _, err := tab.Capture(testCtx(t), browser.CaptureOptions{}); !errors.Is(err, browser.ErrTabCrashed) {
		t.Errorf("Capture on a crashed tab = %v, want ErrTabCrashed", err)
	}
	restarted, last, err := tab.Recover(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if restarted || last != base+"/show#here" {
		t.Errorf("Recover = %v, %q; want false, %q", restarted, last, base+"/show#here")
	}
	c := captureOf(t, tab, browser.CaptureOptions{Screenshot: true})
	// The tab keeps its browser context, and so its cookies.
	if c.URL != last || c.Title != "kept" || c.Screenshot == nil {
		t.Errorf("after Recover: URL %q, title %q, screenshot %v", c.URL, c.Title, c.Screenshot != nil)
	}
}

func TestRecoverFromBrowserDeath(t *testing.T) {
	base := browsertest.Serve(t, pages())
	b := browsertest.NewBrowser(t, browser.Options{})
	tabs := []*browser.Context{browsertest.TabOf(t, b), browsertest.TabOf(t, b)}
	for i, tab := range tabs {
		navigate(t, tab, fmt.Sprintf("%s/plain#%d", base, i))
	}
	old := b.Process()
	if err := old.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, tab := range tabs {
		waitErr(t, tab, browser.ErrBrowserGone)
	}
	if b.Alive() {
		t.Error("browser Alive() after its process was killed")
	}
	var pids []int
	for i, tab := range tabs {
		restarted, last, err := tab.Recover(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%s/plain#%d", base, i); !restarted || last != want {
			t.Errorf("tab %d: Recover = %v, %q; want true, %q", i, restarted, last, want)
		}
		c := captureOf(t, tab, browser.CaptureOptions{})
		if c.URL != last || findAX(axNodes(t, c.Frames[0].AX), "button", "Press me") == nil {
			t.Errorf("tab %d after Recover: URL %q, no button", i, c.URL)
		}
		pids = append(pids, b.Process().Pid)
	}
	if pids[0] == old.Pid || pids[0] != pids[1] {
		t.Errorf("browser pids %d then %v: want one relaunch for both tabs", old.Pid, pids)
	}
}
