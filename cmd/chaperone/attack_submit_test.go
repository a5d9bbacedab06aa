package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// submitSite serves the fixture site on 127.0.0.1, which is also the other
// site as localhost, with an open redirect (/redirect?to=URL, the rest of
// the query passed on), and remembers every request: host, URI and body.
type submitSite struct {
	URL, Other string

	mu   sync.Mutex
	seen []string
}

func submitServeSite(t *testing.T) *submitSite {
	t.Helper()
	s := &submitSite{}
	site := fixtures.Site()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		s.mu.Lock()
		s.seen = append(s.seen, r.Host+r.URL.RequestURI()+" "+string(body))
		s.mu.Unlock()
		switch r.URL.Path {
		case "/redirect":
			q := r.URL.Query()
			to := q.Get("to")
			q.Del("to")
			http.Redirect(w, r, to+"?"+q.Encode(), http.StatusFound)
		case "/collect":
			_, _ = w.Write([]byte("<!doctype html><title>Elsewhere</title><p>Received</p>"))
		default:
			site.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	s.Other = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return s
}

// received reports whether the site at origin received mark.
func (s *submitSite) received(origin, mark string) bool {
	host := strings.TrimPrefix(origin, "http://")
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.seen, func(u string) bool { return strings.HasPrefix(u, host+"/") && strings.Contains(u, mark) })
}

// TestSubmitRewrittenAfterTheGate reverses the red team's hole: the gate
// judged where "Search" sends the form (its own page), then the page's
// keypress, click or submit handler sent the form, with what the agent
// typed, to another site nobody asked about. The request Chromium is about
// to send is judged at the interceptor: it is refused, the result says why,
// the other site receives nothing. A form that goes to the site's own open
// redirect with the other site's URL in its fields is refused as well; an
// honest same-site form still submits, and a link the page holds to the
// other site is still a plain click.
func TestSubmitRewrittenAfterTheGate(t *testing.T) {
	t.Parallel()
	site := submitServeSite(t)
	start := site.URL + "/hostile/submit-rewrite"
	c, host, _ := webhookServe(t, "--url", start)
	getSnapshot(t, c)
	for _, trick := range []string{"keypress", "click", "formaction", "submit", "post", "resubmit", "location", "target", "redirect"} {
		t.Run(trick, func(t *testing.T) {
			mark := "typed-" + trick
			if r := leakNavigate(t, c, start+"?trick="+trick); !r.Success {
				t.Fatalf("opening the page: %v %q", r.Error, r.Message)
			}
			s := getSnapshot(t, c)
			field, button := "Search orders", "Search"
			if trick == "redirect" {
				field, button = "Tracking number", "Go"
			}
			s = keysAllowed(t, c, host, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", field), "value": mark})
			args := map[string]any{"ref": browsertest.Ref(t, s, "button", button)}
			tool := toolapi.Click
			if trick == "keypress" {
				tool, args = toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(t, s, "textbox", field)}
			}
			r, _ := keysAct(t, c, tool, args)
			host.notAsked(t)
			if site.received(site.Other, mark) {
				t.Fatalf("the other site received %q, nobody asked", mark)
			}
			if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "somewhere other than where it was judged") {
				t.Errorf("result: success %v error %v %q; want action_failed saying the form went elsewhere", r.Success, r.Error, r.Message)
			}
		})
	}
	t.Run("honest", func(t *testing.T) {
		if r := leakNavigate(t, c, start); !r.Success {
			t.Fatalf("opening the page: %v %q", r.Error, r.Message)
		}
		s := getSnapshot(t, c)
		s = keysAllowed(t, c, host, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Search orders"), "value": "honest-q"})
		s = keysAllowed(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Search")})
		keysStatus(t, s, "Results for honest-q")
		if !site.received(site.URL, "q=honest-q") {
			t.Fatal("the honest search did not reach its own site")
		}
	})
	t.Run("a link the page holds", func(t *testing.T) {
		s := getSnapshot(t, c)
		keysAllowed(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "link", "Our partner's offers")})
		if !site.received(site.Other, "/collect?from=orders") {
			t.Fatal("the link to the other site was not followed")
		}
	})
}
