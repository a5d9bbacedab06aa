package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// BenchmarkLoadFloor is the raw floor of cmd/chaperone's BenchmarkLoad: the
// same demo flow, in 1, 4, 8 and 16 concurrent clients, each in a browser
// context of its own on one browser launched with the server's flags, done
// with raw protocol calls and nothing else: the click's three mouse events at
// the element's centre (found by one Runtime.evaluate), a wait for
// DOMContentLoaded when the click navigates, the select's value set by
// script, and after each step the floor's snapshot (the accessibility tree
// and a screenshot of the tool's size). It reports what BenchmarkLoad
// reports: click and snapshot p50 and p95, the click p95 against its fair
// share (the single client's p95 stretched by clients / cores), CPU
// milliseconds per call by process kind, and the PSS each session adds.
// `make bench-load` runs both and prints them side by side.
func BenchmarkLoadFloor(b *testing.B) {
	site := browsertest.Site(b)
	var single time.Duration
	for _, n := range []int{1, 4, 8, 16} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			fb := browsertest.NewBrowser(b, browser.Options{})
			if _, err := rawFlow(b.Context(), fb, site); err != nil {
				b.Fatalf("warm-up: %v", err)
			}
			pid := fb.Process().Pid
			base := browsertest.PSSByKind(pid)
			mem := browsertest.WatchPSS(pid, 50*time.Millisecond)
			cpuStart, ours := browsertest.SnapshotCPU(pid), browsertest.CPUTime(os.Getpid())
			lat := map[string][]time.Duration{}
			errs := 0
			for b.Loop() {
				var wg sync.WaitGroup
				took := make([]map[string][]time.Duration, n)
				errors := make([]error, n)
				for i := range n {
					wg.Go(func() { took[i], errors[i] = rawFlow(b.Context(), fb, site) })
				}
				wg.Wait()
				for i := range n {
					for k, v := range took[i] {
						lat[k] = append(lat[k], v...)
					}
					if errors[i] != nil {
						if errs++; errs == 1 {
							// The benchmark's log keeps only its first lines.
							b.Logf("first client error: %v", errors[i])
						}
					}
				}
			}
			cpu := browsertest.SnapshotCPU(pid).Since(cpuStart)
			// The benchmark's own process stands in for the server: it
			// sends the calls and decodes the answers.
			cpu[browsertest.KindServer] = int64(browsertest.CPUTime(os.Getpid()) - ours)
			peak, _ := mem.Stop()
			calls := 0
			for _, v := range lat {
				calls += len(v)
			}
			q := func(name string, p float64) time.Duration {
				ds := slices.Clone(lat[name])
				if len(ds) == 0 {
					return 0
				}
				slices.Sort(ds)
				return ds[min(len(ds)-1, int(p*float64(len(ds))))]
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			click := q("click", 0.95)
			if n == 1 {
				single = click
			}
			stretch := max(1, float64(n)/float64(runtime.NumCPU()))
			for _, name := range []string{"first_snapshot", "get_snapshot", "click", "select"} {
				b.ReportMetric(ms(q(name, 0.5)), name+"-p50-ms")
				b.ReportMetric(ms(q(name, 0.95)), name+"-p95-ms")
			}
			b.ReportMetric(float64(click)/(stretch*float64(single)), "click-p95-fair")
			b.ReportMetric(float64(errs), "errors")
			b.ReportMetric(float64(cpu.Total())/1e6/float64(calls), "cpu-ms/call")
			b.ReportMetric(float64(peak-base.Total())/float64(n)/(1<<20), "pss-MB/session")
			b.Logf("\n%d clients, %d calls, %d errors: click p50 %.0f ms, p95 %.0f ms (%.2f× its fair share)\n"+
				"CPU ms per call: %.1f (%s)",
				n, calls, errs, ms(q("click", 0.5)), ms(click), float64(click)/(stretch*float64(single)),
				float64(cpu.Total())/1e6/float64(calls), browsertest.FormatKinds(cpu, 1e6*float64(calls), "%.1f"))
		})
	}
}

// rawStep is one step of the floor's flow: a click on the element of a CSS
// selector (navigating or not), the survey's select, or a snapshot alone.
type rawStep struct {
	name     string // what BenchmarkLoad calls it: click, select, get_snapshot…
	selector string
	navigate bool
}

