package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

const (
	aliceToken = "alice-0123456789abcdef"
	bobToken   = "bob-0123456789abcdef-b"
)

// lockedBuffer is a log destination safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func twoClients(t *testing.T) *Credentials {
	t.Helper()
	creds, err := NewCredentials([]Credential{{Name: "alice", Token: aliceToken}, {Name: "bob", Token: bobToken}})
	if err != nil {
		t.Fatal(err)
	}
	return creds
}

// A session answers only the client that opened it; to another, even one
// with a valid token, it does not exist.
func TestSessionsBelongToTheirClient(t *testing.T) {
	t.Parallel()
	logs := &lockedBuffer{}
	f := &fakes{}
	s := newTestServer(t, f, Config{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	creds := twoClients(t)
	base := serveHTTP(t, s, HTTPConfig{Credentials: creds})
	for _, kind := range []string{servertest.Streamable, servertest.SSE} {
		t.Run(kind, func(t *testing.T) {
			alice := servertest.Connect(t, kind, base, aliceToken)
			if res := callTool(t, context.Background(), alice, toolapi.GetSnapshot, nil); res.IsError {
				t.Fatalf("alice's call failed: %+v", res)
			}
			id := servertest.SessionID(alice)
			if id == "" {
				t.Fatal("no session id")
			}
			for _, c := range []struct {
				who   string
				token string
				want  int
			}{
				{"bob, with his own valid token", bobToken, http.StatusNotFound},
				{"no valid token", "nobody-0123456789abcdef", http.StatusUnauthorized},
			} {
				if got := servertest.SessionStatus(t, base, alice, c.token); got != c.want {
					t.Errorf("request for alice's session from %s: %d, want %d", c.who, got, c.want)
				}
			}
			if got := servertest.SessionStatus(t, base, alice, aliceToken); got == http.StatusNotFound || got >= 400 {
				t.Errorf("alice's own request for her session: %d", got)
			}
			// Alice's session still works for her.
			if res := callTool(t, context.Background(), alice, toolapi.GetSnapshot, nil); res.IsError {
				t.Errorf("alice's call after bob's attempt failed: %+v", res)
			}
			log := logs.String()
			if strings.Contains(log, id) {
				t.Errorf("the log holds the full session id %s:\n%s", id, log)
			}
			for _, want := range []string{"client=alice mcp_session=" + ShortID(id), "client=bob mcp_session=" + ShortID(id)} {
				if !strings.Contains(log, want) {
					t.Errorf("the log lacks %q:\n%s", want, log)
				}
			}
			for _, token := range []string{aliceToken, bobToken} {
				if strings.Contains(log, token) {
					t.Errorf("the log holds a token")
				}
			}
		})
	}
}

// Replacing the credentials revokes a token at once, for its open sessions
// too.
func TestReplacedCredentialsTakeEffectAtOnce(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{})
	creds := twoClients(t)
	base := serveHTTP(t, s, HTTPConfig{Credentials: creds})
	alice := servertest.Connect(t, servertest.Streamable, base, aliceToken)
	bob := servertest.Connect(t, servertest.Streamable, base, bobToken)
	if err := creds.Replace([]Credential{{Name: "bob", Token: bobToken}}); err != nil {
		t.Fatal(err)
	}
	if got := servertest.SessionStatus(t, base, alice, aliceToken); got != http.StatusUnauthorized {
		t.Errorf("alice's request after her token was removed: %d, want 401", got)
	}
	if res := callTool(t, context.Background(), bob, toolapi.GetSnapshot, nil); res.IsError {
		t.Errorf("bob's call after alice's removal failed: %+v", res)
	}
	// A bad set is refused whole, and the old one stays.
	for _, bad := range [][]Credential{
		{{Name: "carol", Token: "short"}},
		{{Name: "carol", Token: aliceToken}, {Name: "carol", Token: bobToken}},
		{{Name: "carol", Token: aliceToken}, {Name: "dave", Token: aliceToken}},
		{{Name: "has space", Token: aliceToken}},
		{{Name: "", Token: aliceToken}},
	} {
		if err := creds.Replace(bad); err == nil {
			t.Errorf("Replace(%v) accepted", bad)
		} else if strings.Contains(err.Error(), aliceToken) {
			t.Errorf("the error shows a token: %v", err)
		}
	}
	if names := creds.Names(); len(names) != 1 || names[0] != "bob" {
		t.Errorf("after refused replacements the names are %v, want [bob]", names)
	}
}

func TestMaxSessionsPerClient(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{})
	base := serveHTTP(t, s, HTTPConfig{Credentials: twoClients(t), MaxSessionsPerClient: 1})
	ctx := context.Background()
	a1 := servertest.Connect(t, servertest.Streamable, base, aliceToken)
	a2 := servertest.Connect(t, servertest.SSE, base, aliceToken)
	b1 := servertest.Connect(t, servertest.Streamable, base, bobToken)
	if res := callTool(t, ctx, a1, toolapi.GetSnapshot, nil); res.IsError {
		t.Fatalf("alice's first session refused: %+v", res)
	}
	res := callTool(t, ctx, a2, toolapi.GetSnapshot, nil)
	if !res.IsError || !strings.Contains(res.Content[0].(mcp.TextContent).Text, "--max-sessions-per-client") {
		t.Fatalf("alice's second session got %+v, want an error naming --max-sessions-per-client", res)
	}
	if res := callTool(t, ctx, b1, toolapi.GetSnapshot, nil); res.IsError {
		t.Errorf("bob refused because of alice's sessions: %+v", res)
	}
	a1.Close()
	waitFor(t, "alice's first session to close", func() bool { return s.sessions.count() == 1 })
	if res := callTool(t, ctx, a2, toolapi.GetSnapshot, nil); res.IsError {
		t.Errorf("alice's second session still refused after her first closed: %+v", res)
	}
	if err := (HTTPConfig{Addr: "127.0.0.1:1", MaxSessionsPerClient: -1}).Check(); err == nil {
		t.Error("a negative per-client limit was accepted")
	}
}

func TestShortID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"mcp-session-3f2a9c1e-0000-4000-8000-000000000000": "3f2a9c1e",
		"7d1e22aa-6b5c-4d3e-9f00-123456789abc":             "7d1e22aa",
		"stdio":                                            "stdio",
		"":                                                 "",
	} {
		if got := ShortID(in); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}
