package tools

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// poolCall runs get_snapshot on s and returns the page's URL and the
// message of a failed result ("" on success).
func poolCall(t *testing.T, s *Session) (url, msg string) {
	t.Helper()
	out, err := s.Call(t.Context(), toolapi.GetSnapshot, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	switch v := out.Value.(type) {
	case *snapshot.Snapshot:
		return v.Page.URL, ""
	case toolapi.ActionResult:
		return v.Snapshot.Page.URL, v.Message
	}
	t.Fatalf("get_snapshot answered %T", out.Value)
	return "", ""
}

// waitGone waits, for at most 30 s, until s's lease knows its browser went
// away (the killed endpoint's connection closed). A call begun before that
// fails on the lost connection, and only the next one moves: these tests
// are of the move.
func waitGone(t *testing.T, s *Session) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !s.lease.Gone(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed endpoint's browser is not known gone after 30 s")
		}
	}
}

// endpointOf is the pool endpoint a session's page lives on.
func endpointOf(s *Session) string { return s.lease.Endpoint() }

// TestBrowserPool runs sessions on two real Chromium processes as the pool:
// sessions spread over the endpoints, a killed endpoint ends only its own
// sessions, each of which moves to the other endpoint on its next call and
// says so, and the endpoint is used again once it is back.
func TestBrowserPool(t *testing.T) {
	site := browsertest.Site(t)
	goroutines := runtime.NumGoroutine()
	portA := browsertest.FreePort(t)
	a := browsertest.StartChromium(t, portA)
	b := browsertest.StartChromium(t, 0)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	m := fleet.Start(ctx, browser.Options{}, fleet.Config{Pool: []string{a.HTTP, b.HTTP}})
	if err := m.Started(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	newSession := func() *Session {
		t.Helper()
		s, err := Open(ctx, m, Config{StartURL: site + "/account"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}

	s1, s2, s3 := newSession(), newSession(), newSession()
	on := map[string]int{}
	for _, s := range []*Session{s1, s2, s3} {
		on[endpointOf(s)]++
	}
	if on[a.HTTP] != 2 || on[b.HTTP] != 1 {
		t.Fatalf("three sessions on two endpoints: want 2 on the first and 1 on the second, got %v", on)
	}
	onA := []*Session{s1, s3}
	if endpointOf(s1) != a.HTTP {
		onA = []*Session{s1, s2}
	}
	var onB *Session
	for _, s := range []*Session{s1, s2, s3} {
		if endpointOf(s) == b.HTTP {
			onB = s
		}
	}
	// A page of its own on each, to see that the move goes back there.
	for i, s := range onA {
		path := fmt.Sprintf("/help?s=%d", i)
		if err := s.tab.Navigate(ctx, site+path); err != nil {
			t.Fatal(err)
		}
	}

	a.Kill()

	for i, s := range onA {
		waitGone(t, s)
		url, msg := poolCall(t, s)
		for _, want := range []string{"went away", "moved to the browser at " + b.HTTP, "reopened"} {
			if !strings.Contains(msg, want) {
				t.Errorf("session %d on the killed endpoint: message %q lacks %q", i, msg, want)
			}
		}
		if want := fmt.Sprintf("/help?s=%d", i); !strings.HasSuffix(url, want) {
			t.Errorf("session %d moved to %s, want the page it was on (%s)", i, url, want)
		}
		if endpointOf(s) != b.HTTP {
			t.Errorf("session %d is on %s after the move", i, endpointOf(s))
		}
		// The next call is an ordinary one.
		if _, msg := poolCall(t, s); msg != "" {
			t.Errorf("session %d after the move: %s", i, msg)
		}
	}
	if url, msg := poolCall(t, onB); msg != "" || !strings.HasSuffix(url, "/account") {
		t.Errorf("the session on the live endpoint was disturbed: %s %q", url, msg)
	}
	if s := newSession(); endpointOf(s) != b.HTTP {
		t.Errorf("a new session went to the dead endpoint %s", endpointOf(s))
	}

	// Back on the same address, the endpoint is retried after its backoff
	// and, being the least loaded, takes the next session.
	a2 := browsertest.StartChromium(t, portA)
	var back *Session
	for deadline := time.Now().Add(time.Minute); back == nil && time.Now().Before(deadline); {
		s := newSession()
		if endpointOf(s) == a.HTTP {
			back = s
			break
		}
		s.Close()
		time.Sleep(200 * time.Millisecond)
	}
	if back == nil {
		t.Fatal("the endpoint that came back was never used again")
	}
	if url, msg := poolCall(t, back); msg != "" || !strings.HasSuffix(url, "/account") {
		t.Errorf("a session on the endpoint that came back: %s %q", url, msg)
	}

	// Closed, the pool leaves no goroutine behind: not the retries, not
	// the connections to the browsers, dead or alive.
	if err := m.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	b.Kill()
	a2.Kill()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left behind:\n%s", n-goroutines, buf[:runtime.Stack(buf, true)])
	}
}

func TestEndpointNameHidesCredentials(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"ws://pool.internal:3000/?token=s3cr3t", "ws://pool.internal:3000"},
		{"wss://user:pass@grid.example/session/abc/se/cdp", "wss://grid.example"},
		{"http://127.0.0.1:9222", "http://127.0.0.1:9222"},
		{"::not a url", "an endpoint"},
	} {
		if got := fleet.EndpointName(tc.in); got != tc.want {
			t.Errorf("EndpointName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestBurstSpreadsOverThePool opens sessions all at once, as an agent host
// starting its workers does: each is counted on its endpoint the moment the
// endpoint is chosen, so the burst spreads evenly rather than landing on
// whichever endpoint looked least loaded to all of them at once.
func TestBurstSpreadsOverThePool(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	a := browsertest.StartChromium(t, 0)
	b := browsertest.StartChromium(t, 0)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	m := fleet.Start(ctx, browser.Options{}, fleet.Config{Pool: []string{a.HTTP, b.HTTP}})
	if err := m.Started(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })

	for _, n := range []int{4, 6} {
		sessions := make([]*Session, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				sessions[i], errs[i] = Open(ctx, m, Config{StartURL: site + "/account"})
			})
		}
		close(start)
		wg.Wait()
		on := map[string]int{}
		for i, s := range sessions {
			if errs[i] != nil {
				t.Fatalf("session %d of a burst of %d: %v", i, n, errs[i])
			}
			on[endpointOf(s)]++
		}
		if on[a.HTTP] != n/2 || on[b.HTTP] != n/2 {
			t.Errorf("a burst of %d sessions on two endpoints: want %d on each, got %v", n, n/2, on)
		}
		for _, s := range sessions {
			s.Close()
		}
	}
}

// TestBrowserPoolMoveAfterAnotherSessionFoundTheEndpointDead kills an
// endpoint and opens a new session before the killed endpoint's session
// calls again: the new session finds the endpoint dead and the pool lets go
// of its browser, which closes the old session's tab. That session must
// still move on its next call, as it does when it is the first to notice;
// before, it read as closed rather than gone and answered "could not be
// restarted" on every call from then on. A second old session, on its
// first call after the first one moved, moves too.
func TestBrowserPoolMoveAfterAnotherSessionFoundTheEndpointDead(t *testing.T) {
	site := browsertest.Site(t)
	a := browsertest.StartChromium(t, 0)
	b := browsertest.StartChromium(t, 0)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	m := fleet.Start(ctx, browser.Options{}, fleet.Config{Pool: []string{a.HTTP, b.HTTP}})
	if err := m.Started(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	newSession := func() *Session {
		t.Helper()
		s, err := Open(ctx, m, Config{StartURL: site + "/account"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	var onA []*Session
	for range 4 {
		if s := newSession(); endpointOf(s) == a.HTTP {
			onA = append(onA, s)
		}
	}
	if len(onA) < 2 {
		t.Fatalf("%d of 4 sessions on the first endpoint, want 2", len(onA))
	}

	a.Kill()
	// A new session finds the endpoint dead; wait until the pool has let
	// go of its browser, which closes the tabs still on it.
	if s := newSession(); endpointOf(s) != b.HTTP {
		t.Fatalf("a new session went to the dead endpoint %s", endpointOf(s))
	}
	for deadline := time.Now().Add(30 * time.Second); !errors.Is(onA[0].tab.Err(), browser.ErrClosed); {
		if time.Now().After(deadline) {
			t.Fatalf("the dead endpoint's tab was not let go of: %v", onA[0].tab.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}

	for i, s := range onA {
		_, msg := poolCall(t, s)
		if !strings.Contains(msg, "moved to the browser at "+b.HTTP) {
			t.Errorf("session %d of the killed endpoint, after another found it dead: %q, want a move to %s", i, msg, b.HTTP)
		}
		if url, msg := poolCall(t, s); msg != "" || !strings.HasSuffix(url, "/account") {
			t.Errorf("session %d after the move: %s %q", i, url, msg)
		}
	}
}
