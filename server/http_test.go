package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

const testToken = "0123456789abcdef-test-token"

// serveHTTP serves s on a loopback port with c and returns its base URL.
func serveHTTP(t *testing.T, s *Server, c HTTPConfig) string {
	t.Helper()
	return serveOnListener(t, s, listenLoopback(t), c)
}

// listenLoopback listens on a free loopback port.
func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// serveOnListener serves s on ln with c until the test ends and returns
// its base URL.
func serveOnListener(t *testing.T, s *Server, ln net.Listener, c HTTPConfig) string {
	t.Helper()
	c.Addr = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, c) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func TestCheckRefusesBeyondLoopbackWithoutToken(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:8931", "[::]:8931", "192.168.1.5:8931", "example.com:8931"} {
		err := HTTPConfig{Addr: addr}.Check()
		if err == nil || !strings.Contains(err.Error(), "without a token") {
			t.Errorf("Check(%s, no token) = %v, want a refusal", addr, err)
		}
		if err := (HTTPConfig{Addr: addr, Token: testToken}).Check(); err != nil {
			t.Errorf("Check(%s, token) = %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:8931", "localhost:8931", "[::1]:8931", ":8931", "8931"} {
		if err := (HTTPConfig{Addr: addr}).Check(); err != nil {
			t.Errorf("Check(%s) = %v, want loopback without a token to be fine", addr, err)
		}
	}
	if err := (HTTPConfig{Addr: "127.0.0.1:1", Token: "short"}).Check(); err == nil {
		t.Error("a 5-character token was accepted")
	}
	if err := (HTTPConfig{Addr: "127.0.0.1:1", AllowedOrigins: []string{"*"}}).Check(); err == nil {
		t.Error("a wildcard origin was accepted")
	}
	if _, _, err := (&Server{}).HTTPHandler(HTTPConfig{Addr: "0.0.0.0:1"}); err == nil {
		t.Error("HTTPHandler built a handler beyond loopback without a token")
	}
}

func TestListenAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"8931":           "127.0.0.1:8931",
		":8931":          "127.0.0.1:8931",
		"0.0.0.0:8931":   "0.0.0.0:8931",
		"[::1]:8931":     "[::1]:8931",
		"localhost:8931": "localhost:8931",
	} {
		if got, err := ListenAddr(in); got != want || err != nil {
			t.Errorf("ListenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func get(t *testing.T, method, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<10))
	return res, string(b)
}

func TestHostAndOriginChecks(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{})
	base := serveHTTP(t, s, HTTPConfig{AllowedHosts: []string{"mcp.internal", "pinned.example:9999"}, AllowedOrigins: []string{"https://app.example"}})
	cases := []struct {
		path   string
		header map[string]string
		want   int
	}{
		{"/healthz", nil, 200},
		{"/healthz", map[string]string{"Host": "localhost:1234"}, 200},
		{"/healthz", map[string]string{"Host": "mcp.internal"}, 200},
		{"/healthz", map[string]string{"Host": "pinned.example:9999"}, 200},
		{"/healthz", map[string]string{"Host": "pinned.example:80"}, 403},
		{"/healthz", map[string]string{"Host": "evil.example"}, 403},
		{"/mcp", map[string]string{"Host": "evil.example"}, 403},
		{"/sse", map[string]string{"Host": "attacker.test:8931"}, 403},
		{"/message", map[string]string{"Host": "attacker.test"}, 403},
		{"/mcp", map[string]string{"Origin": "http://evil.example"}, 403},
		{"/sse", map[string]string{"Origin": "null"}, 403},
		{"/healthz", map[string]string{"Origin": "http://localhost:3000"}, 403},
		{"/healthz", map[string]string{"Origin": "https://app.example"}, 200},
	}
	for _, c := range cases {
		res, body := get(t, http.MethodGet, base+c.path, c.header)
		if res.StatusCode != c.want {
			t.Errorf("GET %s %v: %d %q, want %d", c.path, c.header, res.StatusCode, body, c.want)
		}
	}
	// The server's own origin, under each loopback name, is accepted on its
	// port only: a loopback page on another port is another program.
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	for _, c := range []struct {
		origin string
		want   int
	}{
		{"http://127.0.0.1:" + port, 200},
		{"http://localhost:" + port, 200},
		{"http://[::1]:" + port, 200},
		{"http://127.0.0.1:" + port + "/", 200},
		{"https://127.0.0.1:" + port, 403},
		{"http://127.0.0.1:1" + port, 403},
		{"http://localhost", 403},
		{"http://evil.example:" + port, 403},
	} {
		for _, path := range []string{"/healthz", "/mcp"} {
			res, body := get(t, http.MethodGet, base+path, map[string]string{"Origin": c.origin})
			if got := res.StatusCode == http.StatusForbidden; got != (c.want == 403) {
				t.Errorf("GET %s Origin %s: %d %q, want %d", path, c.origin, res.StatusCode, body, c.want)
			}
		}
	}
	// Preflight from the allowed origin gets CORS for exactly that origin.
	res, _ := get(t, http.MethodOptions, base+"/mcp", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"})
	if got := res.Header.Get("Access-Control-Allow-Origin"); got != "https://app.example" {
		t.Errorf("preflight Access-Control-Allow-Origin = %q", got)
	}
}

func TestNoWildcardCORS(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{})
	base := serveHTTP(t, s, HTTPConfig{})
	req, _ := http.NewRequest(http.MethodGet, base+"/sse", nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET /sse: %d", res.StatusCode)
	}
	if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("GET /sse sent Access-Control-Allow-Origin: %q", got)
	}
}

