package browser_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chromedp/chromedp"
)

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

func TestCapture(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
		// main, the same-site frame, then the cross-site one through its
		// own session
		{"cross-site", both, 3},
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
			if tt.wantFrames < 3 {
				if len(c.RemoteDOM) != 0 {
					t.Errorf("%d out-of-process frames, want none", len(c.RemoteDOM))
				}
				return
			}
			remote := c.Frames[2]
			if remote.URL != crossSite+"/inner" || remote.NodeBase != browser.NodeBase(1) || inner.NodeBase != 0 {
				t.Errorf("frame %s (node base %d) after %s (node base %d): want the cross-site one with base %d",
					remote.URL, remote.NodeBase, inner.URL, inner.NodeBase, browser.NodeBase(1))
			}
			if n := findAX(axNodes(t, remote.AX), "button", "Inner button"); n == nil || n.BackendDOMNodeID == 0 {
				t.Errorf("the cross-site iframe's tree has no button with a backend node: %v", n)
			}
			if len(c.RemoteDOM) != 1 || c.RemoteDOM[0].FrameID != remote.FrameID || c.RemoteDOM[0].Owner == 0 || len(c.RemoteDOM[0].DOM) == 0 {
				t.Errorf("the cross-site iframe's layout capture is missing or unowned: %d captured", len(c.RemoteDOM))
			}
		})
	}
}
