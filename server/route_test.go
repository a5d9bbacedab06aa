package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestSessionRoute checks the ids of a replica run with a session route:
// each ends with ".<route>", works as any id, and an id this replica did not
// issue under its route is unknown (404), whatever its spelling, so that a
// misrouted client re-initializes.
func TestSessionRoute(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{})
	base := serveHTTP(t, s, HTTPConfig{Token: testToken, SessionRoute: "r2"})
	c := servertest.Connect(t, servertest.Streamable, base, testToken)
	id := c.GetSessionId()
	stem, ok := strings.CutSuffix(id, ".r2")
	if !ok || !strings.HasPrefix(stem, "mcp-session-") {
		t.Fatalf("session id %q: want mcp-session-<uuid>.r2", id)
	}
	callTool(t, context.Background(), c, toolapi.GetSnapshot, nil)
	for _, tc := range []struct {
		name, id string
		want     int
	}{
		{"its own id", id, http.StatusOK},
		{"without the route", stem, http.StatusNotFound},
		{"another replica's route", stem + ".r1", http.StatusNotFound},
		{"the route twice", id + ".r2", http.StatusNotFound},
		{"the route upper-cased", stem + ".R2", http.StatusNotFound},
		{"the route before the id", "r2." + stem, http.StatusNotFound},
		{"only the route", ".r2", http.StatusNotFound},
		{"an unknown id with the route", "mcp-session-00000000-0000-4000-8000-000000000000.r2", http.StatusNotFound},
	} {
		if got := sessionStatus(t, base, tc.id); got != tc.want {
			t.Errorf("%s (%q): %d, want %d", tc.name, tc.id, got, tc.want)
		}
	}
	// Ended by its client, the id is unknown from then on.
	c.Close()
	if got := sessionStatus(t, base, id); got != http.StatusNotFound {
		t.Errorf("the id after the client closed its session: %d, want 404", got)
	}
}

// sessionStatus sends tools/list for the session id and returns the HTTP
// status.
func sessionStatus(t *testing.T, base, id string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestSessionRouteCheck(t *testing.T) {
	t.Parallel()
	for _, route := range []string{"r1", "replica-2", "eu_west_1", strings.Repeat("a", 32)} {
		if err := (HTTPConfig{Addr: "127.0.0.1:0", SessionRoute: route}).Check(); err != nil {
			t.Errorf("route %q: %v", route, err)
		}
	}
	for _, route := range []string{".r1", "r1.r2", "r 1", "r1$", `r1\`, "r1\n", "é", "r1,r2", strings.Repeat("a", 33)} {
		if err := (HTTPConfig{Addr: "127.0.0.1:0", SessionRoute: route}).Check(); err == nil {
			t.Errorf("route %q accepted", route)
		}
	}
}

// A GET stream is for a session initialize opened: mcp-go opens and
// registers one for any id a GET names (and makes one up for a GET that
// names none, valid for ever and known to nobody), so the server checks
// the id first. An id never issued, ended, or spelt otherwise is 404, no id
// is 400, and nothing is registered for them.
func TestGetStreamNeedsAnIssuedSession(t *testing.T) {
	t.Parallel()
	for _, route := range []string{"", "r1"} {
		s := newTestServer(t, &fakes{}, Config{})
		base := serveHTTP(t, s, HTTPConfig{Token: testToken, SessionRoute: route})
		c := servertest.Connect(t, servertest.Streamable, base, testToken)
		id := c.GetSessionId()
		ended := servertest.Connect(t, servertest.Streamable, base, testToken)
		endedID := ended.GetSessionId()
		ended.Close()
		suffix := ""
		if route != "" {
			suffix = "." + route
		}
		for _, tc := range []struct {
			name, id string
			want     int
		}{
			{"no id", "", http.StatusBadRequest},
			{"an id never issued", "mcp-session-00000000-0000-4000-8000-000000000000" + suffix, http.StatusNotFound},
			{"a made-up id", "mine", http.StatusNotFound},
			{"an ended session's id", endedID, http.StatusNotFound},
			{"its own id upper-cased", strings.ToUpper(id), http.StatusNotFound},
			{"its own id", id, http.StatusOK},
		} {
			before := s.owners.count()
			req, _ := http.NewRequest(http.MethodGet, base+"/mcp", nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			if tc.id != "" {
				req.Header.Set("Mcp-Session-Id", tc.id)
			}
			ctx, cancel := context.WithCancel(context.Background())
			res, err := http.DefaultClient.Do(req.WithContext(ctx))
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			after := s.owners.count()
			cancel()
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("route %q, %s (%q): GET /mcp %d, want %d", route, tc.name, tc.id, res.StatusCode, tc.want)
			}
			if tc.want != http.StatusOK && after != before {
				t.Errorf("route %q, %s: %d sessions bound, were %d", route, tc.name, after, before)
			}
		}
	}
}