func TestTokenRequired(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{})
	base := serveHTTP(t, s, HTTPConfig{Token: testToken})
	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Bearer " + testToken + "x", "Basic " + testToken, testToken} {
		for _, path := range []string{"/mcp", "/sse", "/message?sessionId=x"} {
			res, _ := get(t, http.MethodGet, base+path, map[string]string{"Authorization": auth})
			if res.StatusCode != http.StatusUnauthorized {
				t.Errorf("GET %s with Authorization %q: %d, want 401", path, auth, res.StatusCode)
			}
			if auth == "" && !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: Bearer")
			}
		}
	}
	if res, _ := get(t, http.MethodGet, base+"/healthz", nil); res.StatusCode != 200 {
		t.Errorf("/healthz without a token: %d, want 200", res.StatusCode)
	}
	if res, body := get(t, http.MethodGet, base+"/healthz", nil); strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz says %q (%d), want just ok", body, res.StatusCode)
	}

	// A real client with the token gets through, on both transports.
	for _, c := range []*client.Client{servertest.Connect(t, servertest.Streamable, base, testToken), servertest.Connect(t, servertest.SSE, base, testToken)} {
		if res := callTool(t, context.Background(), c, toolapi.GetSnapshot, nil); res.IsError {
			t.Errorf("call with the token failed: %+v", res)
		}
	}
}

func TestHTTPClientsEachGetASessionClosedWithThem(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{})
	base := serveHTTP(t, s, HTTPConfig{Token: testToken})
	ctx := context.Background()
	a := servertest.Connect(t, servertest.Streamable, base, testToken)
	if a.GetSessionId() == "" {
		t.Fatal("streamable HTTP client has no Mcp-Session-Id: the transport is not on a session-bearing revision")
	}
	b := servertest.Connect(t, servertest.SSE, base, testToken)
	callTool(t, ctx, a, toolapi.GetSnapshot, nil)
	callTool(t, ctx, b, toolapi.GetSnapshot, nil)
	callTool(t, ctx, a, toolapi.Click, map[string]any{"ref": "@e1"})
	sessions := f.all()
	if len(sessions) != 2 {
		t.Fatalf("%d browser sessions for two clients, want 2", len(sessions))
	}
	a.Close() // DELETE /mcp
	waitFor(t, "the streamable client's session to close", sessions[0].closed.Load)
	if sessions[1].closed.Load() {
		t.Fatal("closing the streamable client closed the SSE client's session")
	}
	b.Close() // ends the SSE stream
	waitFor(t, "the SSE client's session to close", sessions[1].closed.Load)
}

func TestUnknownSessionIDGets404(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{})
	base := serveHTTP(t, s, HTTPConfig{})
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "mcp-session-00000000-0000-4000-8000-000000000000")
	req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session id: %d, want 404", res.StatusCode)
	}
}
