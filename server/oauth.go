package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/internal/oauth"
)

// metadataPath is where a protected resource's metadata is (RFC 9728 §3).
const metadataPath = "/.well-known/oauth-protected-resource"

// validateTimeout bounds checking one access token, a fetch of the
// issuer's keys included.
const validateTimeout = 30 * time.Second

// resourceMetadata is the protected resource's metadata (RFC 9728 §2).
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// metadataURL is the address of the metadata of resource: the well-known
// path inserted before the resource's path (RFC 9728 §3.1).
func metadataURL(resource *url.URL) string {
	return resource.Scheme + "://" + resource.Host + metadataPath + strings.TrimSuffix(resource.EscapedPath(), "/")
}

// metadataPaths are the paths the metadata is served at: the bare
// well-known path, and the one with the resource's path after it, which
// clients derive from the resource (also /mcp's, for a resource URL whose
// path a proxy in front rewrites).
func metadataPaths(resource *url.URL) []string {
	paths := []string{metadataPath, metadataPath + "/mcp"}
	if p := strings.TrimSuffix(resource.EscapedPath(), "/"); p != "" && !slices.Contains(paths, metadataPath+p) {
		paths = append(paths, metadataPath+p)
	}
	return paths
}

// serveResourceMetadata answers with the metadata of the resource v
// accepts tokens for.
func serveResourceMetadata(v *oauth.Validator, scopes []string) http.HandlerFunc {
	body, _ := json.Marshal(resourceMetadata{
		Resource:               v.Audience(),
		AuthorizationServers:   []string{v.Issuer()},
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Chaperone",
	})
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=300")
		w.Write(body)
	}
}

// challenge is a refusal of a request's credentials: the status (401 or
// 403) and the WWW-Authenticate parameters that say what to do.
type challenge struct {
	status      int
	err         string // invalid_token, insufficient_scope, or "" (no token sent)
	description string // fixed wording, never what the request sent
	scope       []string
}

