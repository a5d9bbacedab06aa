package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/internal/oauth"
	"github.com/chaperone-mcp/chaperone/internal/oauth/oauthtest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// oauthServer serves s over HTTP with OAuth access tokens of a test issuer
// (and creds, if not nil) and returns its base URL, its resource
// identifier and the issuer.
func oauthServer(t *testing.T, s *Server, creds *Credentials) (base, resource string, is *oauthtest.Issuer) {
	t.Helper()
	is = oauthtest.NewIssuer(t)
	ln := listenLoopback(t)
	resource = "http://" + ln.Addr().String() + "/mcp"
	v, err := oauth.New(context.Background(), oauth.Options{Issuer: is.URL(), Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	return serveOnListener(t, s, ln, HTTPConfig{OAuth: v, Credentials: creds}), resource, is
}

// post sends one JSON-RPC body to /mcp with token (if not empty) for the
// MCP session id (if not empty), and returns the response and its body.
func post(t *testing.T, base, token, session, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(b)
}

func callBody(name, args string) string {
	return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// The resource's metadata is public, at the bare well-known path and at
// the one with /mcp after it, and names the issuer and the scopes.
func TestOAuthProtectedResourceMetadata(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{Caps: []string{toolapi.CapAll}})
	base, resource, is := oauthServer(t, s, nil)
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		res, body := get(t, http.MethodGet, base+path, nil)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		var m resourceMetadata
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		want := resourceMetadata{Resource: resource, AuthorizationServers: []string{is.URL()},
			ScopesSupported: []string{ScopeRead, ScopeAct, ScopeCaps}, BearerMethodsSupported: []string{"header"}, ResourceName: "Chaperone"}
		if !jsonSame(m, want) {
			t.Errorf("GET %s = %+v, want %+v", path, m, want)
		}
	}
	// Without opt-in tools, chaperone:caps opens nothing and is not listed.
	plain := newTestServer(t, &fakes{}, Config{})
	base, _, _ = oauthServer(t, plain, nil)
	_, body := get(t, http.MethodGet, base+"/.well-known/oauth-protected-resource/mcp", nil)
	if strings.Contains(body, ScopeCaps) {
		t.Errorf("metadata without opt-in tools lists %s: %s", ScopeCaps, body)
	}
}

func jsonSame(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// A request without a token, or with one that must not be accepted, gets
// 401 and a challenge naming the resource's metadata; the refused token
// opens nothing.
func TestOAuthRefusals(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{})
	creds := twoClients(t)
	base, resource, is := oauthServer(t, s, creds)
	meta := `resource_metadata="` + strings.TrimSuffix(base, "/") + `/.well-known/oauth-protected-resource/mcp"`
	elsewhere := oauthtest.NewKey(t, is.Key.KeyID())
	for _, tc := range []struct {
		name, token, want string // want: the error parameter, "" for none
	}{
		{"no token", "", ""},
		{"not a JWT", "0123456789abcdef-not-a-jwt", "invalid_token"},
		{"another audience", is.Token(t, "alice2", "http://127.0.0.1:1/mcp", ScopeRead), "invalid_token"},
		{"expired", is.Sign(t, is.Key, oauthtest.Claims{Subject: "carol", Audience: []string{resource}, Scope: ScopeRead, Expiry: time.Now().Add(-time.Hour).Unix(), IssuedAt: time.Now().Add(-2 * time.Hour).Unix()}), "invalid_token"},
		{"a key from elsewhere", is.Sign(t, elsewhere, oauthtest.Claims{Subject: "carol", Audience: []string{resource}, Scope: ScopeRead}), "invalid_token"},
		{"another issuer", is.Sign(t, is.Key, oauthtest.Claims{Issuer: "https://as.example", Subject: "carol", Audience: []string{resource}}), "invalid_token"},
		{"a sub that is a static client's name", is.Token(t, "alice", resource, ScopeRead+" "+ScopeAct), "invalid_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := post(t, base, tc.token, "", initBody)
			if res.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", res.StatusCode)
			}
			h := res.Header.Get("WWW-Authenticate")
			if !strings.HasPrefix(h, "Bearer ") || !strings.Contains(h, meta) {
				t.Errorf("WWW-Authenticate = %q, want Bearer with %s", h, meta)
			}
			if hasErr := strings.Contains(h, `error="`); hasErr != (tc.want != "") || (tc.want != "" && !strings.Contains(h, `error="`+tc.want+`"`)) {
				t.Errorf("WWW-Authenticate = %q, want error %q", h, tc.want)
			}
		})
	}
	if n := len(f.all()); n != 0 {
		t.Errorf("%d browser sessions opened for refused tokens", n)
	}
	// Beside the access tokens, the static tokens still work, with every
	// scope.
	alice := servertest.Connect(t, servertest.Streamable, base, aliceToken)
	if res := callTool(t, context.Background(), alice, toolapi.Click, map[string]any{"ref": "@e1"}); res.IsError {
		t.Errorf("a static token's click: %+v", res)
	}
}

