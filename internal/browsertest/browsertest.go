// Package browsertest is the shared harness for tests that need a real
// browser: one Chromium per test binary, a fresh isolated tab per test, and
// the demo site on an httptest server.
//
// A package that uses it calls Main from its TestMain, so that the shared
// browser is closed when the tests end:
//
//	func TestMain(m *testing.M) { browsertest.Main(m) }
//
// The browser is found as browser.Launch finds it (CHROME_PATH, then the
// usual places; CI installs /usr/bin/chromium). No browser is a test
// failure, never a skip.
package browsertest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
)

// launchTimeout bounds the launch of a browser and the opening of a tab.
const launchTimeout = 60 * time.Second

// shared is the browser of the test binary. It is package state because it
// lives exactly as long as the test binary: Browser starts it, Main ends it.
var shared struct {
	mu sync.Mutex
	b  *browser.Browser
}

// Main runs the tests of a package and then closes the shared browser. Call
// it from TestMain.
func Main(m *testing.M) {
	m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.b != nil {
		shared.b.Close()
		shared.b = nil
	}
}

// Browser returns the browser shared by the tests of the binary, launching
// it on first use (and relaunching it if it died). It fails the test when no
// browser can be launched.
func Browser(t testing.TB) *browser.Browser {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), launchTimeout)
	defer cancel()
	if shared.b != nil {
		if shared.b.Alive() {
			return shared.b
		}
		if err := shared.b.Relaunch(ctx); err != nil {
			t.Fatalf("browsertest: relaunching the shared browser: %v", err)
		}
		return shared.b
	}
	b, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		t.Fatalf("browsertest: cannot launch a browser for the tests: %v\n"+
			"Install Chromium (Debian/Ubuntu: apt-get install chromium; or `make test`, which does it) "+
			"or point CHROME_PATH at a Chromium or Chrome binary.", err)
	}
	shared.b = b
	return b
}

// NewBrowser launches a browser of the test's own, closed when the test
// ends: for tests that kill or relaunch it.
func NewBrowser(t testing.TB, opts browser.Options) *browser.Browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), launchTimeout)
	defer cancel()
	b, err := browser.Launch(ctx, opts)
	if err != nil {
		t.Fatalf("browsertest: cannot launch a browser for the test: %v\n"+
			"Install Chromium (Debian/Ubuntu: apt-get install chromium) or point CHROME_PATH at one.", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("browsertest: closing the browser: %v", err)
		}
	})
	return b
}

// Tab returns a fresh tab in its own browser context of the shared browser,
// closed when the test ends.
func Tab(t testing.TB) *browser.Context {
	t.Helper()
	return TabOf(t, Browser(t))
}

// TabOf returns a fresh tab of b, closed when the test ends.
func TabOf(t testing.TB, b *browser.Browser) *browser.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), launchTimeout)
	defer cancel()
	tab, err := b.NewContext(ctx)
	if err != nil {
		t.Fatalf("browsertest: opening a tab: %v", err)
	}
	t.Cleanup(func() {
		if err := tab.Close(); err != nil {
			t.Errorf("browsertest: closing the tab: %v", err)
		}
	})
	return tab
}

// Site returns the base URL (no trailing slash) of an httptest server that
// serves the demo site, closed when the test ends.
func Site(t testing.TB) string {
	t.Helper()
	return Serve(t, siteHandler())
}

// Serve returns the base URL of an httptest server for h, closed when the
// test ends.
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
