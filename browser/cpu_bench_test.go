package browser_test

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// BenchmarkCaptureCPU is where the CPU of one capture goes: the CPU time of
// a browser of the benchmark's own, per process kind (browser, renderer,
// GPU, utility), per capture, for each part of the capture alone and for
// the raw floor, on a flow page and a large one. Wall-clock time on a shared
// machine says how busy the others are; CPU time says what a capture costs
// whoever else runs.
func BenchmarkCaptureCPU(b *testing.B) {
	site := browsertest.Site(b)
	fb := browsertest.NewBrowser(b, browser.Options{})
	tab := browsertest.TabOf(b, fb)
	pid := fb.Process().Pid
	variants := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"floor", func(b *testing.B) { rawSnapshot(b, tab) }},
		{"no-screenshot", captureWith(tab, browser.CaptureOptions{})},
		{"png", captureWith(tab, browser.CaptureOptions{Screenshot: true})},
		{"jpeg-80", captureWith(tab, browser.CaptureOptions{Screenshot: true, Format: "jpeg"})},
		{"screenshot-only", func(b *testing.B) {
			if _, err := tab.Screenshot(b.Context(), browser.CaptureOptions{Screenshot: true}); err != nil {
				b.Fatal(err)
			}
		}},
	}
	for _, path := range []string{"/account", "/variants/large"} {
		for _, v := range variants {
			b.Run(path[1:]+"/"+v.name, func(b *testing.B) {
				if err := tab.Navigate(b.Context(), site+path); err != nil {
					b.Fatal(err)
				}
				v.run(b) // warm
				start, ours := browsertest.SnapshotCPU(pid), cpuNow()
				for b.Loop() {
					v.run(b)
				}
				cpu := browsertest.SnapshotCPU(pid).Since(start)
				cpu[browsertest.KindServer] = int64(cpuNow() - ours)
				reportCPU(b, cpu, b.N)
			})
		}
	}
}

// captureWith is a capture with opts as a benchmark step.
func captureWith(tab *browser.Context, opts browser.CaptureOptions) func(b *testing.B) {
	return func(b *testing.B) {
		if _, err := tab.Capture(b.Context(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuNow is the CPU time this process (the benchmark, standing in for the
// server's share) has used.
func cpuNow() time.Duration { return browsertest.CPUTime(os.Getpid()) }

// reportCPU reports the CPU milliseconds per operation, in all and for the
// kinds of process that use most, over n operations.
func reportCPU(b *testing.B, cpu browsertest.ByKind, n int) {
	per := func(v int64) float64 { return float64(v) / 1e6 / float64(n) }
	b.ReportMetric(per(cpu.Total()), "cpu-ms/op")
	for _, k := range []string{browsertest.KindServer, browsertest.KindBrowser, browsertest.KindRenderer, browsertest.KindGPU, browsertest.KindEnded} {
		b.ReportMetric(per(cpu[k]), k+"-cpu-ms/op")
	}
}

// BenchmarkStepCPU is the CPU time of the steps a session is made of, with
// raw protocol calls on a browser of the benchmark's own: opening and
// closing a session's isolated context and page (open-close), and a
// same-site navigation to a flow page and back (navigate). Beside
// BenchmarkCaptureCPU it shows where a flow's CPU goes.
func BenchmarkStepCPU(b *testing.B) {
	site := browsertest.Site(b)
	fb := browsertest.NewBrowser(b, browser.Options{})
	pid := fb.Process().Pid
	// openClose measures opening a context, doing in it what visit does,
	// and closing it.
	openClose := func(visit func(b *testing.B, tab *browser.Context)) func(b *testing.B) {
		return func(b *testing.B) {
			start, ours := browsertest.SnapshotCPU(pid), cpuNow()
			for b.Loop() {
				tab, err := fb.NewContext(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				visit(b, tab)
				if err := tab.Close(); err != nil {
					b.Fatal(err)
				}
			}
			cpu := browsertest.SnapshotCPU(pid).Since(start)
			cpu[browsertest.KindServer] = int64(cpuNow() - ours)
			reportCPU(b, cpu, b.N)
		}
	}
	b.Run("open-close", openClose(func(*testing.B, *browser.Context) {}))
	b.Run("open-navigate-close", openClose(func(b *testing.B, tab *browser.Context) {
		if err := rawLoad(b.Context(), tab, func() error {
			_, err := browser.CallForTest(b.Context(), tab, page.Navigate, page.NavigateParams{URL: site + "/account"})
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}))
	b.Run("navigate", func(b *testing.B) {
		tab := browsertest.TabOf(b, fb)
		paths := []string{"/account", "/retention"}
		start, ours := browsertest.SnapshotCPU(pid), cpuNow()
		i := 0
		for b.Loop() {
			i++
			if err := rawLoad(b.Context(), tab, func() error {
				_, err := browser.CallForTest(b.Context(), tab, page.Navigate, page.NavigateParams{URL: site + paths[i%2]})
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
		cpu := browsertest.SnapshotCPU(pid).Since(start)
		cpu[browsertest.KindServer] = int64(cpuNow() - ours)
		reportCPU(b, cpu, b.N)
	})
}
