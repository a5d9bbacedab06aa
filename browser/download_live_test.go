package browser_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestDownloads: navigations that turn into downloads end at once with the
// file saved under a safe, unique name; one over the cap leaves nothing.
func TestDownloads(t *testing.T) {
	t.Parallel()
	// The directory first, so that it is removed after the context
	// closes (cleanups run last first): a cancelled download's file may
	// be written to until then.
	dir := t.TempDir()
	tab := browsertest.Tab(t)
	site := browsertest.Site(t)
	ctx := testCtx(t)
	if err := tab.SetDownloads(ctx, browser.DownloadOptions{Dir: dir, MaxBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if err := tab.Navigate(ctx, site+"/hostile/download-links"); err != nil {
		t.Fatal(err)
	}
	get := func(query string) []browser.Download {
		t.Helper()
		_, err := tab.Settle(ctx, func(c context.Context) error { return tab.Go(c, site+"/download?"+query) },
			browser.Wait{Quiet: 50 * time.Millisecond, Limit: 2 * time.Second, Navigation: 10 * time.Second})
		if err != nil {
			t.Fatalf("navigating to a download: %v", err)
		}
		return tab.TakeDownloads(ctx)
	}
	// Chromium cleans the name a little itself; whatever it leaves, the
	// second file of that name must not replace the first.
	var first string
	for i := range 2 {
		got := get("enc=1&name=..%2F..%2Fetc%2Freport%E2%80%AE.csv")
		if len(got) != 1 || got[0].State != browser.DownloadSaved {
			t.Fatalf("download %d = %+v, want one saved", i, got)
		}
		d := got[0]
		if filepath.Dir(d.Path) != dir || strings.ContainsAny(d.Name, "/\\\u202e") || strings.HasPrefix(d.Name, ".") {
			t.Errorf("download %d saved as %q at %q: not a safe name in %s", i, d.Name, d.Path, dir)
		}
		if i == 0 {
			first = d.Name
		} else if want := strings.TrimSuffix(first, ".csv") + " (2).csv"; d.Name != want {
			t.Errorf("second download named %q, want %q", d.Name, want)
		}
		data, err := os.ReadFile(d.Path)
		if err != nil || !bytes.Equal(data, fixtures.DownloadBody(0)) || d.Bytes != int64(len(data)) {
			t.Errorf("download %d: file %q (%v), %d bytes reported", i, data, err, d.Bytes)
		}
	}
	got := get("name=big.csv&size=4194304")
	if len(got) != 1 || got[0].State != browser.DownloadTooLarge {
		t.Fatalf("big download = %+v, want too_large", got)
	}
	if names := browsertest.DirNames(t, dir); len(names) != 2 || slices.Contains(names, "big.csv") {
		t.Errorf("directory holds %q after the big download, want the two reports only", names)
	}
	if r := tab.Downloads(); len(r) != 3 {
		t.Errorf("Downloads() = %+v, want the three", r)
	}
}

// TestDownloadsAfterRelaunch: a tab whose browser was relaunched lives in a
// fresh browser context, which saves its downloads into the tab's directory
// again, not nowhere.
func TestDownloadsAfterRelaunch(t *testing.T) {
	dir := t.TempDir() // removed after the browser closes, as in TestDownloads
	site := browsertest.Site(t)
	b := browsertest.NewBrowser(t, browser.Options{})
	tab := browsertest.TabOf(t, b)
	ctx := testCtx(t)
	if err := tab.SetDownloads(ctx, browser.DownloadOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if err := tab.Navigate(ctx, site+"/hostile/download-links"); err != nil {
		t.Fatal(err)
	}
	if err := b.Relaunch(ctx); err != nil {
		t.Fatal(err)
	}
	if restarted, _, err := tab.Recover(ctx); err != nil || !restarted {
		t.Fatalf("Recover = %v, %v; want a restart", restarted, err)
	}
	_, err := tab.Settle(ctx, func(c context.Context) error { return tab.Go(c, site+"/download?name=after.csv") },
		browser.Wait{Quiet: 50 * time.Millisecond, Limit: 2 * time.Second, Navigation: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got := tab.TakeDownloads(ctx)
	if len(got) != 1 || got[0].State != browser.DownloadSaved || filepath.Dir(got[0].Path) != dir {
		t.Fatalf("download after a relaunch = %+v, want one saved in %s", got, dir)
	}
}
