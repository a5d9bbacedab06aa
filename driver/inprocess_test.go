package driver_test

import (
	"context"
	"slices"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// The whole path: Claude (against the fake API) drives the real server
// code in-process to an acknowledged completion.
func TestRunThroughInProcessServer(t *testing.T) {
	t.Parallel()
	done := drivertest.ValidPage("https://shop.test/cancelled", "Home")
	mb := &drivertest.MockBrowser{
		Page:    drivertest.ValidPage("https://shop.test/", "Buy", "Cancel"),
		Actions: map[string]drivertest.MockOutcome{toolapi.Click + " @e2": {Snapshot: done}},
		Done:    func(p *snapshot.Snapshot) bool { return p == done },
	}
	h := newHarness(t, mb, reply(click("@e2")), reply(complete("success")))
	h.cfg.Tools = throughServer(t, mb)
	res := h.run(t)
	if !res.Success || res.Turns != 2 {
		t.Fatalf("result = %+v", res)
	}
	if got := h.actions(); !slices.Equal(got, []string{toolapi.Click + " @e2", toolapi.CompleteTask + " success"}) {
		t.Fatalf("browser calls = %q", got)
	}
	if n := h.api.Requests()[0].images(); n != 1 {
		t.Fatalf("first request has %d images, want the initial screenshot", n)
	}
}

// throughServer serves mb through the real server, whose results carry the
// compact text, and returns an in-process client of it as the driver's
// tools.
func throughServer(t *testing.T, mb *drivertest.MockBrowser) toolapi.Tools {
	t.Helper()
	return serveInProcess(t, func(context.Context) (server.Session, error) {
		return &drivertest.Session{Browser: mb}, nil
	})
}

// serveInProcess runs the real server on the sessions newSession opens and
// returns an in-process client of it as the driver's tools.
func serveInProcess(t *testing.T, newSession func(context.Context) (server.Session, error)) toolapi.Tools {
	t.Helper()
	srv, err := server.New(server.Config{NewSession: newSession, MaxSessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tl, closeClient, err := server.ConnectInProcess(context.Background(), srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeClient() })
	return tl
}
