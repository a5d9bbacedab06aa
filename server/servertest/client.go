// Package servertest connects MCP clients to a server under test: over
// streamable HTTP or SSE with a bearer token, as an agent's MCP client does,
// or any client the test made.
package servertest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The kinds of HTTP client Connect makes.
const (
	// Streamable speaks streamable HTTP at /mcp.
	Streamable = "streamable"
	// SSE speaks the SSE transport at /sse and /message.
	SSE = "sse"
)

// Connect starts and initializes an MCP client of the kind (Streamable or
// SSE) to the server at base, sending token as a bearer token unless it is
// empty. The client is closed when the test ends.
func Connect(t testing.TB, kind, base, token string) *client.Client {
	t.Helper()
	var c *client.Client
	var err error
	switch kind {
	case Streamable:
		var opts []transport.StreamableHTTPCOption
		if token != "" {
			opts = append(opts, transport.WithHTTPBasicClient(&http.Client{Transport: bearer{token, http.DefaultTransport}}))
		}
		c, err = client.NewStreamableHttpClient(base+"/mcp", opts...)
	case SSE:
		var opts []transport.ClientOption
		if token != "" {
			opts = append(opts, transport.WithHeaders(map[string]string{"Authorization": "Bearer " + token}))
		}
		c, err = client.NewSSEMCPClient(base+"/sse", opts...)
	default:
		t.Fatalf("unknown client kind %q", kind)
	}
	if err != nil {
		t.Fatalf("%s client: %v", kind, err)
	}
	// The SSE stream lives as long as Start's context.
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start %s client: %v", kind, err)
	}
	Initialize(t, c)
	return c
}

// Initialize initializes c, a started client, and closes it when the test
// ends.
func Initialize(t testing.TB, c *client.Client) {
	t.Helper()
	// A server that launches a browser for the session may take a while.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "chaperone-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { c.Close() })
}

// bearer adds the token to every request, including the DELETE that
// mcp-go's streamable HTTP client sends on Close without its custom headers.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// SessionID returns the MCP session id of c, a streamable HTTP or SSE
// client.
func SessionID(c *client.Client) string {
	if sse, ok := c.GetTransport().(*transport.SSE); ok {
		return sse.GetEndpoint().Query().Get("sessionId")
	}
	return c.GetSessionId()
}

// SessionStatus sends a tools/list for the MCP session of c (streamable
// HTTP or SSE) to the server at base with token, as any client that learnt
// the session's id could, and returns the HTTP status.
func SessionStatus(t testing.TB, base string, c *client.Client, token string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":99,"method":"tools/list"}`
	var req *http.Request
	if sse, ok := c.GetTransport().(*transport.SSE); ok {
		req, _ = http.NewRequest(http.MethodPost, sse.GetEndpoint().String(), strings.NewReader(body))
	} else {
		req, _ = http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Mcp-Session-Id", c.GetSessionId())
		req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("POST for the session: %v", err)
	}
	res.Body.Close()
	return res.StatusCode
}