// rawFlowSteps is the demo flow of BenchmarkLoad, step for step.
var rawFlowSteps = []rawStep{
	{"click", "#cancel-membership", true},
	{"get_snapshot", "", false},
	{"click", "#continue-cancel", true},
	{"click", "#reason-price", false},
	{"select", "#tenure", false},
	{"click", "#survey-continue", true},
	{"get_snapshot", "", false},
	{"click", "#finish-cancellation", true},
	{"complete_task", "", false},
}

// rawFlow runs the demo flow with raw protocol calls in a new tab (an
// isolated context) of fb, and returns each step's time by name.
func rawFlow(ctx context.Context, fb *browser.Browser, site string) (map[string][]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	took := map[string][]time.Duration{}
	start := time.Now()
	tab, err := fb.NewContext(ctx)
	if err != nil {
		return took, fmt.Errorf("open a tab: %w", err)
	}
	defer tab.Close()
	err = rawLoad(ctx, tab, func() error {
		_, err := browser.CallForTest(ctx, tab, page.Navigate, page.NavigateParams{URL: site + "/account"})
		return err
	})
	if err == nil {
		err = rawSnap(ctx, tab)
	}
	if err != nil {
		return took, fmt.Errorf("open /account: %w", err)
	}
	took["first_snapshot"] = append(took["first_snapshot"], time.Since(start))
	for _, st := range rawFlowSteps {
		start := time.Now()
		if err := rawDo(ctx, tab, st); err != nil {
			return took, fmt.Errorf("%s %s: %w", st.name, st.selector, err)
		}
		took[st.name] = append(took[st.name], time.Since(start))
	}
	return took, nil
}

// rawDo performs one step and takes the floor's snapshot after it.
func rawDo(ctx context.Context, tab *browser.Context, st rawStep) error {
	switch {
	case st.name == "select":
		expr := `(() => { const s = document.querySelector('#tenure'); s.value = '1to3'; s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true})); })()`
		if _, err := browser.CallForTest(ctx, tab, rawEvaluate, rawMap{"expression": expr}); err != nil {
			return err
		}
	case st.selector != "":
		res, err := browser.CallForTest(ctx, tab, rawEvaluate, rawMap{"returnByValue": true,
			"expression": fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, st.selector)})
		var at struct {
			Result struct{ Value [2]float64 } `json:"result"`
		}
		if err != nil || json.Unmarshal(res, &at) != nil {
			return fmt.Errorf("find it: %v %s", err, res)
		}
		click := func() error {
			for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
				p := rawMap{"type": typ, "x": at.Result.Value[0], "y": at.Result.Value[1], "button": "left", "clickCount": 1}
				if typ == "mouseMoved" {
					p["button"] = "none"
				}
				if _, err := browser.CallForTest(ctx, tab, rawMouse, p); err != nil {
					return err
				}
			}
			return nil
		}
		if st.navigate {
			err = rawLoad(ctx, tab, click)
		} else {
			err = click()
		}
		if err != nil {
			return err
		}
	}
	return rawSnap(ctx, tab)
}

// rawLoad runs act and waits for the next DOMContentLoaded of the tab.
func rawLoad(ctx context.Context, tab *browser.Context, act func() error) error {
	c, cancel := browser.TabContextForTest(ctx, tab)
	defer cancel()
	c, cancelWait := context.WithTimeout(c, 30*time.Second)
	defer cancelWait()
	ready := chromedp.Events(c, page.DomContentEventFired)
	if err := act(); err != nil {
		return err
	}
	for _, err := range ready {
		return err
	}
	return c.Err()
}

// rawSnap is rawSnapshot returning its error, for the floor's clients,
// which run off the benchmark's goroutine.
func rawSnap(ctx context.Context, tab *browser.Context) error {
	ax := cdp.Command[accessibility.GetFullAXTreeParams, browser.RawForTest]{Method: accessibility.CommandGetFullAXTree}
	if _, err := browser.CallForTest(ctx, tab, ax, accessibility.GetFullAXTreeParams{}); err != nil {
		return err
	}
	const w, h = 1280, 720
	_, err := browser.CallForTest(ctx, tab, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng,
		Clip: &page.Viewport{Width: w, Height: h,
			Scale: browser.ScreenshotScale(w, h, browser.DefaultImageTokens)},
		CaptureBeyondViewport: new(false),
	})
	return err
}
