package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestNewTabOverStdio clicks a target=_blank link through the built binary:
// the result says a tab opened, and the next get_snapshot is of the new
// page.
func TestNewTabOverStdio(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/links", "--profile", "none")
	s := getSnapshot(t, c)
	r, next := click(t, c, browsertest.Ref(t, s, "link", "Help in a new tab"))
	if !r.Success || !strings.Contains(r.Message, "Opened a new tab") || !strings.Contains(r.Message, "2 tabs") {
		t.Fatalf("click: success %v, message %q", r.Success, r.Message)
	}
	if next.Page.URL != site.URL+"/help" {
		t.Errorf("the click's snapshot is of %s, want the new tab's /help", next.Page.URL)
	}
	if got := getSnapshot(t, c); got.Page.URL != site.URL+"/help" || got.Page.Title != "Help Center - StreamFlix" {
		t.Errorf("get_snapshot after the click: %q at %s, want the help page", got.Page.Title, got.Page.URL)
	}
}

// A start URL that keeps loading (an image that takes 25 s, as an ad can)
// opens a usable session over stdio: the first snapshot shows the page and
// a click on it works, while the image still loads.
func TestSlowStartPageOverStdio(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	// Closed after the server and its browser, which hold the image's
	// request open.
	t.Cleanup(site.Close)
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/slow-image?image-ms=25000", "--profile", "none")
	s := getSnapshot(t, c)
	if s.Page.Title != "Slow image - StreamFlix" {
		t.Fatalf("the first snapshot is of %q at %s", s.Page.Title, s.Page.URL)
	}
	r, _ := click(t, c, browsertest.Ref(t, s, "button", "Play trailer"))
	if !r.Success {
		t.Errorf("click on the slow page: %q", r.Message)
	}
}
