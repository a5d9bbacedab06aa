package browser_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chromedp/cdproto/page"
)

// paintedNodes returns the text nodes of the first seen run that holds
// needle, from a judged capture of the tab's page.
func paintedNodes(t *testing.T, tab *browser.Context, needle string) []int64 {
	t.Helper()
	c := captureOf(t, tab, browser.CaptureOptions{Judged: true})
	s, _, _ := snapshot.Build(c, snapshot.Options{MaxElements: 100_000, TokenBudget: 1 << 30, TextBudget: 1 << 30}, 0)
	for _, r := range s.Seen.Text {
		i := strings.Index(strings.ToLower(r.Text), strings.ToLower(needle))
		if i < 0 {
			continue
		}
		var nodes []int64
		for _, p := range r.Parts {
			if p.To > i && p.From < i+len(needle) {
				nodes = append(nodes, p.Node)
			}
		}
		return nodes
	}
	t.Fatalf("no seen run holds %q", needle)
	return nil
}

// textNodes returns the text nodes of the tab's main document whose value
// holds needle, seen or not, from the DOM snapshot of a capture.
func textNodes(t *testing.T, tab *browser.Context, needle string) []int64 {
	t.Helper()
	c := captureOf(t, tab, browser.CaptureOptions{})
	var d struct {
		Documents []struct {
			Nodes struct {
				NodeType      []int   `json:"nodeType"`
				NodeValue     []int   `json:"nodeValue"`
				BackendNodeID []int64 `json:"backendNodeId"`
			} `json:"nodes"`
		} `json:"documents"`
		Strings []string `json:"strings"`
	}
	if err := json.Unmarshal(c.DOM, &d); err != nil {
		t.Fatal(err)
	}
	var out []int64
	n := d.Documents[0].Nodes
	for i, typ := range n.NodeType {
		if v := n.NodeValue[i]; typ == 3 && v >= 0 && strings.Contains(d.Strings[v], needle) {
			out = append(out, n.BackendNodeID[i])
		}
	}
	if len(out) == 0 {
		t.Fatalf("no text node holds %q", needle)
	}
	return out
}

// TestTextPaintedReach: text that only a script's scroll brings into view
// (in a box or a page that hides its overflow) is no text a person sees,
// though a second copy in the same text node shows; text a person can
// scroll to counts.
func TestTextPaintedReach(t *testing.T) {
	t.Parallel()
	const needle = "Membership cancelled"
	// The first copy is painted transparent by ::first-line, which the
	// capture's rules do not read; the second is far below it.
	twice := `<p id="p" style="white-space:pre;font:20px sans-serif">` + needle + strings.Repeat("\n", 200) + needle + `</p>`
	cases := []struct {
		name, body string
		want       bool
	}{
		{"page-scrolls", `<style>#p::first-line{color:transparent}</style>` + twice, true},
		{"page-locked", `<style>html{overflow:hidden}#p::first-line{color:transparent}</style>` + twice, false},
		{"body-locked", `<style>body{overflow:hidden}#p::first-line{color:transparent}</style>` + twice, false},
		{"box-hides-overflow", `<div style="height:40px;overflow:hidden"><div style="height:400px"></div><p>` + needle + `</p></div>`, false},
		{"box-scrolls", `<div style="height:80px;overflow:auto"><div style="height:400px"></div><p style="font:20px sans-serif">` + needle + `</p></div>`, true},
	}
	mux := http.NewServeMux()
	for _, tc := range cases {
		mux.HandleFunc("/"+tc.name, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`<!doctype html><body style="margin:20px;background:#fff">` + tc.body))
		})
	}
	base := browsertest.Serve(t, mux)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, base+"/"+tc.name)
			got, err := tab.TextPainted(testCtx(t), textNodes(t, tab, needle), needle, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("TextPainted(%s) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

// TestTextPainted: text a person reads changes the pixels of its box when
// it is made transparent; text hidden by paint alone does not, though the
// capture's rules let all of it through.
func TestTextPainted(t *testing.T) {
	t.Parallel()
	const needle = "Membership cancelled"
	cases := []struct {
		name, style string
		want        bool
	}{
		{"plain", "", true},
		{"small", "font-size:12px", true},
		{"large bold", "font-size:48px;font-weight:800", true},
		{"light grey", "color:#999", true},
		{"light on dark", "color:#eee;background:#222", true},
		{"serif italic", "font-family:serif;font-style:italic", true},
		{"underlined", "text-decoration:underline", true},
		{"uppercase", "text-transform:uppercase;letter-spacing:2px", true},
		{"clip-path circle", "clip-path:circle(0)", false},
		{"half clipped", "clip-path:inset(0 60% 0 0)", false},
		{"blur", "filter:blur(12px)", false},
		{"blur 6px", "filter:blur(6px)", false},
		{"contrast 0 on white", "filter:contrast(0);background:#fff", false},
		{"screen", "mix-blend-mode:screen", false},
		{"mask", "mask-image:linear-gradient(transparent,transparent)", false},
		{"scale", "transform:scale(0.02)", false},
		{"zoom", "zoom:0.05", false},
	}
	mux := http.NewServeMux()
	for _, tc := range cases {
		mux.HandleFunc("/"+strings.ReplaceAll(tc.name, " ", "-"), func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`<!doctype html><body style="margin:20px;font:20px system-ui,sans-serif;background:#fff">` +
				`<p>Plan: Premium.</p><h2 style="display:inline-block;margin:0;` + tc.style + `">` + needle + `</h2><p>Questions? Ask.</p>`))
		})
	}
	base := browsertest.Serve(t, mux)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, base+"/"+strings.ReplaceAll(tc.name, " ", "-"))
			got, err := tab.TextPainted(testCtx(t), paintedNodes(t, tab, needle), needle, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("TextPainted(%q with %s) = %v, want %v", needle, tc.style, got, tc.want)
			}
		})
	}
}

