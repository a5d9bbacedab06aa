package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// robotsFixture serves the fixture site with a robots.txt that keeps
// Chaperone out of /variants/ but lets it into /variants/hover, and counts
// how often robots.txt is asked for.
func robotsFixture(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var fetched atomic.Int32
	site := fixtures.Site()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fetched.Add(1)
			_, _ = w.Write([]byte("User-agent: *\nDisallow: /\n\nUser-agent: Chaperone\nDisallow: /variants/\nAllow: /variants/hover\n"))
			return
		}
		site.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &fetched
}

// TestRespectRobots opens URLs through the built binary with
// --respect-robots: what the site's robots.txt allows Chaperone opens, in
// browser_navigate and in a new tab; what it disallows is action_failed
// saying so, and the page stays where it was. robots.txt is fetched once.
func TestRespectRobots(t *testing.T) {
	site, fetched := robotsFixture(t)
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/account", "--profile", "none", "--respect-robots", "--caps", "tabs")
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		allowed bool
	}{
		{"allowed page", toolapi.Navigate, map[string]any{"url": site.URL + "/help"}, true},
		{"disallowed page", toolapi.Navigate, map[string]any{"url": site.URL + "/variants/widgets"}, false},
		{"longer allow", toolapi.Navigate, map[string]any{"url": "/variants/hover"}, true},
		{"disallowed relative URL", toolapi.Navigate, map[string]any{"url": "/variants/form"}, false},
		{"disallowed new tab", toolapi.Tabs, map[string]any{"action": "new", "url": site.URL + "/variants/dialogs"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := getSnapshot(t, c).Page.URL
			r, s := act(t, c, tc.tool, tc.args)
			if tc.allowed {
				if !r.Success {
					t.Fatalf("error %v: %s", r.Error, r.Message)
				}
				return
			}
			if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "robots.txt disallows it") || !strings.Contains(r.Message, `"Disallow: /variants/"`) {
				t.Fatalf("result: error %v, message %q; want action_failed saying robots.txt disallows it by Disallow: /variants/", r.Error, r.Message)
			}
			if s.Page.URL != before {
				t.Errorf("the page moved to %s on a refusal; want it still at %s", s.Page.URL, before)
			}
		})
	}
	if n := fetched.Load(); n != 1 {
		t.Errorf("robots.txt was fetched %d times for one origin, want once", n)
	}
}

// TestRespectRobotsSpellings reverses issue 27's "--respect-robots is
// fooled by the same spellings and by dot segments": each URL below is a
// page under /variants/, which robots.txt disallows, as Chromium reads it,
// though net/url reads a path that robots.txt allows, or no host at all.
func TestRespectRobotsSpellings(t *testing.T) {
	site, _ := robotsFixture(t)
	hostport := strings.TrimPrefix(site.URL, "http://")
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/account", "--profile", "none", "--respect-robots", "--caps", "tabs")
	tests := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"http: without slashes", toolapi.Navigate, map[string]any{"url": "http:" + hostport + "/variants/widgets"}},
		{"http: with one slash", toolapi.Navigate, map[string]any{"url": "http:/" + hostport + "/variants/widgets"}},
		{"http: with backslashes", toolapi.Navigate, map[string]any{"url": `http:\\` + hostport + `\variants\widgets`}},
		{"dot segments", toolapi.Navigate, map[string]any{"url": site.URL + "/x/../variants/widgets"}},
		{"escaped dot segments", toolapi.Navigate, map[string]any{"url": site.URL + "/x/%2e%2E/variants/form"}},
		{"relative dot segments", toolapi.Navigate, map[string]any{"url": "/help/../variants/form"}},
		{"an escaped letter", toolapi.Navigate, map[string]any{"url": site.URL + "/%76ariants/widgets"}},
		{"a tab in the path", toolapi.Navigate, map[string]any{"url": site.URL + "/vari\tants/widgets"}},
		{"a new tab without slashes", toolapi.Tabs, map[string]any{"action": "new", "url": "http:" + hostport + "/x/../variants/dialogs"}},
		// Of our own: what the server reads, and where it redirects.
		{"an escaped slash", toolapi.Navigate, map[string]any{"url": site.URL + "/variants%2Fwidgets"}},
		{"an escaped slash in a dot segment", toolapi.Navigate, map[string]any{"url": site.URL + "/help/..%2Fvariants/form"}},
		{"a double slash", toolapi.Navigate, map[string]any{"url": site.URL + "//variants/widgets"}},
		{"a redirect to a disallowed page", toolapi.Navigate, map[string]any{"url": site.URL + "/redirect?to=/variants/widgets"}},
		{"two redirects", toolapi.Navigate, map[string]any{"url": "/redirect?to=" + url.QueryEscape("/redirect?to=/variants/form")}},
		{"a redirect in a new tab", toolapi.Tabs, map[string]any{"action": "new", "url": site.URL + "/redirect?to=/variants/dialogs"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := getSnapshot(t, c).Page.URL
			r, s := act(t, c, tc.tool, tc.args)
			if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "robots.txt disallows it") {
				t.Fatalf("result: error %v, message %q; want action_failed saying robots.txt disallows it", r.Error, r.Message)
			}
			// A new tab refused only at its redirect was opened: it stays
			// blank, and goes.
			if tab := s.Page.URL == "about:blank" && tc.tool == toolapi.Tabs; tab {
				call(t, c, toolapi.Tabs, map[string]any{"action": "close"})
			} else if s.Page.URL != before {
				t.Errorf("the page moved to %s on a refusal; want it still at %s", s.Page.URL, before)
			}
		})
	}
}

