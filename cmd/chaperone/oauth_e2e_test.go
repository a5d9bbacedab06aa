package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// oauthAS is the authorization server of testdata/oauth/as.mjs, running.
type oauthAS struct {
	cmd    *exec.Cmd
	issuer string
	lines  chan string // what it prints after "issuer …"
	stderr *syncBuffer
}

// oauthNode installs (scripts/ensure-oauth-e2e) the pinned Node, oidc-provider
// and MCP SDK, and returns the node binary and a directory holding the
// test's scripts beside the installed packages.
func oauthNode(t *testing.T) (node, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ensure := exec.CommandContext(ctx, filepath.Join("..", "..", "scripts", "ensure-oauth-e2e"))
	var stderr strings.Builder
	ensure.Stderr = &stderr
	out, err := ensure.Output()
	if err != nil {
		t.Fatalf("scripts/ensure-oauth-e2e: %v\n%s", err, stderr.String())
	}
	cache := strings.TrimSpace(string(out))
	dir = t.TempDir()
	for _, f := range []string{"as.mjs", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "oauth", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(cache, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(cache, "node_modules", "node", "bin", "node"), dir
}

// startOAuthAS starts the authorization server and waits for its issuer.
func startOAuthAS(t *testing.T, node, dir string) *oauthAS {
	t.Helper()
	as := &oauthAS{cmd: exec.Command(node, "as.mjs"), lines: make(chan string, 16), stderr: &syncBuffer{}}
	as.cmd.Dir = dir
	as.cmd.Stderr = as.stderr
	stdout, err := as.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := as.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		as.cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		as.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			as.cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("authorization server stderr:\n%s", as.stderr.String())
		}
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			// oidc-provider's own notices go to stdout too.
			if line := sc.Text(); strings.HasPrefix(line, "issuer ") || strings.HasPrefix(line, "rotated ") {
				as.lines <- line
			} else {
				as.stderr.Write([]byte(line + "\n"))
			}
		}
		close(as.lines)
	}()
	select {
	case line, ok := <-as.lines:
		if !ok || !strings.HasPrefix(line, "issuer ") {
			t.Fatalf("the authorization server said %q\n%s", line, as.stderr.String())
		}
		as.issuer = strings.TrimPrefix(line, "issuer ")
	case <-time.After(60 * time.Second):
		t.Fatalf("the authorization server did not start within 60 s\n%s", as.stderr.String())
	}
	return as
}

// rotate makes the authorization server sign with a new key (the old one
// stays published) and returns the new key's kid.
func (as *oauthAS) rotate(t *testing.T) string {
	t.Helper()
	if err := as.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	select {
	case line := <-as.lines:
		kid, ok := strings.CutPrefix(line, "rotated ")
		if !ok {
			t.Fatalf("rotation: the authorization server said %q", line)
		}
		return kid
	case <-time.After(30 * time.Second):
		t.Fatal("the authorization server did not rotate its key within 30 s")
	}
	return ""
}

// oauthToken is what the client script reports of an access token.
type oauthToken struct {
	Kid   string `json:"kid"`
	Typ   string `json:"typ"`
	Sub   string `json:"sub"`
	Aud   any    `json:"aud"`
	Scope string `json:"scope"`
	Iss   string `json:"iss"`
	Exp   int64  `json:"exp"`
}

type oauthCall struct {
	OK   bool   `json:"ok"`
	Text string `json:"text"`
}

type oauthProbe struct {
	Status          int    `json:"status"`
	WWWAuthenticate string `json:"www_authenticate"`
}

// oauthResult is every field a scenario of client.mjs may report.
type oauthResult struct {
	Session        string       `json:"session"`
	Authorizations int          `json:"authorizations"`
	Registered     bool         `json:"registered"`
	Asked          []string     `json:"asked"`
	Resources      []string     `json:"resources"`
	Token          oauthToken   `json:"token"`
	First          oauthToken   `json:"first"`
	AccessToken    string       `json:"access_token"`
	Tools          []string     `json:"tools"`
	Snapshot       oauthCall    `json:"snapshot"`
	Act            oauthCall    `json:"act"`
	ActProbe       oauthProbe   `json:"act_probe"`
	OtherSession   oauthProbe   `json:"other_session_probe"`
	Connected      bool         `json:"connected"`
	Error          string       `json:"error"`
	Probe          oauthProbe   `json:"probe"`
	Good           oauthToken   `json:"good"`
	GoodProbe      oauthProbe   `json:"good_probe"`
	SameKid        *oauthResult `json:"same_kid"`
	NewKid         *oauthResult `json:"new_kid"`
}