// write sends the challenge: RFC 6750's Bearer parameters with RFC 9728's
// resource_metadata, so that a client can find the authorization server.
func (g *guard) challenge(w http.ResponseWriter, c challenge) {
	if g.oauth == nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="chaperone"`)
		http.Error(w, "401 unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
		return
	}
	params := []string{fmt.Sprintf("resource_metadata=%q", g.metadataURL)}
	if c.err != "" {
		params = append(params, fmt.Sprintf("error=%q", c.err))
	}
	if c.description != "" {
		params = append(params, fmt.Sprintf("error_description=%q", c.description))
	}
	if len(c.scope) > 0 {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(c.scope, " ")))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	msg := "401 unauthorized: send Authorization: Bearer <access token>; " + g.metadataURL + " names the authorization server"
	if c.status == http.StatusForbidden {
		msg = "403 forbidden: insufficient_scope: " + c.description
	} else if c.description != "" {
		msg = "401 unauthorized: invalid_token: " + c.description
	}
	http.Error(w, msg, c.status)
}

// authenticate finds the client of r from its bearer token: a static
// credential's name, with every scope, or an access token's sub, with the
// token's scopes (restricted). A refusal is returned as the challenge to
// answer with.
func (g *guard) authenticate(r *http.Request) (client string, scopes []string, restricted bool, refused *challenge) {
	token, sent := bearerToken(r)
	if g.creds != nil && sent {
		if name, ok := g.creds.lookup(token); ok {
			return name, nil, false, nil
		}
	}
	if g.oauth == nil {
		return "", nil, false, &challenge{status: http.StatusUnauthorized}
	}
	if !sent {
		return "", nil, false, &challenge{status: http.StatusUnauthorized, scope: g.scopes.supported}
	}
	ctx, cancel := context.WithTimeout(r.Context(), validateTimeout)
	defer cancel()
	tok, err := g.oauth.Validate(ctx, token)
	if err != nil {
		reason := "invalid token"
		var te *oauth.TokenError
		if errors.As(err, &te) {
			reason = te.Reason
		}
		g.log.Info("refused: access token", "why", err, "path", r.URL.Path)
		return "", nil, false, &challenge{status: http.StatusUnauthorized, err: "invalid_token", description: reason, scope: g.scopes.supported}
	}
	// A static credential and an access token never name the same client:
	// the one's sessions are not the other's.
	if g.creds != nil && g.creds.has(tok.Subject) {
		g.log.Warn("refused: an access token's sub is the name of a static credential", "sub", tok.Subject)
		return "", nil, false, &challenge{status: http.StatusUnauthorized, err: "invalid_token", description: "sub names another client", scope: g.scopes.supported}
	}
	return tok.Subject, tok.Scopes, true, nil
}

// bearerToken returns the token of r's Authorization header, and whether
// there was one.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// admits refuses, as the challenge to answer with, an access token that
// grants nothing on path: /metrics, which shows every client's activity,
// needs ScopeRead; every other guarded path needs ScopeRead or ScopeAct.
// A token issued for this resource with none of them (openid alone, or
// ScopeCaps alone, which only widens the others) opens no session, lists
// no tools, holds no stream. Scopes are compared exactly, as the tools'
// are.
func (g *guard) admits(path string, scopes []string) *challenge {
	if path == "/metrics" {
		if slices.Contains(scopes, ScopeRead) {
			return nil
		}
		return &challenge{status: http.StatusForbidden, err: "insufficient_scope",
			description: "/metrics needs " + ScopeRead, scope: []string{ScopeRead}}
	}
	if slices.Contains(scopes, ScopeRead) || slices.Contains(scopes, ScopeAct) {
		return nil
	}
	return &challenge{status: http.StatusForbidden, err: "insufficient_scope",
		description: "the token carries no scope of this server", scope: g.scopes.supported}
}

// checkScopes refuses, with 403 insufficient_scope, a request whose body
// calls a tool the grant's scopes do not cover; it reads the body, and
// puts it back for the transport. The scope asked for is what the token
// has and what the call needs, so that a client that steps up keeps what
// it could do. It reports whether the request may go on.
func (g *guard) checkScopes(w http.ResponseWriter, r *http.Request, scopes []string) bool {
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
		return true
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "413 request body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "400 bad request: the body could not be read", http.StatusBadRequest)
		}
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	ctx := withGrant(r.Context(), scopes)
	for _, call := range toolCalls(body) {
		need := g.scopes.required(call.name, call.args)
		missing := missingScopes(ctx, need)
		if len(missing) == 0 {
			continue
		}
		var want []string
		for _, s := range []string{ScopeRead, ScopeAct, ScopeCaps} {
			if slices.Contains(need, s) || slices.Contains(scopes, s) {
				want = append(want, s)
			}
		}
		g.log.Info("refused: insufficient scope", "tool", call.name, "missing", strings.Join(missing, " "))
		g.challenge(w, challenge{status: http.StatusForbidden, err: "insufficient_scope",
			description: call.name + " needs " + strings.Join(need, " "), scope: want})
		return false
	}
	return true
}

// toolCall is one tools/call a request body makes.
type toolCall struct {
	name string
	args json.RawMessage
}

// toolCalls returns the tools/call requests of a JSON-RPC body, one
// message or a batch, read as the transport reads them (encoding/json,
// keys matched without regard to case, the last of a repeated key).
func toolCalls(body []byte) []toolCall {
	var msgs []json.RawMessage
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &msgs) != nil {
			return nil
		}
	} else {
		msgs = []json.RawMessage{body}
	}
	var calls []toolCall
	for _, m := range msgs {
		var msg struct {
			Method mcp.MCPMethod   `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(m, &msg) != nil || msg.Method != mcp.MethodToolsCall {
			continue
		}
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		json.Unmarshal(msg.Params, &p)
		calls = append(calls, toolCall{name: p.Name, args: p.Arguments})
	}
	return calls
}
