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