// The MCP authorization flow end to end: the official TypeScript SDK's
// client, from chaperone's 401, through the protected resource's metadata,
// a real authorization server (oidc-provider: discovery, dynamic
// registration, authorization code with PKCE and the resource indicator,
// JWT access tokens), to tool calls; and the tokens chaperone must refuse:
// one for another audience, an expired one, one without the scope of the
// call (403 insufficient_scope, then the step-up), ones signed by a key
// from elsewhere; and the issuer's key rotation, taken without a restart.
func TestOAuthEndToEnd(t *testing.T) {
	t.Parallel()
	node, dir := oauthNode(t)
	as := startOAuthAS(t, node, dir)
	p := startServe(t, nil, "serve", "--http", "127.0.0.1:0", "--profile", "none", "--oauth-issuer", as.issuer, "--log-level", "debug")
	resource := p.base + "/mcp"
	other := "http://127.0.0.1:1/other/mcp"

	var mu sync.Mutex // scenarios run one at a time: their order matters for rotation
	run := func(t *testing.T, scenario, account string, env ...string) oauthResult {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, "client.mjs", scenario)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"MCP_URL=" + resource, "ACCOUNT=" + account}, env...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("client.mjs %s: %v\n%s", scenario, err, stderr.String())
		}
		var r oauthResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("client.mjs %s: %v: %s", scenario, err, out)
		}
		return r
	}
	refused := func(t *testing.T, pr oauthProbe, status int, errCode, description string) {
		t.Helper()
		if pr.Status != status {
			t.Errorf("status %d, want %d", pr.Status, status)
		}
		for _, want := range []string{`resource_metadata="` + p.base + `/.well-known/oauth-protected-resource/mcp"`, `error="` + errCode + `"`, `error_description="` + description + `"`} {
			if !strings.Contains(pr.WWWAuthenticate, want) {
				t.Errorf("WWW-Authenticate %q lacks %s", pr.WWWAuthenticate, want)
			}
		}
	}

	flow := run(t, "flow", "alice")
	t.Run("flow", func(t *testing.T) {
		if flow.Authorizations != 1 || !flow.Registered {
			t.Errorf("authorizations %d, registered %v: want one authorization by a dynamically registered client", flow.Authorizations, flow.Registered)
		}
		if len(flow.Resources) != 1 || flow.Resources[0] != resource {
			t.Errorf("the authorization request's resource = %v, want %s (from the protected resource's metadata)", flow.Resources, resource)
		}
		tok := flow.Token
		if tok.Sub != "alice" || tok.Aud != resource || tok.Iss != as.issuer || tok.Typ != "at+jwt" ||
			!strings.Contains(tok.Scope, "chaperone:read") || !strings.Contains(tok.Scope, "chaperone:act") {
			t.Errorf("token = %+v", tok)
		}
		if !flow.Snapshot.OK || !strings.HasPrefix(flow.Snapshot.Text, "page ") || !flow.Act.OK || !strings.HasPrefix(flow.Act.Text, "success") {
			t.Errorf("get_snapshot %+v, browser_scroll %+v", flow.Snapshot, flow.Act)
		}
		if !strings.Contains(strings.Join(flow.Tools, " "), "get_snapshot") || flow.Session == "" {
			t.Errorf("tools %v, session %q", flow.Tools, flow.Session)
		}
	})
	t.Run("missing scope", func(t *testing.T) {
		r := run(t, "readonly", "bob", "OTHER_SESSION="+flow.Session)
		if r.Token.Sub != "bob" || r.Token.Scope != "chaperone:read" {
			t.Fatalf("token = %+v, want bob's with chaperone:read only", r.Token)
		}
		if !r.Snapshot.OK {
			t.Errorf("get_snapshot with chaperone:read: %+v", r.Snapshot)
		}
		if r.Act.OK {
			t.Errorf("browser_scroll with chaperone:read only succeeded: %+v", r.Act)
		}
		refused(t, r.ActProbe, http.StatusForbidden, "insufficient_scope", "browser_scroll needs chaperone:act")
		if !strings.Contains(r.ActProbe.WWWAuthenticate, `scope="chaperone:read chaperone:act"`) {
			t.Errorf("403 challenge %q does not name the scope to ask for", r.ActProbe.WWWAuthenticate)
		}
		// The SDK stepped up: it asked the person again, for that scope.
		if r.Authorizations != 2 || len(r.Asked) != 2 || r.Asked[1] != "chaperone:read chaperone:act" {
			t.Errorf("authorizations %d asking %q: want a second one for chaperone:read chaperone:act", r.Authorizations, r.Asked)
		}
		// Alice's session is not bob's.
		if r.OtherSession.Status != http.StatusNotFound {
			t.Errorf("bob's token on alice's session: %d, want 404", r.OtherSession.Status)
		}
	})
	t.Run("step-up", func(t *testing.T) {
		r := run(t, "stepup", "carol")
		if r.First.Scope != "chaperone:read" || !r.Act.OK || !strings.Contains(r.Token.Scope, "chaperone:act") {
			t.Errorf("first token %q, then the action %+v with %q: want read, then act granted on step-up", r.First.Scope, r.Act, r.Token.Scope)
		}
	})
	t.Run("another audience", func(t *testing.T) {
		r := run(t, "audience", "dave", "OTHER_RESOURCE="+other)
		if r.Token.Aud != other || r.Token.Sub != "dave" {
			t.Fatalf("token = %+v, want dave's for %s", r.Token, other)
		}
		if r.Connected {
			t.Error("the SDK connected with a token for another audience")
		}
		refused(t, r.Probe, http.StatusUnauthorized, "invalid_token", "issued for another resource")
	})
	t.Run("expired", func(t *testing.T) {
		r := run(t, "expired", "erin")
		if r.Token.Exp == 0 || r.Token.Exp > time.Now().Add(-time.Hour).Unix() {
			t.Fatalf("token exp %d: want an hour or more ago", r.Token.Exp)
		}
		if r.Connected {
			t.Error("the SDK connected with an expired token")
		}
		refused(t, r.Probe, http.StatusUnauthorized, "invalid_token", "expired")
	})
	t.Run("key from elsewhere", func(t *testing.T) {
		r := run(t, "forged", "mallory")
		if r.GoodProbe.Status != http.StatusOK {
			t.Fatalf("the issuer's own token: %d", r.GoodProbe.Status)
		}
		if r.SameKid == nil || r.NewKid == nil {
			t.Fatal("no forged tokens")
		}
		if r.SameKid.Token.Kid != r.Good.Kid || r.NewKid.Token.Kid == r.Good.Kid || r.SameKid.Token.Sub != "mallory" {
			t.Errorf("forged tokens %+v and %+v, want the issuer's kid %q and another", r.SameKid.Token, r.NewKid.Token, r.Good.Kid)
		}
		refused(t, r.SameKid.Probe, http.StatusUnauthorized, "invalid_token", "bad signature")
		refused(t, r.NewKid.Probe, http.StatusUnauthorized, "invalid_token", "unknown signing key")
		if r.SameKid.Connected || r.NewKid.Connected {
			t.Error("the SDK connected with a forged token")
		}
	})
	t.Run("key rotation", func(t *testing.T) {
		kid := as.rotate(t)
		if kid == flow.Token.Kid {
			t.Fatalf("rotated to the same kid %q", kid)
		}
		r := run(t, "flow", "frank")
		if r.Token.Kid != kid || !r.Snapshot.OK || !r.Act.OK {
			t.Errorf("after the rotation: kid %q (want %q), get_snapshot %+v, browser_scroll %+v", r.Token.Kid, kid, r.Snapshot, r.Act)
		}
		// The old key is still published: alice's token still works.
		if got := postInitialize(t, resource, flow.AccessToken); got != http.StatusOK {
			t.Errorf("a token of the key before the rotation: %d, want 200", got)
		}
		select {
		case <-p.exited:
			t.Fatal("chaperone exited")
		default:
		}
	})
	if log := p.stderr.String(); strings.Contains(log, flow.AccessToken) {
		t.Error("chaperone's log holds an access token")
	}
}

// postInitialize sends an initialize request with token and returns the
// status.
func postInitialize(t *testing.T, url, token string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + mcp.LATEST_LEGACY_PROTOCOL_VERSION + `","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}