// A token's scopes bound the tools it calls: a call outside them gets 403
// insufficient_scope naming what to ask for, and never reaches the browser
// session, however the body spells it.
func TestOAuthScopes(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{Caps: []string{toolapi.CapAll}})
	base, resource, is := oauthServer(t, s, nil)
	read := is.Token(t, "reader", resource, ScopeRead)
	readAct := is.Token(t, "actor", resource, ScopeRead+" "+ScopeAct)
	all := is.Token(t, "admin", resource, ScopeRead+" "+ScopeAct+" "+ScopeCaps)
	sessions := map[string]string{}
	for name, tok := range map[string]string{"reader": read, "actor": readAct, "admin": all} {
		c := servertest.Connect(t, servertest.Streamable, base, tok)
		sessions[name] = c.GetSessionId()
	}
	for _, tc := range []struct {
		name, who, body string
		wantScope       string // "" when allowed
	}{
		{"read: get_snapshot", "reader", callBody(toolapi.GetSnapshot, `{}`), ""},
		{"read: extract", "reader", callBody(toolapi.Extract, `{}`), ""},
		{"read: tools/list", "reader", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, ""},
		{"read: click", "reader", callBody(toolapi.Click, `{"ref":"@e1"}`), ScopeRead + " " + ScopeAct},
		{"read: navigate", "reader", callBody(toolapi.Navigate, `{"url":"http://127.0.0.1/"}`), ScopeRead + " " + ScopeAct},
		{"read: complete_task", "reader", callBody(toolapi.CompleteTask, `{}`), ScopeRead + " " + ScopeAct},
		{"read: request_human_approval", "reader", callBody(toolapi.RequestApproval, `{}`), ScopeRead + " " + ScopeAct},
		{"read: screenshot, opt-in", "reader", callBody(toolapi.Screenshot, `{}`), ScopeRead + " " + ScopeCaps},
		{"read: click, method in capitals", "reader", `{"jsonrpc":"2.0","id":5,"METHOD":"tools/call","params":{"NAME":"browser_click","arguments":{"ref":"@e1"}}}`, ScopeRead + " " + ScopeAct},
		{"read: click, name repeated", "reader", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_snapshot","name":"browser_click","arguments":{"ref":"@e1"}}}`, ScopeRead + " " + ScopeAct},
		{"read: click, escaped", "reader", `{"jsonrpc":"2.0","id":5,"method":"tools\/call","params":{"name":"browser\u005fclick","arguments":{"ref":"@e1"}}}`, ScopeRead + " " + ScopeAct},
		{"read: click in a batch", "reader", `[` + callBody(toolapi.GetSnapshot, `{}`) + `,` + callBody(toolapi.Click, `{"ref":"@e1"}`) + `]`, ScopeRead + " " + ScopeAct},
		{"act: click", "actor", callBody(toolapi.Click, `{"ref":"@e1"}`), ""},
		{"act: drag, opt-in", "actor", callBody(toolapi.Drag, `{}`), ScopeRead + " " + ScopeAct + " " + ScopeCaps},
		{"act: tabs, opt-in", "actor", callBody(toolapi.Tabs, `{"action":"list"}`), ScopeRead + " " + ScopeAct + " " + ScopeCaps},
		{"act: click at x,y (vision)", "actor", callBody(toolapi.Click, `{"x":10,"y":20}`), ScopeRead + " " + ScopeAct + " " + ScopeCaps},
		{"act: click at X (vision, capital)", "actor", callBody(toolapi.Click, `{"X":10,"y":20}`), ScopeRead + " " + ScopeAct + " " + ScopeCaps},
		{"caps: click at x,y", "admin", callBody(toolapi.Click, `{"x":10,"y":20}`), ""},
		{"caps: drag", "admin", callBody(toolapi.Drag, `{"from":"@e1","to":"@e2"}`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := map[string]string{"reader": read, "actor": readAct, "admin": all}[tc.who]
			before := countCalls(f)
			res, body := post(t, base, tok, sessions[tc.who], tc.body)
			if tc.wantScope == "" {
				if res.StatusCode != http.StatusOK {
					t.Fatalf("status %d: %s", res.StatusCode, body)
				}
				return
			}
			if res.StatusCode != http.StatusForbidden {
				t.Fatalf("status %d, want 403: %s", res.StatusCode, body)
			}
			h := res.Header.Get("WWW-Authenticate")
			for _, want := range []string{`error="insufficient_scope"`, `scope="` + tc.wantScope + `"`, `resource_metadata="`} {
				if !strings.Contains(h, want) {
					t.Errorf("WWW-Authenticate = %q, want %s", h, want)
				}
			}
			if after := countCalls(f); after != before {
				t.Errorf("a refused call reached the browser session (%d calls, were %d)", after, before)
			}
		})
	}
}

