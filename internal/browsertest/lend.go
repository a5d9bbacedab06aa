package browsertest

import (
	"errors"
	"net/http"
	"sync"
	"testing"
)

// Lender lends running Chromiums to tests that drive the built command, so
// that a test binary starts a few browsers instead of one per server: each
// server connects to its loan (--cdp-endpoint) instead of launching one.
//
// A browser is lent to one test at a time, never shared by two at once: a
// server connected to a browser enforces its document policy on every tab of
// it and takes every download of it, so two servers on one browser would
// judge each other's pages. The zero Lender is ready to use; Close ends its
// browsers.
type Lender struct {
	mu     sync.Mutex
	idle   []*Chromium
	all    []*Chromium
	closed bool
}

// browserFlags are the flags of a browser that browser.Launch would start
// (browser/chromium.go), beyond those startChromium gives every browser, so
// that a server's pages behave on a loan as on the browser it launches.
var browserFlags = []string{
	"--disable-default-apps", "--mute-audio", "--disable-breakpad", "--disable-extensions",
	"--disable-dev-shm-usage", "--disable-hang-monitor", "--disable-client-side-phishing-detection",
	"--disable-features=Translate,MediaRouter,OptimizationHints",
	"--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
	"--disable-renderer-backgrounding", "--disable-ipc-flooding-protection",
	"--password-store=basic", "--use-mock-keychain", "--force-color-profile=srgb",
	"--metrics-recording-only", "--hide-scrollbars", "--window-size=1280,720",
}

// Lend returns the DevTools endpoint (ws://…) of a browser that is the
// test's alone until it ends: an idle one, or one started now. The test
// must stop what it connected to the browser before its cleanup gives the
// browser back, so call Lend before starting the server.
func (l *Lender) Lend(t testing.TB) string {
	t.Helper()
	c, err := l.take()
	if err != nil {
		t.Fatalf("browsertest: lending a browser: %v", err)
	}
	t.Cleanup(func() { l.giveBack(c) })
	return c.WebSocket
}

// take returns an idle browser that still answers, or starts one.
func (l *Lender) take() (*Chromium, error) {
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return nil, errors.New("the lender is closed")
		}
		if len(l.idle) == 0 {
			l.mu.Unlock()
			break
		}
		c := l.idle[len(l.idle)-1]
		l.idle = l.idle[:len(l.idle)-1]
		l.mu.Unlock()
		if c.answers() {
			return c, nil
		}
		l.retire(c)
	}
	c, err := startChromium(0, browserFlags...)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		c.stop()
		return nil, errors.New("the lender is closed")
	}
	l.all = append(l.all, c)
	return c, nil
}

// giveBack makes c idle again, or ends it if the lender closed meanwhile.
func (l *Lender) giveBack(c *Chromium) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.idle = append(l.idle, c)
}

// retire ends a browser that no longer answers.
func (l *Lender) retire(c *Chromium) {
	c.stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, a := range l.all {
		if a == c {
			l.all = append(l.all[:i], l.all[i+1:]...)
			break
		}
	}
}

// Close ends every browser the lender started, lent or idle, and reports
// the profiles it could not remove.
func (l *Lender) Close() error {
	l.mu.Lock()
	l.closed = true
	all := l.all
	l.all, l.idle = nil, nil
	l.mu.Unlock()
	var errs []error
	for _, c := range all {
		errs = append(errs, c.stop())
	}
	return errors.Join(errs...)
}

// Started returns how many browsers the lender has running.
func (l *Lender) Started() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.all)
}

// answers reports whether the browser's DevTools endpoint still answers.
func (c *Chromium) answers() bool {
	res, err := http.Get(c.HTTP + "/json/version")
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}