// BenchmarkVerdict is the browser's part of a verdict on the success page
// of the verdict fixtures: the judged capture and its Seen alone (what a
// verdict cost before the pixel check), then with TextPainted on the
// success heading, beside the floor of the pixel check: three clipped
// screenshots of the same box, by raw protocol calls.
func BenchmarkVerdict(b *testing.B) {
	const needle = "Membership cancelled"
	tab := browsertest.Tab(b)
	if err := tab.Navigate(b.Context(), browsertest.Site(b)+"/hostile/verdict-pixels"); err != nil {
		b.Fatal(err)
	}
	judged := func(b *testing.B) []int64 {
		c, err := tab.Capture(b.Context(), browser.CaptureOptions{Judged: true})
		if err != nil {
			b.Fatal(err)
		}
		s, _, _ := snapshot.Build(c, snapshot.Options{MaxElements: 100_000, TokenBudget: 1 << 30, TextBudget: 1 << 30}, 0)
		for _, r := range s.Seen.Text {
			if i := strings.Index(r.Text, needle); i >= 0 {
				var nodes []int64
				for _, p := range r.Parts {
					if p.To > i && p.From < i+len(needle) {
						nodes = append(nodes, p.Node)
					}
				}
				return nodes
			}
		}
		b.Fatalf("no seen run holds %q", needle)
		return nil
	}
	b.Run("judged", func(b *testing.B) {
		for b.Loop() {
			judged(b)
		}
	})
	b.Run("judged+pixels", func(b *testing.B) {
		for b.Loop() {
			ok, err := tab.TextPainted(b.Context(), judged(b), needle, nil)
			if err != nil || !ok {
				b.Fatalf("TextPainted = %v, %v", ok, err)
			}
		}
	})
	b.Run("floor-3-shots", func(b *testing.B) {
		clip := &page.Viewport{X: 250, Y: 200, Width: 300, Height: 30, Scale: 1}
		for b.Loop() {
			for range 3 {
				if _, err := browser.CallForTest(b.Context(), tab, page.CaptureScreenshot, page.CaptureScreenshotParams{
					Format: page.CaptureScreenshotFormatPng, Clip: clip, OptimizeForSpeed: new(true),
				}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestTextPaintedInAFrame: text in a cross-site frame below the fold is
// looked at through the frame's process, on the page's pixels, scrolled
// into view and back: shown it counts, clipped away it does not.
func TestTextPaintedInAFrame(t *testing.T) {
	t.Parallel()
	const needle = "Membership cancelled"
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		port := r.Host[strings.LastIndex(r.Host, ":"):]
		_, _ = w.Write([]byte(`<!doctype html><body style="margin:0"><p>Account</p><div style="height:1500px"></div>` +
			`<iframe style="width:600px;height:120px;border:0" src="http://localhost` + port + `/status?` + r.URL.RawQuery + `"></iframe>`))
	})
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`<!doctype html><body style="margin:10px;font:20px sans-serif;background:#fff">` +
			`<h2 style="` + r.URL.Query().Get("style") + `">` + needle + `</h2>`))
	})
	base := browsertest.Serve(t, mux)
	for _, tc := range []struct {
		style string
		want  bool
	}{{"", true}, {"clip-path:circle(0)", false}, {"filter:blur(12px)", false}} {
		t.Run(tc.style, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, base+"/page?style="+url.QueryEscape(tc.style))
			var nodes []int64
			for range 50 {
				c := captureOf(t, tab, browser.CaptureOptions{Judged: true})
				if len(c.RemoteDOM) > 0 {
					nodes = paintedNodes(t, tab, needle)
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if len(nodes) == 0 || nodes[0]>>32 == 0 {
				t.Fatalf("the status is not in a cross-site frame: nodes %v", nodes)
			}
			got, err := tab.TextPainted(testCtx(t), nodes, needle, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("TextPainted in a frame styled %q = %v, want %v", tc.style, got, tc.want)
			}
			var y float64
			if err := tab.Evaluate(testCtx(t), "scrollY", &y); err != nil || y != 0 {
				t.Errorf("the page is left scrolled to %v (%v)", y, err)
			}
		})
	}
}

