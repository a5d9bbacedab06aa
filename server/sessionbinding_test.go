package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Ownership is checked on the id a request is routed by: SSE's /message
// routes by its sessionId parameter and streamable HTTP by its header, and
// naming one's own session in the other place does not let a request into
// another client's session (issue #22, reproduction 4).
func TestSessionOwnershipCheckedOnTheRoutedID(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{})
	base := serveHTTP(t, s, HTTPConfig{Credentials: twoClients(t)})
	aliceSSE := servertest.Connect(t, servertest.SSE, base, aliceToken)
	aliceHTTP := servertest.Connect(t, servertest.Streamable, base, aliceToken)
	bobSSE := servertest.Connect(t, servertest.SSE, base, bobToken)
	bobHTTP := servertest.Connect(t, servertest.Streamable, base, bobToken)
	aSSE, aHTTP := servertest.SessionID(aliceSSE), servertest.SessionID(aliceHTTP)
	bSSE, bHTTP := servertest.SessionID(bobSSE), servertest.SessionID(bobHTTP)
	if aSSE == "" || aHTTP == "" || bSSE == "" || bHTTP == "" {
		t.Fatal("a client has no session id")
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + toolapi.GetSnapshot + `","arguments":{}}}`
	for _, c := range []struct {
		name   string
		path   string
		query  url.Values
		header []string // Mcp-Session-Id values
	}{
		{"SSE: alice's sessionId, bob's own SSE id in the header", "/message", url.Values{"sessionId": {aSSE}}, []string{bSSE}},
		{"SSE: alice's sessionId, bob's streamable id in the header", "/message", url.Values{"sessionId": {aSSE}}, []string{bHTTP}},
		{"SSE: alice's sessionId, a made-up header", "/message", url.Values{"sessionId": {aSSE}}, []string{"anything"}},
		{"SSE: alice's sessionId, no header", "/message", url.Values{"sessionId": {aSSE}}, nil},
		{"SSE: alice's sessionId second", "/message", url.Values{"sessionId": {bSSE, aSSE}}, nil},
		{"SSE: alice's sessionId first", "/message", url.Values{"sessionId": {aSSE, bSSE}}, []string{bSSE}},
		{"streamable: alice's header, bob's sessionId parameter", "/mcp", url.Values{"sessionId": {bSSE}}, []string{aHTTP}},
		{"streamable: bob's header, then alice's", "/mcp", nil, []string{bHTTP, aHTTP}},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := base + c.path
			if c.query != nil {
				u += "?" + c.query.Encode()
			}
			req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(call))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			req.Header.Set("Authorization", "Bearer "+bobToken)
			for _, h := range c.header {
				req.Header.Add("Mcp-Session-Id", h)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := http.DefaultClient.Do(req.WithContext(ctx))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("bob's request naming alice's session: %d, want 404", res.StatusCode)
			}
		})
	}
	// Nobody has called a tool yet: a call that got through ran in some
	// session.
	for _, fs := range f.all() {
		fs.mu.Lock()
		if len(fs.args) > 0 {
			t.Errorf("a session ran calls its client never made: %q", fs.args)
		}
		fs.mu.Unlock()
	}
	// Each client still reaches its own session.
	for name, cl := range map[string]*client.Client{"alice SSE": aliceSSE, "alice streamable": aliceHTTP, "bob SSE": bobSSE, "bob streamable": bobHTTP} {
		if res := callTool(t, context.Background(), cl, toolapi.GetSnapshot, nil); res.IsError {
			t.Errorf("%s's own call failed: %+v", name, res)
		}
	}
}
