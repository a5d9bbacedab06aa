package server

import (
	"context"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// A client that leaves while its first call opens the browser session
// leaves no session behind, whichever comes first: the opening (closed
// when it ends) or the leaving (nothing opens).
func TestDisconnectRacingAToolCallLeavesNoSession(t *testing.T) {
	t.Parallel()
	t.Run("client leaves while the session opens", func(t *testing.T) {
		f := &fakes{}
		opening, release := make(chan struct{}), make(chan struct{})
		s, err := New(Config{NewSession: func(ctx context.Context) (Session, error) {
			close(opening)
			<-release // an opening that does not heed its context: the worst case
			return f.open(ctx)
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		base := serveHTTP(t, s, HTTPConfig{Token: testToken})
		c := servertest.Connect(t, servertest.Streamable, base, testToken)
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.CallTool(context.Background(), clickRequest())
		}()
		<-opening
		c.Close() // DELETE /mcp while the session is still opening
		waitFor(t, "the session to be dropped", func() bool { return s.sessions.count() == 0 })
		close(release)
		<-done
		waitFor(t, "the late session to close", func() bool {
			all := f.all()
			return len(all) == 1 && all[0].closed.Load()
		})
	})
	t.Run("client leaves before the call reaches its session", func(t *testing.T) {
		f := &fakes{}
		s := newTestServer(t, f, Config{})
		const id = "mcp-session-11111111-2222-4333-8444-555555555555"
		s.sessions.connect(id)
		s.sessions.close(id, "the client disconnected")
		_, err := s.sessions.call(context.Background(), id, "", toolapi.GetSnapshot, []byte(`{}`))
		if err == nil || !strings.Contains(err.Error(), "ended") {
			t.Errorf("call after the client left: %v, want a refusal", err)
		}
		if n := len(f.all()); n != 0 || s.sessions.count() != 0 {
			t.Errorf("%d browser sessions opened and %d entries kept for a client that had left", n, s.sessions.count())
		}
	})
}