func countCalls(f *fakes) int {
	n := 0
	for _, s := range f.all() {
		n += len(s.calls())
	}
	return n
}

// The server checks the scope again on the call it dispatches, whatever
// the HTTP guard read: a tool call with a grant that lacks its scope runs
// nothing.
func TestScopeMiddlewareRefusesWhatTheGrantLacks(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{Caps: []string{toolapi.CapAll}})
	ran := false
	next := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran = true
		return mcp.NewToolResultText("ran"), nil
	}
	for _, tc := range []struct {
		scopes []string
		tool   string
		args   map[string]any
		runs   bool
	}{
		{[]string{ScopeRead}, toolapi.GetSnapshot, nil, true},
		{[]string{ScopeRead}, toolapi.Click, map[string]any{"ref": "@e1"}, false},
		{[]string{ScopeRead, ScopeAct}, toolapi.Click, map[string]any{"ref": "@e1"}, true},
		{[]string{ScopeRead, ScopeAct}, toolapi.Click, map[string]any{"Y": 1}, false},
		{[]string{ScopeRead, ScopeAct}, toolapi.Upload, nil, false},
		{nil, toolapi.GetSnapshot, nil, false},
	} {
		ran = false
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tc.tool, tc.args
		res, err := s.scopeMiddleware(next)(withGrant(context.Background(), tc.scopes), req)
		if err != nil {
			t.Fatal(err)
		}
		if ran != tc.runs || res.IsError == tc.runs {
			t.Errorf("%v calling %s %v: ran %v, result %+v", tc.scopes, tc.tool, tc.args, ran, res)
		}
	}
	// No grant (stdio, a static token): everything runs.
	ran = false
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.Drag
	if _, err := s.scopeMiddleware(next)(context.Background(), req); err != nil || !ran {
		t.Errorf("a call without a grant did not run")
	}
}

// A token's sub is the client that owns its sessions: another sub's token
// does not reach them, another token of the same sub does.
func TestOAuthSubOwnsItsSessions(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{})
	base, resource, is := oauthServer(t, s, nil)
	scopes := ScopeRead + " " + ScopeAct
	alice := servertest.Connect(t, servertest.Streamable, base, is.Token(t, "alice@example.com", resource, scopes))
	if res := callTool(t, context.Background(), alice, toolapi.GetSnapshot, nil); res.IsError {
		t.Fatalf("alice's call: %+v", res)
	}
	for _, tc := range []struct {
		who, token string
		want       int
	}{
		{"bob's token", is.Token(t, "bob@example.com", resource, scopes), http.StatusNotFound},
		{"a sub that differs in case", is.Token(t, "Alice@example.com", resource, scopes), http.StatusNotFound},
		{"alice's next token", is.Token(t, "alice@example.com", resource, scopes), http.StatusOK},
	} {
		if got := servertest.SessionStatus(t, base, alice, tc.token); got != tc.want {
			t.Errorf("%s for alice's session: %d, want %d", tc.who, got, tc.want)
		}
	}
}

