package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// BenchmarkClickDelivery measures what confirming delivery adds to a click:
// a raw click (Click) and a confirmed one (ClickElement) on the same
// button, alternating in one loop so that a busy machine slows both alike,
// in the page and in a cross-site frame. ratio is confirmed over raw.
func BenchmarkClickDelivery(b *testing.B) {
	site := browsertest.Site(b)
	for _, bc := range []struct{ name, path, button string }{
		{"page", "/hostile/delivery-edges", "Stopped"},
		{"cross-site frame", "/variants/cross-site-checkout", "Pay"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tab := browsertest.Tab(b)
			ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
			defer cancel()
			if err := tab.Navigate(ctx, site+bc.path); err != nil {
				b.Fatal(err)
			}
			c, err := tab.Capture(ctx, browser.CaptureOptions{})
			if err != nil {
				b.Fatal(err)
			}
			s, table, _ := snapshot.Build(c, snapshot.Options{}, 0)
			e, ok := s.Find("button", bc.button)
			if !ok {
				b.Fatalf("no button %q", bc.button)
			}
			node := table[e.Ref].BackendNodeID
			in, err := tab.Inspect(ctx, node, true)
			if err != nil {
				b.Fatal(err)
			}
			var raw, confirmed time.Duration
			for b.Loop() {
				start := time.Now()
				if err := tab.Click(ctx, in.X, in.Y); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				if err := tab.ClickElement(ctx, node, in.X, in.Y); err != nil {
					b.Fatal(err)
				}
				raw += mid.Sub(start)
				confirmed += time.Since(mid)
			}
			n := float64(b.N)
			b.ReportMetric(float64(raw.Microseconds())/n/1000, "raw-ms")
			b.ReportMetric(float64(confirmed.Microseconds())/n/1000, "confirmed-ms")
			b.ReportMetric(float64(confirmed)/float64(raw), "ratio")
		})
	}
}

// BenchmarkInspect measures the check before an action (Inspect) on a
// button of the page, of a frame in the page's process (another origin of
// the same site) and of a cross-site frame: what running the judging
// scripts in an isolated world of the node's frame costs per action.
func BenchmarkInspect(b *testing.B) {
	site := browsertest.Site(b)
	for _, bc := range []struct{ name, path, button string }{
		{"page", "/hostile/delivery-edges", "Stopped"},
		{"same-site frame", "/hostile/delivery-host?inner=delivery-cover&same=1", "Apply coupon"},
		{"cross-site frame", "/variants/cross-site-checkout", "Pay"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tab := browsertest.Tab(b)
			ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
			defer cancel()
			if err := tab.Navigate(ctx, site+bc.path); err != nil {
				b.Fatal(err)
			}
			c, err := tab.Capture(ctx, browser.CaptureOptions{})
			if err != nil {
				b.Fatal(err)
			}
			s, table, _ := snapshot.Build(c, snapshot.Options{}, 0)
			e, ok := s.Find("button", bc.button)
			if !ok {
				b.Fatalf("no button %q", bc.button)
			}
			node := table[e.Ref].BackendNodeID
			for b.Loop() {
				if _, err := tab.Inspect(ctx, node, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
