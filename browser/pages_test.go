package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// actionWait is how the tools wait after an action.
var actionWait = browser.Wait{Quiet: 50 * time.Millisecond, Limit: 2 * time.Second, Navigation: 10 * time.Second}

// centre returns the viewport centre of the element with id on the current
// page.
func centre(t *testing.T, tab *browser.Context, id string) (x, y float64) {
	t.Helper()
	var box struct{ X, Y float64 }
	err := tab.Evaluate(testCtx(t), `(() => { const r = document.getElementById(`+jsString(id)+`).getBoundingClientRect();
		return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &box)
	if err != nil {
		t.Fatalf("finding #%s: %v", id, err)
	}
	return box.X, box.Y
}

func jsString(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// clickSettle clicks the element with id on the current page and settles.
func clickSettle(t *testing.T, tab *browser.Context, id string, w browser.Wait) (browser.Outcome, error) {
	t.Helper()
	x, y := centre(t, tab, id)
	return tab.Settle(testCtx(t), func(ctx context.Context) error { return tab.Click(ctx, x, y) }, w)
}

// mustSettle is clickSettle that fails the test on an error.
func mustSettle(t *testing.T, tab *browser.Context, id string) browser.Outcome {
	t.Helper()
	out, err := clickSettle(t, tab, id, actionWait)
	if err != nil {
		t.Fatalf("click #%s: %v", id, err)
	}
	return out
}

func TestSettleFollowsNavigation(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	tests := []struct {
		link, wantURL, wantTitle string
		// loading: the new page's subresources still load when the
		// action ends (the 6 s image), which is what lets it end early.
		loading bool
	}{
		{"slow-link", "/variants/slow-image", "Slow image - StreamFlix", true},
		{"plain-link", "/help", "Help Center - StreamFlix", false},
		{"redirect-link", "/help", "Help Center - StreamFlix", false},
	}
	tab := browsertest.Tab(t)
	for _, tt := range tests {
		t.Run(tt.link, func(t *testing.T) {
			navigate(t, tab, site+"/variants/links")
			out := mustSettle(t, tab, tt.link)
			if tt.loading && !out.Loading {
				t.Errorf("Loading = false: the settle waited for the 6 s image (waited %s)", out.Waited)
			}
			if out.Capture != nil || out.Opened != nil || out.Closed != nil {
				t.Errorf("outcome %+v: a navigation keeps no early capture and opens no page", out)
			}
			c := captureOf(t, tab, browser.CaptureOptions{})
			if c.URL != site+tt.wantURL || c.Title != tt.wantTitle {
				t.Errorf("after the click: %q at %s, want %q at %s", c.Title, c.URL, tt.wantTitle, site+tt.wantURL)
			}
		})
	}
}

// Navigate, which opens a session's start URL and a recovered page, waits
// for a slow image only a while: it returns while the document still loads.
func TestNavigateDoesNotWaitForSlowSubresources(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	if err := tab.Navigate(testCtx(t), site+"/variants/slow-image?image-ms=25000"); err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	var state string
	if err := tab.Evaluate(testCtx(t), "document.readyState", &state); err != nil {
		t.Fatal(err)
	}
	if state != "interactive" {
		t.Errorf("readyState after Navigate = %q, want interactive: the 25 s image was waited for", state)
	}
	c := captureOf(t, tab, browser.CaptureOptions{})
	if c.Title != "Slow image - StreamFlix" {
		t.Errorf("after Navigate the page is %q at %s", c.Title, c.URL)
	}
}

func TestSettleNavigationTimeout(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	navigate(t, tab, site+"/help")
	w := actionWait
	w.Navigation = 300 * time.Millisecond
	// Only the navigation's budget can end the wait, however late a busy
	// machine reports that it began.
	w.Limit = 15 * time.Second
	// The document's response never comes within the budget: nothing
	// commits.
	never := site + "/slow/image?ms=20000"
	_, err := tab.Settle(testCtx(t), func(ctx context.Context) error { return tab.Go(ctx, never) }, w)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
	if !strings.Contains(err.Error(), "no new document committed") {
		t.Errorf("err = %v, want it to say no document committed", err)
	}
	// The tab is usable, still on the page it was on.
	c := captureOf(t, tab, browser.CaptureOptions{})
	if c.URL != site+"/help" || c.Title != "Help Center - StreamFlix" {
		t.Errorf("after the timeout: %q at %s", c.Title, c.URL)
	}
	out := mustSettleGo(t, tab, site+"/variants/links")
	if out.Opened != nil {
		t.Errorf("outcome %+v", out)
	}
}

// mustSettleGo navigates with Go under Settle.
func mustSettleGo(t *testing.T, tab *browser.Context, url string) browser.Outcome {
	t.Helper()
	out, err := tab.Settle(testCtx(t), func(ctx context.Context) error { return tab.Go(ctx, url) }, actionWait)
	if err != nil {
		t.Fatalf("go to %s: %v", url, err)
	}
	if got := tab.URL(); got != url {
		t.Fatalf("at %s after going to %s", got, url)
	}
	return out
}

func TestHistory(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	if _, err := tab.HistoryEntry(testCtx(t), -1); !errors.Is(err, browser.ErrNoHistory) {
		t.Errorf("back from the first page: %v, want ErrNoHistory", err)
	}
	mustSettleGo(t, tab, site+"/help")
	mustSettleGo(t, tab, site+"/variants/links")
	tests := []struct {
		name    string
		delta   int
		wantURL string
	}{
		{"back", -1, "/help"},
		{"forward", 1, "/variants/links"},
		{"reload", 0, "/variants/links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act := tab.Reload
			if tt.delta != 0 {
				e, err := tab.HistoryEntry(testCtx(t), tt.delta)
				if err != nil {
					t.Fatal(err)
				}
				if e.URL != site+tt.wantURL {
					t.Errorf("entry %d is %s, want %s", tt.delta, e.URL, site+tt.wantURL)
				}
				act = func(ctx context.Context) error { return tab.GoToHistory(ctx, e.ID) }
			}
			// A mark in the document tells a reload from none.
			if err := tab.Evaluate(testCtx(t), "window.mark = 1", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := tab.Settle(testCtx(t), act, actionWait); err != nil {
				t.Fatal(err)
			}
			var marked bool
			if err := tab.Evaluate(testCtx(t), "window.mark === 1", &marked); err != nil {
				t.Fatal(err)
			}
			// Back and forward may restore the document from the
			// back-forward cache, mark and all; a reload never does.
			if got := tab.URL(); got != site+tt.wantURL || (tt.delta == 0 && marked) {
				t.Errorf("at %s (same document: %v), want %s", got, marked, site+tt.wantURL)
			}
		})
	}
	if _, err := tab.HistoryEntry(testCtx(t), 1); !errors.Is(err, browser.ErrNoHistory) {
		t.Errorf("forward from the last page: %v, want ErrNoHistory", err)
	}
}

// wantTitle fails the test unless the current page has the title, when
// says when.
func wantTitle(t *testing.T, tab *browser.Context, title, when string) {
	t.Helper()
	if c := captureOf(t, tab, browser.CaptureOptions{}); c.Title != title {
		t.Errorf("%s: title %q, want %q", when, c.Title, title)
	}
}

// wantPages checks the tab's pages: their URLs (after the site) and which
// is current.
func wantPages(t *testing.T, tab *browser.Context, site string, current int, urls ...string) {
	t.Helper()
	pages := tab.Pages()
	var got []string
	cur := -1
	for i, p := range pages {
		got = append(got, strings.TrimPrefix(p.URL, site))
		if p.Current {
			cur = i
		}
		if p.Index != i {
			t.Errorf("page %d has index %d", i, p.Index)
		}
	}
	if strings.Join(got, " ") != strings.Join(urls, " ") || cur != current {
		t.Errorf("pages %v with %d current, want %v with %d current", got, cur, urls, current)
	}
}

func TestPopupsBecomeCurrent(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	navigate(t, tab, site+"/variants/links")

	// A target=_blank link: the new tab becomes current.
	out := mustSettle(t, tab, "blank-link")
	if out.Opened == nil || out.Opened.URL != site+"/help" || out.Opened.Title != "Help Center - StreamFlix" || !out.Opened.Current {
		t.Fatalf("Opened = %+v, want the help page, current", out.Opened)
	}
	wantPages(t, tab, site, 1, "/variants/links", "/help")
	if c := captureOf(t, tab, browser.CaptureOptions{Screenshot: true}); c.Title != "Help Center - StreamFlix" || c.Screenshot == nil {
		t.Errorf("capture after the new tab: %q, screenshot %v", c.Title, c.Screenshot != nil)
	}

	// Back to the first page; window.open opens a popup.
	if err := tab.SwitchTo(testCtx(t), 0); err != nil {
		t.Fatal(err)
	}
	out = mustSettle(t, tab, "popup-btn")
	if out.Opened == nil || out.Opened.Title != "Special offer - StreamFlix" {
		t.Fatalf("Opened = %+v, want the offer popup", out.Opened)
	}
	wantPages(t, tab, site, 2, "/variants/links", "/help", "/variants/popup")

	// A dialog on the popup is the popup's, and is answered there.
	out = mustSettle(t, tab, "accept-offer")
	if out.Dialog == nil || out.Dialog.Type != "confirm" || out.Dialog.Message != "Accept the offer?" {
		t.Fatalf("Dialog = %+v, want the offer's confirm", out.Dialog)
	}
	if d := tab.Dialog(); d == nil || d.Message != "Accept the offer?" {
		t.Errorf("tab.Dialog() = %+v; pages %+v", d, tab.Pages())
	}
	if err := tab.HandleDialog(testCtx(t), true, ""); err != nil {
		t.Fatal(err)
	}
	var result string
	if !waitUntil(t, 5*time.Millisecond, func() bool {
		return tab.Evaluate(testCtx(t), "document.getElementById('offer-result').textContent", &result) == nil && result == "true"
	}) {
		t.Errorf("offer-result = %q after accepting", result)
	}

	// The popup closes itself: its opener is current again.
	out = mustSettle(t, tab, "close-window")
	if out.Closed == nil || out.Closed.URL != site+"/variants/popup" {
		t.Fatalf("Closed = %+v, want the popup", out.Closed)
	}
	wantPages(t, tab, site, 0, "/variants/links", "/help")
	if err := tab.Err(); err != nil {
		t.Errorf("tab.Err() = %v after the popup closed", err)
	}
	wantTitle(t, tab, "Links and popups - StreamFlix", "capture after the popup closed")
}

func TestOpenSwitchAndClosePages(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	mustSettleGo(t, tab, site+"/help")
	if err := tab.ClosePage(testCtx(t), 0); !errors.Is(err, browser.ErrLastPage) {
		t.Errorf("closing the only page: %v, want ErrLastPage", err)
	}
	if err := tab.OpenPage(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	mustSettleGo(t, tab, site+"/variants/links")
	wantPages(t, tab, site, 1, "/help", "/variants/links")
	if err := tab.SwitchTo(testCtx(t), 2); !errors.Is(err, browser.ErrNoSuchPage) {
		t.Errorf("switching to page 2 of 2: %v, want ErrNoSuchPage", err)
	}
	if err := tab.SwitchTo(testCtx(t), 0); err != nil {
		t.Fatal(err)
	}
	wantTitle(t, tab, "Help Center - StreamFlix", "after switching to page 0")
	// Closing the current page makes the page used last current.
	if err := tab.ClosePage(testCtx(t), 0); err != nil {
		t.Fatal(err)
	}
	wantPages(t, tab, site, 0, "/variants/links")
	wantTitle(t, tab, "Links and popups - StreamFlix", "after closing page 0")
}

// TestRecoverAPopup crashes the renderer of a popup: Recover reopens the
// popup's page in its place, and the tab keeps its other page.
func TestRecoverAPopup(t *testing.T) {
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	navigate(t, tab, site+"/variants/links")
	if out := mustSettle(t, tab, "popup-btn"); out.Opened == nil {
		t.Fatalf("no popup opened: %+v", out)
	}
	if err := tab.CrashRenderer(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	waitErr(t, tab, browser.ErrTabCrashed)
	if _, last, err := tab.Recover(testCtx(t)); err != nil || last != site+"/variants/popup" {
		t.Fatalf("Recover = %q, %v; want the popup", last, err)
	}
	wantPages(t, tab, site, 1, "/variants/links", "/variants/popup")
	wantTitle(t, tab, "Special offer - StreamFlix", "after Recover")
	// The opener shared the popup's renderer; switching to it finds it
	// crashed too, and Recover brings it back.
	if err := tab.SwitchTo(testCtx(t), 0); err != nil && !errors.Is(err, browser.ErrTabCrashed) {
		t.Fatal(err)
	}
	if err := tab.Err(); err != nil {
		if _, _, err := tab.Recover(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	}
	wantTitle(t, tab, "Links and popups - StreamFlix", "after switching back")
}

// TestSettleAFrameThatLoads clicks a button that loads a frame whose image
// is slow: the page settles in place, says it still loads, and the
// navigation budget, far shorter than the image, never comes into it.
func TestSettleAFrameThatLoads(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Frame host</title><button id="load" onclick="document.querySelector('iframe').src = '/framed'">Load</button><iframe></iframe>`)
	})
	mux.HandleFunc("/framed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><p>framed <img src="%s/slow/image?ms=20000"></p>`, site)
	})
	base := browsertest.Serve(t, mux)
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/")
	w := actionWait
	w.Navigation = 300 * time.Millisecond
	out, err := clickSettle(t, tab, "load", w)
	if err != nil {
		t.Fatalf("a frame's slow image failed the click: %v", err)
	}
	if !out.Loading {
		t.Errorf("Loading = false while the frame's image loads")
	}
	if got := tab.URL(); got != base+"/" {
		t.Errorf("the page moved to %s", got)
	}
}
