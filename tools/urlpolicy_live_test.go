package tools

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// Every way a page has to reach another address goes through the policy:
// the fixture site at 127.0.0.1 is allowed, the same server at localhost
// (another site to Chromium) is blocked, and so is the metadata address
// behind a redirect. The action answers action_failed "blocked by policy",
// and the page stays where it was.
func TestPolicyBlocksEveryDocumentRequest(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	other := strings.Replace(site, "127.0.0.1", "localhost", 1)
	policy := urlpolicy.Policy{BlockedOrigins: []string{other}}
	m, err := fleet.New(t.Context(), browser.Options{}, fleet.Config{URLPolicy: policy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })

	blocked := "blocked by policy: " + other + " is a blocked origin (" + other + "/help)"
	cases := []struct {
		name       string
		to         string
		role, elem string
		want       string // "" when the action must succeed
	}{
		{"link", other + "/help", "link", "Visit partner", blocked},
		{"redirect", other + "/help", "link", "Visit partner through a redirect", blocked},
		{"script", other + "/help", "button", "Go by script", blocked},
		{"popup", other + "/help", "button", "Open partner window", blocked},
		{"frame", other + "/help", "button", "Show partner frame", blocked},
		{"allowed", site + "/help", "link", "Visit partner", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Open(t.Context(), m, Config{URLPolicy: policy})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			start := site + "/variants/offsite?to=" + url.QueryEscape(c.to)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			if err := s.tab.Navigate(ctx, start); err != nil {
				t.Fatal(err)
			}
			h := &harness{t: t, s: s, tab: s.tab, site: site}
			r := h.act(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, h.snap(false), c.role, c.elem)})
			if c.want == "" {
				if !r.Success || r.Snapshot.Page.URL != c.to {
					t.Fatalf("an allowed link: success %v at %s (%s), want %s", r.Success, r.Snapshot.Page.URL, r.Message, c.to)
				}
				return
			}
			if r.Success || *r.Error != toolapi.ActionFailed || !strings.HasPrefix(r.Message, c.want) {
				t.Errorf("got success %v, error %v, message %q; want action_failed %q", r.Success, r.Error, r.Message, c.want)
			}
			if r.Snapshot.Page.URL != start {
				t.Errorf("the page went to %s, want it to stay at %s", r.Snapshot.Page.URL, start)
			}
			if strings.Contains(r.Message, "x=1") {
				t.Errorf("the message carries the query string: %q", r.Message)
			}
			// The session stays usable, and the refusal was reported once.
			r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "link", "Help Center")})
			if !strings.HasSuffix(r.Snapshot.Page.URL, "/help") {
				t.Errorf("after the refusal, Help Center led to %s", r.Snapshot.Page.URL)
			}
		})
	}
}

// A start URL the policy refuses fails the session with the reason.
func TestPolicyRefusesTheStartURL(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	other := strings.Replace(site, "127.0.0.1", "localhost", 1)
	policy := urlpolicy.Policy{AllowedOrigins: []string{site}}
	m, err := fleet.New(t.Context(), browser.Options{}, fleet.Config{URLPolicy: policy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	_, err = Open(t.Context(), m, Config{StartURL: site + "/redirect?to=" + url.QueryEscape(other+"/account"), URLPolicy: policy})
	want := "blocked by policy: " + other + " is not an allowed origin (allowed: " + site + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NewSession = %v, want an error containing %q", err, want)
	}
}