// TestTextPaintedMarkup: SVG text, on which Chromium paints no highlight,
// and text in a closed shadow root are looked at too.
func TestTextPaintedMarkup(t *testing.T) {
	t.Parallel()
	const needle = "Membership cancelled"
	cases := []struct {
		name, body string
		want       bool
	}{
		{"svg-text", `<svg width="400" height="40"><text x="0" y="28" font-size="22" fill="#1f1f1f">` + needle + `</text></svg>`, true},
		{"svg-text-unfilled", `<svg width="400" height="40"><text x="0" y="28" font-size="22" fill="none">` + needle + `</text></svg>`, false},
		{"closed-shadow-root", `<div id="h"></div><script>h.attachShadow({mode: 'closed'}).innerHTML = '<style>p{color:#222}</style><p>` + needle + `</p>'</script>`, true},
		{"closed-shadow-root-clipped", `<div id="h"></div><script>h.attachShadow({mode: 'closed'}).innerHTML = '<style>p{clip-path:circle(0)}</style><p>` + needle + `</p>'</script>`, false},
	}
	mux := http.NewServeMux()
	for _, tc := range cases {
		mux.HandleFunc("/"+tc.name, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`<!doctype html><body style="margin:20px;font:20px sans-serif;background:#fff">` + tc.body))
		})
	}
	base := browsertest.Serve(t, mux)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, base+"/"+tc.name)
			got, err := tab.TextPainted(testCtx(t), paintedNodes(t, tab, needle), needle, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("TextPainted(%s) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

// TestTextPaintedSkipsEchoes: an occurrence inside a stretch that repeats
// what the agent put into the page is not looked at, though it is drawn.
func TestTextPaintedSkipsEchoes(t *testing.T) {
	t.Parallel()
	const needle = "Membership cancelled"
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`<!doctype html><body style="margin:20px;font:20px sans-serif"><p>Results for membership   CANCELLED today</p>`))
	})
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Serve(t, mux)+"/search")
	nodes := paintedNodes(t, tab, needle)
	for _, tc := range []struct {
		skip []string
		want bool
	}{{nil, true}, {[]string{"results for membership cancelled"}, false}, {[]string{"results for"}, true}} {
		got, err := tab.TextPainted(testCtx(t), nodes, needle, tc.skip)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("TextPainted skipping %q = %v, want %v", tc.skip, got, tc.want)
		}
	}
}
