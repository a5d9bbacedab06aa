package browser_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// benchPages are the pages of the benchmarks: a small page and a large one
// (2,000 rows with a button, a link and an input each).
var benchPages = []struct{ name, path string }{
	{"plain", "/plain"},
	{"frame", "/frame"},
	{"big500", "/big?n=500"},
}

// BenchmarkCapture is a full Capture with the default screenshot; compare
// it with BenchmarkFloor on the same page.
func BenchmarkCapture(b *testing.B) {
	onBenchPages(b, func(b *testing.B, tab *browser.Context) {
		var bytes, nodes int
		for b.Loop() {
			c, err := tab.Capture(b.Context(), browser.CaptureOptions{Screenshot: true})
			if err != nil {
				b.Fatal(err)
			}
			bytes = len(c.Screenshot.Data)
			nodes = len(c.DOM)
		}
		b.ReportMetric(float64(bytes), "img-bytes")
		b.ReportMetric(float64(nodes), "dom-bytes")
	})
}

// onBenchPages runs bench as a sub-benchmark on each of benchPages, with
// tab at that page.
func onBenchPages(b *testing.B, bench func(b *testing.B, tab *browser.Context)) {
	base := browsertest.Serve(b, pages())
	tab := browsertest.Tab(b)
	for _, p := range benchPages {
		b.Run(p.name, func(b *testing.B) {
			if err := tab.Navigate(b.Context(), base+p.path); err != nil {
				b.Fatal(err)
			}
			bench(b, tab)
		})
	}
}

// BenchmarkFloor is the raw floor of a capture: one Accessibility.getFullAXTree
// and one Page.captureScreenshot of the default screenshot's size, one after
// the other, with no decoding beyond the transport's.
func BenchmarkFloor(b *testing.B) {
	onBenchPages(b, func(b *testing.B, tab *browser.Context) {
		for b.Loop() {
			rawSnapshot(b, tab)
		}
	})
}

// BenchmarkCaptureParts times each call of a capture alone, to show where
// the time goes.
func BenchmarkCaptureParts(b *testing.B) {
	base := browsertest.Serve(b, pages())
	tab := browsertest.Tab(b)
	if err := tab.Navigate(b.Context(), base+"/big?n=500"); err != nil {
		b.Fatal(err)
	}
	parts := []struct {
		name string
		opts browser.CaptureOptions
	}{
		{"no-screenshot", browser.CaptureOptions{}},
		{"png-500", browser.CaptureOptions{Screenshot: true}},
		{"jpeg-500", browser.CaptureOptions{Screenshot: true, Format: "jpeg"}},
		{"png-full", browser.CaptureOptions{Screenshot: true, ImageTokens: 100000}},
	}
	for _, p := range parts {
		b.Run(fmt.Sprint(p.name), func(b *testing.B) {
			for b.Loop() {
				if _, err := tab.Capture(b.Context(), p.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCaptureRatio alternates the floor and a full Capture on the same
// page in one loop, so that both see the same load, and reports their
// ratio (capture/floor) beside the two times.
func BenchmarkCaptureRatio(b *testing.B) {
	onBenchPages(b, func(b *testing.B, tab *browser.Context) {
		var floor, capt time.Duration
		for b.Loop() {
			start := time.Now()
			rawSnapshot(b, tab)
			mid := time.Now()
			if _, err := tab.Capture(b.Context(), browser.CaptureOptions{Screenshot: true}); err != nil {
				b.Fatal(err)
			}
			floor += mid.Sub(start)
			capt += time.Since(mid)
		}
		b.ReportMetric(float64(floor.Microseconds())/float64(b.N)/1000, "floor-ms")
		b.ReportMetric(float64(capt.Microseconds())/float64(b.N)/1000, "capture-ms")
		b.ReportMetric(float64(capt)/float64(floor), "ratio")
	})
}

// BenchmarkCrossSiteFrame alternates a full Capture of a page with one
// cross-site iframe and its raw floor, in one loop so that both see the
// same load: the page's accessibility tree and screenshot (BenchmarkFloor)
// and then the frame's accessibility tree and DOM snapshot through a
// session of its own, one call after the other.
func BenchmarkCrossSiteFrame(b *testing.B) {
	base := browsertest.Serve(b, pages())
	tab := browsertest.Tab(b)
	if err := tab.Navigate(b.Context(), base+"/xframe"); err != nil {
		b.Fatal(err)
	}
	frame := frameSession(b, tab)
	var floor, capt time.Duration
	for b.Loop() {
		start := time.Now()
		rawSnapshot(b, tab)
		rawFrame(b, frame)
		mid := time.Now()
		c, err := tab.Capture(b.Context(), browser.CaptureOptions{Screenshot: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(c.RemoteDOM) != 1 {
			b.Fatalf("%d out-of-process frames captured, want 1", len(c.RemoteDOM))
		}
		floor += mid.Sub(start)
		capt += time.Since(mid)
	}
	b.ReportMetric(float64(floor.Microseconds())/float64(b.N)/1000, "floor-ms")
	b.ReportMetric(float64(capt.Microseconds())/float64(b.N)/1000, "capture-ms")
	b.ReportMetric(float64(capt)/float64(floor), "ratio")
}