// TestWithoutRespectRobotsNothingIsAsked checks the default: no robots.txt
// is fetched and every page opens.
func TestWithoutRespectRobotsNothingIsAsked(t *testing.T) {
	site, fetched := robotsFixture(t)
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/account", "--profile", "none")
	if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/variants/widgets"}); !r.Success {
		t.Fatalf("navigate without --respect-robots: %v %s", r.Error, r.Message)
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("robots.txt was fetched %d times without --respect-robots", n)
	}
}

// TestMaxActionsPerMinute acts through the built binary under
// --max-actions-per-minute 12 (one action every 5 s): an action that comes
// sooner than that after the last one waits, succeeds, and says it waited;
// reading the page does not count.
func TestMaxActionsPerMinute(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/long", "--profile", "none", "--max-actions-per-minute", "12")
	first, _ := act(t, c, toolapi.Scroll, map[string]any{"direction": "down"})
	if !first.Success || strings.Contains(first.Message, "Waited") {
		t.Fatalf("first action: error %v, message %q; want success without a wait", first.Error, first.Message)
	}
	// Reading waits for nothing.
	getSnapshot(t, c)
	second, _ := act(t, c, toolapi.Scroll, map[string]any{"direction": "up"})
	if !second.Success {
		t.Fatalf("second action: %v %s", second.Error, second.Message)
	}
	if !strings.Contains(second.Message, "Waited ") || !strings.Contains(second.Message, "at most 12 actions a minute") {
		t.Errorf("second action's message %q does not say it waited for the rate", second.Message)
	}
}

// TestRateWaitIsCancelled cancels a call while it waits for the rate
// (one action a minute): the client's cancellation ends the wait, nothing
// is done, and the session answers the next call at once rather than after
// the minute.
func TestRateWaitIsCancelled(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, stderr := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/long", "--profile", "none", "--max-actions-per-minute", "1", "--log-level", "info")
	if r, _ := act(t, c, toolapi.Scroll, map[string]any{"direction": "down"}); !r.Success {
		t.Fatalf("first action: %v %s", r.Error, r.Message)
	}
	before := getSnapshot(t, c).Viewport.ScrollY
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.Scroll
	req.Params.Arguments = map[string]any{"direction": "bottom"}
	if _, err := c.CallTool(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the waiting call returned %v; want it to wait until the client gave up", err)
	}
	// The session is free again well before the minute is up: a call of
	// the session's own serial queue answers within this deadline.
	next, nextCancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer nextCancel()
	req = mcp.CallToolRequest{}
	req.Params.Name = toolapi.GetSnapshot
	res, err := c.CallTool(next, req)
	if err != nil || res.IsError {
		t.Fatalf("get_snapshot after the cancelled call: %v %v", err, res)
	}
	s := getSnapshot(t, c)
	if s.Viewport.ScrollY != before {
		t.Errorf("the cancelled scroll moved the page from %v to %v", before, s.Viewport.ScrollY)
	}
	if !strings.Contains(stderr.String(), "cancelled while it waited for the action rate") {
		t.Errorf("the log does not say the call was cancelled while it waited:\n%s", stderr.String())
	}
}
