package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chromedp/chromedp"
)

// testTimeout bounds every step of a test; no test waits for it unless
// something is broken.
const testTimeout = 30 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
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
	mux.Handle("/long", html(`<title>Long</title><style>body{margin:0}</style>
		<div style="height:1000px;background:#ff0000"></div><div style="height:3000px;background:#0000ff"></div>`))
	mux.Handle("/dialog", func() http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			kind := r.URL.Query().Get("kind")
			html(fmt.Sprintf(`<title>before</title><h1>Dialog</h1>
				<script>setTimeout(() => { document.title = String(%s("question?")) }, 50)</script>`, kind))(w, r)
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

// axNode is the part of an accessibility node the tests read.
type axNode struct {
	NodeID           string `json:"nodeId"`
	Ignored          bool   `json:"ignored"`
	BackendDOMNodeID int64  `json:"backendDOMNodeId"`
	Role             struct {
		Value any `json:"value"`
	} `json:"role"`
	Name *struct {
		Value any `json:"value"`
	} `json:"name"`
}

func axNodes(t *testing.T, raw json.RawMessage) []axNode {
	t.Helper()
	var tree struct {
		Nodes []axNode `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatalf("decoding the accessibility tree: %v", err)
	}
	return tree.Nodes
}

// findAX returns the node with the role and name, or nil.
func findAX(nodes []axNode, role, name string) *axNode {
	for i, n := range nodes {
		if n.Role.Value == role && n.Name != nil && n.Name.Value == name {
			return &nodes[i]
		}
	}
	return nil
}

func navigate(t *testing.T, tab *browser.Tab, url string) {
	t.Helper()
	if err := tab.Navigate(testCtx(t), url); err != nil {
		t.Fatal(err)
	}
}

func captureOf(t *testing.T, tab *browser.Tab, opts browser.CaptureOptions) *capture.Page {
	t.Helper()
	c, err := tab.Capture(testCtx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// processTree returns the pids of pid and its descendants.
func processTree(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	tree := []int{pid}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree
}

// running reports whether pid is a process that is not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
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
	tab, err := b.NewTab(testCtx(t))
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
		if running(p) {
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
	_, err := browser.Launch(testCtx(t), browser.Options{Path: filepath.Join(t.TempDir(), "no-such-chromium")})
	if !errors.Is(err, browser.ErrNoBrowser) {
		t.Fatalf("Launch with a missing binary = %v, want ErrNoBrowser", err)
	}
}

func TestTabsAreIsolated(t *testing.T) {
	base := browsertest.Serve(t, pages())
	a, b := browsertest.Tab(t), browsertest.Tab(t)
	navigate(t, a, base+"/set?v=from-a")
	tests := []struct {
		tab  *browser.Tab
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

func TestCapture(t *testing.T) {
	base := browsertest.Serve(t, pages())
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/plain")
	c := captureOf(t, tab, browser.CaptureOptions{Screenshot: true})

	if c.URL != base+"/plain" || c.Title != "Plain" {
		t.Errorf("URL, Title = %q, %q; want %q, %q", c.URL, c.Title, base+"/plain", "Plain")
	}
	if c.Viewport.Width != 1280 || c.Viewport.Height != 720 {
		t.Errorf("viewport %+v, want 1280×720", c.Viewport)
	}
	if len(c.Frames) != 1 {
		t.Fatalf("%d frames, want 1", len(c.Frames))
	}
	nodes := axNodes(t, c.Frames[0].AX)
	for _, want := range []struct{ role, name string }{
		{"heading", "Hello"}, {"button", "Press me"}, {"link", "A link"}, {"textbox", "Name"},
	} {
		n := findAX(nodes, want.role, want.name)
		if n == nil {
			t.Errorf("no %s %q in the accessibility tree", want.role, want.name)
		} else if n.BackendDOMNodeID == 0 {
			t.Errorf("%s %q has no backendDOMNodeId", want.role, want.name)
		}
	}
	var dom struct {
		Documents []struct {
			Nodes struct {
				BackendNodeID []int64 `json:"backendNodeId"`
			} `json:"nodes"`
			Layout struct {
				NodeIndex  []int       `json:"nodeIndex"`
				Styles     [][]int     `json:"styles"`
				Bounds     [][]float64 `json:"bounds"`
				PaintOrder []int       `json:"paintOrders"`
			} `json:"layout"`
		} `json:"documents"`
		Strings []string `json:"strings"`
	}
	if err := json.Unmarshal(c.DOM, &dom); err != nil {
		t.Fatalf("decoding the DOM snapshot: %v", err)
	}
	if len(dom.Documents) != 1 || len(dom.Strings) == 0 {
		t.Fatalf("DOM snapshot has %d documents and %d strings", len(dom.Documents), len(dom.Strings))
	}
	d := dom.Documents[0]
	if len(d.Nodes.BackendNodeID) == 0 || len(d.Layout.Bounds) == 0 || len(d.Layout.PaintOrder) != len(d.Layout.NodeIndex) {
		t.Errorf("DOM snapshot lacks nodes, bounds or paint orders: %d nodes, %d bounds, %d paint orders for %d layout nodes",
			len(d.Nodes.BackendNodeID), len(d.Layout.Bounds), len(d.Layout.PaintOrder), len(d.Layout.NodeIndex))
	}
	for i, s := range d.Layout.Styles {
		// The document's own layout object (the LayoutView) has none.
		if len(s) != len(c.Styles) && (i != 0 || len(s) != 0) {
			t.Fatalf("layout node %d has %d styles, want %d (%v)", i, len(s), len(c.Styles), c.Styles)
		}
	}
	if c.Screenshot == nil {
		t.Fatalf("no screenshot: %s", c.ScreenshotError)
	}

	// The JSON form round-trips (recorded captures) and leaves out the image.
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back capture.Page
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.URL != c.URL || len(back.Frames) != 1 || !bytes.Equal(back.Frames[0].AX, c.Frames[0].AX) || back.Screenshot != nil {
		t.Errorf("the JSON form does not round-trip")
	}
}

func TestCaptureScreenshotBudget(t *testing.T) {
	base := browsertest.Serve(t, pages())
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/plain")
	tests := []struct {
		name   string
		opts   browser.CaptureOptions
		tokens int
		mime   string
	}{
		{"default", browser.CaptureOptions{Screenshot: true}, browser.DefaultImageTokens, "image/png"},
		{"small", browser.CaptureOptions{Screenshot: true, ImageTokens: 150}, 150, "image/png"},
		{"large", browser.CaptureOptions{Screenshot: true, ImageTokens: 1200}, 1200, "image/png"},
		{"unscaled", browser.CaptureOptions{Screenshot: true, ImageTokens: 10000}, 10000, "image/png"},
		{"jpeg", browser.CaptureOptions{Screenshot: true, Format: "jpeg"}, browser.DefaultImageTokens, "image/jpeg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := captureOf(t, tab, tt.opts).Screenshot
			if s == nil {
				t.Fatal("no screenshot")
			}
			var img image.Image
			var err error
			if s.MIMEType != tt.mime {
				t.Fatalf("MIME type %s, want %s", s.MIMEType, tt.mime)
			}
			if tt.mime == "image/png" {
				img, err = png.Decode(bytes.NewReader(s.Data))
			} else {
				img, err = jpeg.Decode(bytes.NewReader(s.Data))
			}
			if err != nil {
				t.Fatal(err)
			}
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			if w != s.Width || h != s.Height {
				t.Errorf("image is %d×%d, Screenshot says %d×%d", w, h, s.Width, s.Height)
			}
			if w*h > tt.tokens*browser.PixelsPerToken || w > browser.MaxImageSide || h > browser.MaxImageSide || w*h > browser.MaxImagePixels {
				t.Errorf("image %d×%d (%d tokens) is over the budget of %d tokens or the limits", w, h, w*h/browser.PixelsPerToken, tt.tokens)
			}
			// Within 5 % of the budget unless the viewport itself is smaller,
			// and the aspect ratio of 1280×720 kept.
			if want := min(tt.tokens, 1280*720/browser.PixelsPerToken); w*h < want*browser.PixelsPerToken*95/100 {
				t.Errorf("image %d×%d uses %d tokens, far under %d", w, h, w*h/browser.PixelsPerToken, want)
			}
			if r := float64(w) / float64(h); r < 1280.0/720*0.98 || r > 1280.0/720*1.02 {
				t.Errorf("image %d×%d lost the aspect ratio 16:9", w, h)
			}
		})
	}
}

func TestScreenshotScale(t *testing.T) {
	tests := []struct {
		w, h   float64
		tokens int
	}{
		{1280, 720, 0}, {1280, 720, 500}, {1920, 1080, 1500}, {375, 812, 500},
		{3000, 400, 5000}, {800, 600, 100000}, {4000, 4000, 100000}, {1, 1, 500},
	}
	for _, tt := range tests {
		s := browser.ScreenshotScale(tt.w, tt.h, tt.tokens)
		tokens := tt.tokens
		if tokens <= 0 {
			tokens = browser.DefaultImageTokens
		}
		iw, ih := int(tt.w*s+0.999), int(tt.h*s+0.999)
		if s <= 0 || s > 1 {
			t.Errorf("%v×%v, %d tokens: scale %v out of (0, 1]", tt.w, tt.h, tt.tokens, s)
		}
		if iw*ih > tokens*browser.PixelsPerToken || iw > browser.MaxImageSide || ih > browser.MaxImageSide || iw*ih > browser.MaxImagePixels {
			t.Errorf("%v×%v, %d tokens: scale %v gives %d×%d, over the limits", tt.w, tt.h, tt.tokens, s, iw, ih)
		}
	}
}

func TestCaptureScrolled(t *testing.T) {
	base := browsertest.Serve(t, pages())
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/long")
	c, cancel := browser.TabContextForTest(testCtx(t), tab)
	defer cancel()
	if err := chromedp.Do(c, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 1000)`)); err != nil {
		t.Fatal(err)
	}
	capt := captureOf(t, tab, browser.CaptureOptions{Screenshot: true})
	if capt.Viewport.ScrollY != 1000 || capt.Viewport.ScrollX != 0 {
		t.Errorf("viewport %+v, want scroll 0,1000", capt.Viewport)
	}
	img, err := png.Decode(bytes.NewReader(capt.Screenshot.Data))
	if err != nil {
		t.Fatal(err)
	}
	// The page is red above y=1000 and blue below: the viewport shows blue.
	// (The first rows blend with the red row above the viewport when
	// Chromium scales, so look a few rows in.)
	for _, y := range []int{3, img.Bounds().Dy() / 2, img.Bounds().Dy() - 1} {
		r, _, b, _ := img.At(img.Bounds().Dx()/2, y).RGBA()
		if b>>8 < 200 || r>>8 > 50 {
			t.Errorf("pixel at y=%d is not blue (r=%d b=%d): the screenshot is not of the scrolled viewport", y, r>>8, b>>8)
		}
	}
}

