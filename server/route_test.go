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
