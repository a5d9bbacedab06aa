package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chromedp/cdproto/cdp"
)

// modeBrowser launches a browser for the test with opts, or, for the mode
// "attached", connects to a Chromium started as the person's own browser
// (Options.Attached), where each tab's guards judge its documents.
func modeBrowser(t *testing.T, mode string, opts browser.Options) *browser.Browser {
	t.Helper()
	if mode == "attached" {
		opts.CDPEndpoint, opts.Attached = browsertest.StartChromium(t, 0).HTTP, true
	}
	return browsertest.NewBrowser(t, opts)
}

// The interceptor sees the document requests of every target of a tab: the
// tab, its same-process and out-of-process frames, a popup's first
// navigation and each hop of a redirect. Refused ones fail, the page stays,
// and the tab gets the refusals. So it is in the person's own browser too.
func TestDocumentPolicy(t *testing.T) {
	for _, mode := range []string{"isolated", "attached"} {
		t.Run(mode, func(t *testing.T) { testDocumentPolicy(t, mode) })
	}
}

func testDocumentPolicy(t *testing.T, mode string) {
	site := browsertest.Site(t)
	other := strings.Replace(site, "127.0.0.1", "localhost", 1)
	var asked []string
	askedc := make(chan string, 100)
	b := modeBrowser(t, mode, browser.Options{DocumentPolicy: func(ctx context.Context, u string) error {
		askedc <- u
		if strings.HasPrefix(u, other) {
			return errors.New("that is elsewhere")
		}
		return nil
	}})
	gesture := cdp.Command[map[string]any, json.RawMessage]{Method: "Runtime.evaluate"}
	cases := []struct {
		name, id, to string
		page         bool // the refusal is a page's, not a frame's
	}{
		{"link", "partner-link", other + "/help?secret=1", true},
		{"redirect", "partner-redirect", other + "/help?secret=1", true},
		{"script", "partner-script", other + "/help?secret=1", true},
		{"popup", "partner-popup", other + "/help?secret=1", true},
		{"cross-site frame", "partner-frame", other + "/help?secret=1", false},
		{"same-site frame, redirected", "partner-frame", site + "/redirect?to=" + url.QueryEscape(other+"/help?secret=1"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := browsertest.TabOf(t, b)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			start := site + "/variants/offsite?to=" + url.QueryEscape(c.to)
			if err := tab.Navigate(ctx, start); err != nil {
				t.Fatal(err)
			}
			_, err := tab.Settle(ctx, func(ctx context.Context) error {
				_, err := browser.CallForTest(ctx, tab, gesture, map[string]any{
					"expression": "document.getElementById('" + c.id + "').click()", "userGesture": true})
				return err
			}, browser.Wait{Quiet: 50 * time.Millisecond, Limit: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got := tab.URL(); got != start {
				t.Errorf("the page went to %s, want it to stay at %s", got, start)
			}
			want := []browser.Blocked{{URL: other + "/help", Reason: "that is elsewhere", Page: c.page}}
			got := tab.TakeBlocked(ctx)
			if !slices.Equal(got, want) {
				t.Errorf("TakeBlocked = %+v, want %+v", got, want)
			}
			if again := tab.TakeBlocked(ctx); len(again) != 0 {
				t.Errorf("a second TakeBlocked = %+v, want nothing", again)
			}
		})
	}
	for len(askedc) > 0 {
		asked = append(asked, <-askedc)
	}
	if !slices.Contains(asked, site+"/redirect?to="+url.QueryEscape(other+"/help?secret=1")) {
		t.Errorf("the policy was not asked about the redirect's first hop; asked %q", asked)
	}
}

// Navigate to a refused URL says why.
func TestNavigateRefused(t *testing.T) {
	for _, mode := range []string{"isolated", "attached"} {
		t.Run(mode, func(t *testing.T) { testNavigateRefused(t, mode) })
	}
}

func testNavigateRefused(t *testing.T, mode string) {
	site := browsertest.Site(t)
	b := modeBrowser(t, mode, browser.Options{DocumentPolicy: func(ctx context.Context, u string) error {
		if strings.Contains(u, "/help") {
			return errors.New("help is refused")
		}
		return nil
	}})
	tab := browsertest.TabOf(t, b)
	err := tab.Navigate(t.Context(), site+"/help?q=1")
	want := "navigating to " + site + "/help: blocked by policy: help is refused"
	if err == nil || err.Error() != want {
		t.Errorf("Navigate = %v, want %q", err, want)
	}
	if err := tab.Navigate(t.Context(), site+"/account"); err != nil {
		t.Errorf("the tab is not usable after a refusal: %v", err)
	}
	if mode == "attached" {
		// The person's browser is never relaunched nor reconnected to
		// (TestPersonsBrowserClosedIsNotRecovered).
		return
	}
	// A relaunched browser enforces the policy too.
	if err := b.Relaunch(t.Context()); err != nil {
		t.Fatal(err)
	}
	tab = browsertest.TabOf(t, b)
	if err := tab.Navigate(t.Context(), site+"/help?q=1"); err == nil || err.Error() != want {
		t.Errorf("after a relaunch, Navigate = %v, want %q", err, want)
	}
}

// BenchmarkNavigatePolicy is the cost of the document policy: navigations
// to a small page on a browser that checks every document request,
// alternating in one loop with the same navigations on a browser that does
// not (the floor), so that both see the same load.
func BenchmarkNavigatePolicy(b *testing.B) {
	base := browsertest.Serve(b, pages())
	check := func(ctx context.Context, u string) error {
		if _, err := url.Parse(u); err != nil {
			return err
		}
		return nil
	}
	with := browsertest.TabOf(b, browsertest.NewBrowser(b, browser.Options{DocumentPolicy: check}))
	without := browsertest.TabOf(b, browsertest.NewBrowser(b, browser.Options{}))
	var floor, policed time.Duration
	for b.Loop() {
		start := time.Now()
		if err := without.Navigate(b.Context(), base+"/plain"); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if err := with.Navigate(b.Context(), base+"/plain"); err != nil {
			b.Fatal(err)
		}
		floor += mid.Sub(start)
		policed += time.Since(mid)
	}
	b.ReportMetric(float64(floor.Microseconds())/float64(b.N)/1000, "floor-ms")
	b.ReportMetric(float64(policed.Microseconds())/float64(b.N)/1000, "policy-ms")
	b.ReportMetric(float64(policed)/float64(floor), "ratio")
}