func TestCaptureIframes(t *testing.T) {
	base := browsertest.Serve(t, pages())
	// localhost and 127.0.0.1 are different sites: that iframe runs in a
	// process of its own.
	crossSite := strings.Replace(base, "127.0.0.1", "localhost", 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Both</title><iframe src="%s/inner"></iframe><iframe src="%s/inner"></iframe>`, base, crossSite)
	})
	both := browsertest.Serve(t, mux)
	tests := []struct {
		name, url  string
		wantFrames int
	}{
		{"same-origin", base + "/frame", 2},
		{"cross-site", both, 2}, // main and the same-site frame
	}
	tab := browsertest.Tab(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			navigate(t, tab, tt.url)
			c := captureOf(t, tab, browser.CaptureOptions{})
			if len(c.Frames) != tt.wantFrames {
				t.Fatalf("%d frames, want %d", len(c.Frames), tt.wantFrames)
			}
			if findAX(axNodes(t, c.Frames[0].AX), "button", "Inner button") != nil {
				t.Errorf("the main frame's tree has the iframe's button")
			}
			inner := c.Frames[1]
			if inner.URL != base+"/inner" || inner.FrameID == "" || inner.FrameID == c.Frames[0].FrameID {
				t.Errorf("frame %+v is not the iframe", inner)
			}
			if n := findAX(axNodes(t, inner.AX), "button", "Inner button"); n == nil || n.BackendDOMNodeID == 0 {
				t.Errorf("the iframe's tree has no button with a backend node: %v", n)
			}
		})
	}
}

// waitDialog waits until the tab reports an open dialog.
func waitDialog(t *testing.T, tab *browser.Tab) *capture.Dialog {
	t.Helper()
	ctx := testCtx(t)
	for {
		if d := tab.Dialog(); d != nil {
			return d
		}
		select {
		case <-ctx.Done():
			t.Fatal("no dialog opened")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestDialogs(t *testing.T) {
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
			ctx := testCtx(t)
			for c = captureOf(t, tab, browser.CaptureOptions{Screenshot: true}); c.Title == "before"; c = captureOf(t, tab, browser.CaptureOptions{Screenshot: true}) {
				select {
				case <-ctx.Done():
					t.Fatal("the page's title did not change after the dialog")
				case <-time.After(5 * time.Millisecond):
				}
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

// waitErr waits until tab.Err() wraps want.
func waitErr(t *testing.T, tab *browser.Tab, want error) {
	t.Helper()
	ctx := testCtx(t)
	for !errors.Is(tab.Err(), want) {
		select {
		case <-ctx.Done():
			t.Fatalf("tab.Err() = %v, want %v", tab.Err(), want)
		case <-time.After(5 * time.Millisecond):
		}
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
	tabs := []*browser.Tab{browsertest.TabOf(t, b), browsertest.TabOf(t, b)}
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

// startChromium starts a browser with a debugging port, as another program
// would, and returns its websocket address.
func startChromium(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	path, err := browser.FindBinary("")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: Chromium's helper processes may still write into the
	// profile for a moment after the browser is killed, and TempDir's
	// cleanup fails the test on that.
	dir, err := os.MkdirTemp("", "chaperone-connect-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-port=0", "--user-data-dir="+dir, "about:blank")
	// Its own process group, so that the cleanup ends its helpers too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		for i := 0; i < 50; i++ {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the profile %s", dir)
	})
	ctx := testCtx(t)
	for {
		data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if lines := strings.Split(string(data), "\n"); err == nil && len(lines) >= 2 && lines[1] != "" {
			return cmd, "ws://127.0.0.1:" + lines[0] + lines[1]
		}
		select {
		case <-ctx.Done():
			t.Fatal("chromium wrote no DevToolsActivePort")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestConnect(t *testing.T) {
	base := browsertest.Serve(t, pages())
	cmd, ws := startChromium(t)
	httpURL := "http://" + strings.Split(strings.TrimPrefix(ws, "ws://"), "/")[0]
	for _, endpoint := range []string{ws, httpURL} {
		t.Run(strings.SplitN(endpoint, ":", 2)[0], func(t *testing.T) {
			b, err := browser.Launch(testCtx(t), browser.Options{CDPEndpoint: endpoint})
			if err != nil {
				t.Fatal(err)
			}
			if b.Launched() || b.Process() != nil {
				t.Error("a connected browser says it was launched")
			}
			tab, err := b.NewTab(testCtx(t))
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
			if !running(cmd.Process.Pid) {
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
