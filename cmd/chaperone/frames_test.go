package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestCrossSiteFrameOverStdio fills and submits a card form that lives in a
// cross-site iframe, through the built binary over stdio, as an MCP client
// would: the frame's controls have refs, and acting on them works.
func TestCrossSiteFrameOverStdio(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/cross-site-checkout", "--profile", "none", "--log-level", "debug")
	s := getSnapshot(t, c)
	r, after := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Card number"), "value": "4242 4242 4242 4242"})
	if !r.Success {
		t.Fatalf("fill in the cross-site frame: error %v, message %q", r.Error, r.Message)
	}
	r, next := click(t, c, browsertest.Ref(t, after, "button", "Pay"))
	if !r.Success {
		t.Fatalf("click Pay in the cross-site frame: error %v, message %q", r.Error, r.Message)
	}
	if want := "Paid with card ending 4242, country none, save no"; !strings.Contains(next.Text, want) {
		t.Errorf("the page text after paying lacks %q:\n%s", want, next.Text)
	}
}
