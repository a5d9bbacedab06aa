package browsertest_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

func TestHarness(t *testing.T) {
	t.Parallel()
	if first, again := browsertest.Browser(t), browsertest.Browser(t); first != again {
		t.Error("Browser returns a different browser on each call")
	}
	site := browsertest.Site(t)
	tabs := []*browser.Context{browsertest.Tab(t), browsertest.Tab(t)}
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
	t.Parallel()
	var tab *browser.Context
	t.Run("inner", func(t *testing.T) { tab = browsertest.Tab(t) })
	if tab.Alive() {
		t.Error("the tab of a finished test is still open")
	}
}

func TestProcesses(t *testing.T) {
	t.Parallel()
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

// A Lender lends a browser to one test at a time: two tests at once get two
// browsers, a finished test's browser goes to the next, one that died is
// replaced, and Close ends them all.
func TestLender(t *testing.T) {
	t.Parallel()
	var l browsertest.Lender
	var first, second string
	t.Run("two at once", func(t *testing.T) {
		first, second = l.Lend(t), l.Lend(t)
		if first == second || !strings.HasPrefix(first, "ws://127.0.0.1:") || !strings.HasPrefix(second, "ws://127.0.0.1:") {
			t.Fatalf("lent %q and %q, want two endpoints of loopback", first, second)
		}
		connect(t, first)
	})
	var again string
	t.Run("given back", func(t *testing.T) {
		again = l.Lend(t)
		if again != first && again != second || l.Started() != 2 {
			t.Fatalf("lent %q after %q and %q came back, with %d browsers running; want one of them again", again, first, second, l.Started())
		}
		connect(t, again)
	})
	t.Run("dead one replaced", func(t *testing.T) {
		pid := browserOn(t, again)
		if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for browsertest.Running(pid) {
			time.Sleep(10 * time.Millisecond)
		}
		a, b := l.Lend(t), l.Lend(t)
		if a == again || b == again {
			t.Fatalf("lent the dead browser %q again", again)
		}
		connect(t, a)
		connect(t, b)
	})
	survivor := first
	if survivor == again {
		survivor = second
	}
	pids := []int{browserOn(t, survivor)}
	if l.Started() != 2 {
		t.Errorf("%d browsers counted, want the survivor and the dead one's replacement", l.Started())
	}
	if err := l.Close(); err != nil {
		t.Error(err)
	}
	for _, pid := range pids {
		if browsertest.Running(pid) {
			t.Errorf("browser %d still runs after Close", pid)
		}
	}
	if started := l.Started(); started != 0 {
		t.Errorf("%d browsers counted after Close", started)
	}
}

// connect opens a tab on the browser at endpoint and loads a page in it.
func connect(t *testing.T, endpoint string) {
	t.Helper()
	b := browsertest.NewBrowser(t, browser.Options{CDPEndpoint: endpoint})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := browsertest.TabOf(t, b).Navigate(ctx, browsertest.Site(t)+"/account"); err != nil {
		t.Fatal(err)
	}
}

// browserOn returns the pid of the browser listening at endpoint, one of
// this test binary's children.
func browserOn(t *testing.T, endpoint string) int {
	t.Helper()
	port := strings.Split(strings.TrimPrefix(endpoint, "ws://127.0.0.1:"), "/")[0]
	for _, p := range browsertest.Descendants(t, os.Getpid()) {
		if p.PPID == os.Getpid() && strings.Contains(p.Cmdline, "chrom") && strings.Contains(p.Cmdline, "--remote-debugging-port=0") {
			if browserPort(p.Cmdline) == port {
				return p.PID
			}
		}
	}
	t.Fatalf("no browser of this binary listens at %s", endpoint)
	return 0
}

// browserPort returns the DevTools port of the browser with this command
// line, as it wrote it into its profile.
func browserPort(cmdline string) string {
	_, dir, ok := strings.Cut(cmdline, "--user-data-dir=")
	if !ok {
		return ""
	}
	dir, _, _ = strings.Cut(dir, " ")
	data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
	if err != nil {
		return ""
	}
	port, _, _ := strings.Cut(string(data), "\n")
	return port
}
