package browser_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// testTimeout bounds every step of a test; no test waits for it unless
// something is broken.
const testTimeout = 30 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// waitUntil calls done every interval until it returns true, and reports
// whether it did before the test's time (testCtx) ran out.
func waitUntil(t *testing.T, interval time.Duration, done func() bool) bool {
	ctx := testCtx(t)
	for !done() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(interval):
		}
	}
	return true
}

// pages serves the test pages; /show's title reports the cookie "c".
func pages() http.Handler {
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html>"+body)
		}
	}
	mux.Handle("/plain", html(`<title>Plain</title><h1>Hello</h1>
		<button id="b">Press me</button> <a href="/other">A link</a> <input aria-label="Name">`))
	mux.Handle("/frame", html(`<title>Framed</title><h1>Outer</h1><iframe src="/inner" width="400" height="200"></iframe>`))
	mux.Handle("/inner", html(`<title>Inner</title><button>Inner button</button>`))
	// /xframe's iframe is /inner on the other loopback name: another site.
	mux.Handle("/xframe", html(`<title>Cross-site framed</title><h1>Outer</h1><iframe id="x" width="400" height="200"></iframe>
		<script>document.getElementById('x').src = 'http://' + (location.hostname === 'localhost' ? '127.0.0.1' : 'localhost') + ':' + location.port + '/inner';</script>`))
	mux.Handle("/long", html(`<title>Long</title><style>body{margin:0}</style>
		<div style="height:1000px;background:#ff0000"></div><div style="height:3000px;background:#0000ff"></div>`))
	mux.Handle("/dialog", func() http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			kind := r.URL.Query().Get("kind")
			html(fmt.Sprintf(`<title>before</title><h1>Dialog</h1>
				<script>function ask() { setTimeout(() => { document.title = String(%s("question?")) }, 0) }</script>`, kind))(w, r)
		}
	}())
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "c", Value: r.URL.Query().Get("v"), Path: "/"})
		html(`<title>set</title>`)(w, r)
	})
	mux.HandleFunc("/show", func(w http.ResponseWriter, r *http.Request) {
		v := "none"
		if c, err := r.Cookie("c"); err == nil {
			v = c.Value
		}
		html("<title>"+v+"</title><p>"+v)(w, r)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		var b strings.Builder
		b.WriteString("<!doctype html><title>Big</title><h1>Big</h1><table>")
		for i := range n {
			fmt.Fprintf(&b, `<tr><td>Row %d</td><td><button>Edit %d</button></td><td><a href="#r%d">Link %d</a></td><td><input aria-label="Field %d"></td></tr>`, i, i, i, i, i)
		}
		b.WriteString("</table>")
		html(b.String())(w, r)
	})
	return mux
}

func navigate(t *testing.T, tab *browser.Context, url string) {
	t.Helper()
	if err := tab.Navigate(testCtx(t), url); err != nil {
		t.Fatal(err)
	}
}

func captureOf(t *testing.T, tab *browser.Context, opts browser.CaptureOptions) *capture.Page {
	t.Helper()
	c, err := tab.Capture(testCtx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// processTree returns the pids of pid and its descendants, pid first.
func processTree(t testing.TB, pid int) []int {
	t.Helper()
	tree := []int{pid}
	for _, p := range browsertest.Descendants(t, pid) {
		tree = append(tree, p.PID)
	}
	return tree
}

func userDataDir(t *testing.T, pid int) string {
	t.Helper()
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
		if dir, ok := strings.CutPrefix(string(arg), "--user-data-dir="); ok {
			return dir
		}
	}
	t.Fatal("the browser has no --user-data-dir")
	return ""
}

func TestLaunchCloseLeavesNothing(t *testing.T) {
	b, err := browser.Launch(testCtx(t), browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := b.NewContext(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, tab, "about:blank")
	pid := b.Process().Pid
	tree := processTree(t, pid)
	if len(tree) < 2 {
		t.Fatalf("browser %d has no child processes: %v", pid, tree)
	}
	dir := userDataDir(t, pid)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range tree {
		if browsertest.Running(p) {
			t.Errorf("process %d of the browser's tree still runs after Close", p)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the profile %s is still there after Close: %v", dir, err)
	}
	if err := tab.Err(); !errors.Is(err, browser.ErrClosed) {
		t.Errorf("tab.Err() after Browser.Close = %v, want ErrClosed", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestLaunchWithoutBrowser(t *testing.T) {
	t.Parallel()
	_, err := browser.Launch(testCtx(t), browser.Options{Path: filepath.Join(t.TempDir(), "no-such-chromium")})
	if !errors.Is(err, browser.ErrNoBrowser) {
		t.Fatalf("Launch with a missing binary = %v, want ErrNoBrowser", err)
	}
}

func TestTabsAreIsolated(t *testing.T) {
	t.Parallel()
	base := browsertest.Serve(t, pages())
	a, b := browsertest.Tab(t), browsertest.Tab(t)
	navigate(t, a, base+"/set?v=from-a")
	tests := []struct {
		tab  *browser.Context
		want string
	}{{a, "from-a"}, {b, "none"}}
	for i, tt := range tests {
		navigate(t, tt.tab, base+"/show")
		if got := captureOf(t, tt.tab, browser.CaptureOptions{}).Title; got != tt.want {
			t.Errorf("tab %d sees cookie %q, want %q", i, got, tt.want)
		}
	}
}

func TestNavigate(t *testing.T) {
	t.Parallel()
	base := browsertest.Serve(t, pages())
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/plain#top")
	if got, want := tab.URL(), base+"/plain#top"; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
	// A port nothing listens on: a network error page.
	err := tab.Navigate(testCtx(t), "http://127.0.0.1:1/")
	if err == nil || !strings.Contains(err.Error(), "ERR_") {
		t.Errorf("Navigate to a closed port = %v, want a net::ERR_ error", err)
	}
	if !tab.Alive() {
		t.Errorf("tab not alive after a failed navigation: %v", tab.Err())
	}
	navigate(t, tab, base+"/plain")
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	if err := tab.Navigate(ctx, base+"/plain"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Navigate past its deadline = %v, want DeadlineExceeded", err)
	}
}

func TestConnect(t *testing.T) {
	base := browsertest.Serve(t, pages())
	chromium := browsertest.StartChromium(t, 0)
	for _, endpoint := range []string{chromium.WebSocket, chromium.HTTP} {
		t.Run(strings.SplitN(endpoint, ":", 2)[0], func(t *testing.T) {
			b, err := browser.Launch(testCtx(t), browser.Options{CDPEndpoint: endpoint})
			if err != nil {
				t.Fatal(err)
			}
			if b.Launched() || b.Process() != nil {
				t.Error("a connected browser says it was launched")
			}
			tab, err := b.NewContext(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			navigate(t, tab, base+"/plain")
			if c := captureOf(t, tab, browser.CaptureOptions{Screenshot: true}); c.Title != "Plain" || c.Screenshot == nil {
				t.Errorf("capture over the connection: title %q, screenshot %v", c.Title, c.Screenshot != nil)
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			if !browsertest.Running(chromium.Cmd.Process.Pid) {
				t.Fatal("Close killed a browser it did not launch")
			}
			// A second connection sees no browser context left behind.
			b2, err := browser.Launch(testCtx(t), browser.Options{CDPEndpoint: endpoint})
			if err != nil {
				t.Fatal(err)
			}
			defer b2.Close()
			ids, err := browser.BrowserContextsForTest(testCtx(t), b2)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != 0 {
				t.Errorf("browser contexts left after Close: %v", ids)
			}
		})
	}
}