// Every tool a server can list has its scope decided in toolScopes: a new
// tool fails here until its author says what it needs. A tool decided as
// read is read-only; an opt-in tool needs chaperone:caps, a default one
// does not.
func TestEveryToolHasAScope(t *testing.T) {
	t.Parallel()
	all, err := tools.DefinitionsFor(toolapi.Capabilities())
	if err != nil {
		t.Fatal(err)
	}
	base, err := tools.DefinitionsFor(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newScopePolicy(all)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range all {
		kind, ok := toolScopes[d.Name]
		if !ok {
			t.Errorf("%s has no scope in toolScopes", d.Name)
			continue
		}
		if kind != ScopeRead && kind != ScopeAct {
			t.Errorf("%s: scope %q, want %s or %s", d.Name, kind, ScopeRead, ScopeAct)
		}
		if kind == ScopeRead && !d.ReadOnly {
			t.Errorf("%s is under %s but not read-only", d.Name, ScopeRead)
		}
		optIn := !slices.ContainsFunc(base, func(b tools.Definition) bool { return b.Name == d.Name })
		if got := slices.Contains(p.required(d.Name, json.RawMessage(`{}`)), ScopeCaps); got != optIn {
			t.Errorf("%s needs %s: %v, opt-in: %v", d.Name, ScopeCaps, got, optIn)
		}
	}
}

// Over SSE too, a call outside the token's scopes is refused before it
// runs.
func TestOAuthScopesOverSSE(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{})
	base, resource, is := oauthServer(t, s, nil)
	c := servertest.Connect(t, servertest.SSE, base, is.Token(t, "reader", resource, ScopeRead))
	if res := callTool(t, context.Background(), c, toolapi.GetSnapshot, nil); res.IsError {
		t.Fatalf("get_snapshot with %s: %+v", ScopeRead, res)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = toolapi.Click, map[string]any{"ref": "@e1"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := c.CallTool(ctx, req); err == nil && !res.IsError {
		t.Errorf("browser_click with %s only ran: %+v", ScopeRead, res)
	}
	for _, sess := range f.all() {
		for _, call := range sess.calls() {
			if strings.HasPrefix(call, toolapi.Click) {
				t.Errorf("the click reached the browser session: %s", call)
			}
		}
	}
}

// Behind a load balancer, the resource URL is the name clients use: its
// host is accepted, and the challenge and the metadata name it.
func TestOAuthResourceURLBehindAProxy(t *testing.T) {
	t.Parallel()
	is := oauthtest.NewIssuer(t)
	const resource = "https://mcp.example.com/tenant/mcp"
	v, err := oauth.New(context.Background(), oauth.Options{Issuer: is.URL(), Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, &fakes{}, Config{})
	h, shutdown, err := s.HTTPHandler(HTTPConfig{Addr: "0.0.0.0:8931", OAuth: v})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	do := func(method, path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "http://mcp.example.com"+path, strings.NewReader(initBody))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := do(http.MethodPost, "/mcp")
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Header().Get("WWW-Authenticate"), `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp"`) {
		t.Errorf("POST /mcp without a token: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/tenant/mcp", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		w := do(http.MethodGet, path)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"resource":"`+resource+`"`) {
			t.Errorf("GET %s: %d %s", path, w.Code, w.Body.String())
		}
	}
}

// A token issued for this resource that carries none of its scopes (only
// openid, or only chaperone:caps, which widens the others and opens
// nothing by itself) is granted nothing here: no session, no tool list, no
// stream, no metrics. /metrics reads every client's activity: it needs
// chaperone:read.
func TestOAuthTokenWithoutOurScopesReachesNothing(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{Caps: []string{toolapi.CapAll}})
	is := oauthtest.NewIssuer(t)
	ln := listenLoopback(t)
	resource := "http://" + ln.Addr().String() + "/mcp"
	v, err := oauth.New(context.Background(), oauth.Options{Issuer: is.URL(), Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "chaperone_sessions_open 0\n") })
	base := serveOnListener(t, s, ln, HTTPConfig{OAuth: v, Metrics: metrics})
	do := func(method, path, token, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		req.Header.Set("Authorization", "Bearer "+token)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		res, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close() // a stream's status is all this reads
		return res
	}
	for _, scope := range []string{"", "openid profile", ScopeCaps, "CHAPERONE:READ chaperone:Act", "chaperone:read,chaperone:act", "chaperone:*"} {
		tok := is.Token(t, "nobody", resource, scope)
		for _, req := range []struct{ method, path, body string }{
			{http.MethodPost, "/mcp", initBody},
			{http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`},
			{http.MethodGet, "/mcp", ""},
			{http.MethodGet, "/sse", ""},
			{http.MethodGet, "/metrics", ""},
		} {
			res := do(req.method, req.path, tok, req.body)
			h := res.Header.Get("WWW-Authenticate")
			if res.StatusCode != http.StatusForbidden || !strings.Contains(h, `error="insufficient_scope"`) || !strings.Contains(h, ScopeRead) {
				t.Errorf("scope %q: %s %s: %d %q, want 403 insufficient_scope naming %s", scope, req.method, req.path, res.StatusCode, h, ScopeRead)
			}
		}
	}
	if n := len(f.all()); n != 0 {
		t.Errorf("%d browser sessions opened for tokens without a scope of this server", n)
	}
	// chaperone:act alone drives MCP but does not read the metrics;
	// chaperone:read does.
	act := is.Token(t, "actor", resource, ScopeAct)
	if res := do(http.MethodPost, "/mcp", act, initBody); res.StatusCode != http.StatusOK {
		t.Errorf("initialize with %s: %d", ScopeAct, res.StatusCode)
	}
	if res := do(http.MethodGet, "/metrics", act, ""); res.StatusCode != http.StatusForbidden {
		t.Errorf("/metrics with %s only: %d, want 403", ScopeAct, res.StatusCode)
	}
	if res := do(http.MethodGet, "/metrics", is.Token(t, "scraper", resource, ScopeRead), ""); res.StatusCode != http.StatusOK {
		t.Errorf("/metrics with %s: %d, want 200", ScopeRead, res.StatusCode)
	}
}

// A static credential's name and an access token's sub are different
// clients even when they spell the same: a tokens file reloaded without a
// name (or with a name an issuer uses as a sub) never hands one's sessions
// to the other.
func TestOAuthSubNeverOwnsAStaticClientsSessions(t *testing.T) {
	t.Parallel()
	const carolToken, daveToken = "carol-0123456789abcdef", "dave-0123456789abcdef0"
	creds, err := NewCredentials([]Credential{{Name: "carol", Token: carolToken}})
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, &fakes{}, Config{})
	base, resource, is := oauthServer(t, s, creds)
	scopes := ScopeRead + " " + ScopeAct
	carol := servertest.Connect(t, servertest.Streamable, base, carolToken)
	dave := servertest.Connect(t, servertest.Streamable, base, is.Token(t, "dave", resource, scopes))
	// The file now names dave, and carol is gone.
	if err := creds.Replace([]Credential{{Name: "dave", Token: daveToken}}); err != nil {
		t.Fatal(err)
	}
	if got := servertest.SessionStatus(t, base, carol, is.Token(t, "carol", resource, scopes)); got != http.StatusNotFound {
		t.Errorf("the sub carol for the static client carol's session: %d, want 404", got)
	}
	if got := servertest.SessionStatus(t, base, dave, daveToken); got != http.StatusNotFound {
		t.Errorf("the static client dave for the sub dave's session: %d, want 404", got)
	}
}
