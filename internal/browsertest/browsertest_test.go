package browsertest_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

func TestHarness(t *testing.T) {
	if browsertest.Browser(t) != browsertest.Browser(t) {
		t.Error("Browser returns a different browser on each call")
	}
	site := browsertest.Site(t)
	tabs := []*browser.Tab{browsertest.Tab(t), browsertest.Tab(t)}
	if tabs[0] == tabs[1] {
		t.Fatal("Tab returns the same tab twice")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, path := range []string{"/account", "/retention", "/survey", "/finish", "/cancelled"} {
		if err := tabs[0].Navigate(ctx, site+path); err != nil {
			t.Fatal(err)
		}
		c, err := tabs[0].Capture(ctx, browser.CaptureOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.URL != site+path || c.Title == "" {
			t.Errorf("%s: URL %q, title %q", path, c.URL, c.Title)
		}
	}
}

func TestTabClosedAtCleanup(t *testing.T) {
	var tab *browser.Tab
	t.Run("inner", func(t *testing.T) { tab = browsertest.Tab(t) })
	if tab.Alive() {
		t.Error("the tab of a finished test is still open")
	}
}

func TestProcesses(t *testing.T) {
	self, ok := browsertest.Processes(t)[os.Getpid()]
	if !ok || self.PPID != os.Getppid() || self.Cmdline == "" || !browsertest.Running(self.PID) {
		t.Fatalf("this test as /proc shows it: %+v, %v", self, ok)
	}
	pid := browsertest.Browser(t).Process().Pid
	below := browsertest.Descendants(t, os.Getpid())
	if !slices.ContainsFunc(below, func(p browsertest.Process) bool { return p.PID == pid }) {
		t.Errorf("the shared browser %d is not below this test: %+v", pid, below)
	}
}
