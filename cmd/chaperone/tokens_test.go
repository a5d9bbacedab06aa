package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

const (
	aliceToken = "alice-e2e-0123456789abcdef"
	bobToken   = "bob-e2e-0123456789abcdef-b"
)

func TestTokenCredentials(t *testing.T) {
	t.Parallel()
	got := tokenCredentials([]string{"alice:" + aliceToken, bobToken, "carol:x:y"})
	want := []server.Credential{{Name: "alice", Token: aliceToken}, {Name: "client2", Token: bobToken}, {Name: "carol", Token: "x:y"}}
	if !slices.Equal(got, want) {
		t.Errorf("tokenCredentials = %v, want %v", got, want)
	}
}

func TestReadTokensFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		content string
		mode    os.FileMode
		want    []string // names
		err     string
	}{
		{"names and comments", "# the team\nalice " + aliceToken + "\n\n  bob\t" + bobToken + "  \n", 0o600, []string{"alice", "bob"}, ""},
		{"group may read", "alice " + aliceToken + "\n", 0o640, []string{"alice"}, ""},
		{"empty", "# nobody yet\n", 0o600, nil, ""},
		{"every user may read", "alice " + aliceToken + "\n", 0o644, nil, "readable by every user"},
		{"a line without a name", aliceToken + "\n", 0o600, nil, "line 1"},
		{"three fields", "alice " + aliceToken + " extra\n", 0o600, nil, "line 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, c.mode); err != nil {
				t.Fatal(err)
			}
			cs, err := readTokensFile(path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one saying %q", err, c.err)
				}
				if strings.Contains(err.Error(), aliceToken) {
					t.Errorf("the error shows a token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, cr := range cs {
				names = append(names, cr.Name)
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("names %v, want %v", names, c.want)
			}
		})
	}
	if _, err := loadCredentials([]string{aliceToken}, filepath.Join(dir, "empty")); err == nil {
		t.Error("--token with --tokens-file was accepted")
	}
}

// Two clients of the built binary, each with its own token from a tokens
// file: neither reaches the other's session, the log and the audit log name
// them and show session ids only by their prefix, a SIGHUP that drops a
// token revokes it at once, and one client's sessions are bounded.
func TestTokensFileClients(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte("alice "+aliceToken+"\nbob "+bobToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	auditDir := filepath.Join(dir, "audit")
	p := startServe(t, nil, "serve", "--http", "127.0.0.1:0", "--tokens-file", tokens, "--max-sessions-per-client", "1",
		"--profile", "none", "--audit-dir", auditDir, "--log-level", "debug")
	alice := servertest.Connect(t, servertest.Streamable, p.base, aliceToken)
	bob := servertest.Connect(t, servertest.SSE, p.base, bobToken)
	getSnapshot(t, alice)
	getSnapshot(t, bob)

	for _, c := range []struct {
		who, token string
		want       int
	}{
		{"bob, with his valid token", bobToken, http.StatusNotFound},
		{"alice", aliceToken, http.StatusOK},
	} {
		if got := servertest.SessionStatus(t, p.base, alice, c.token); got != c.want {
			t.Errorf("alice's session asked by %s: %d, want %d", c.who, got, c.want)
		}
	}
	if got := servertest.SessionStatus(t, p.base, bob, aliceToken); got != http.StatusNotFound {
		t.Errorf("bob's SSE session asked by alice: %d, want 404", got)
	}

	// A second session of bob's is over his limit; alice's first is not.
	bob2 := servertest.Connect(t, servertest.Streamable, p.base, bobToken)
	res, err := bob2.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: toolapi.GetSnapshot}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(mcp.TextContent).Text, "--max-sessions-per-client") {
		t.Errorf("bob's second session: %+v, %v; want a refusal naming --max-sessions-per-client", res, err)
	}

	// Drop alice and reload.
	if err := os.WriteFile(tokens, []byte("bob "+bobToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, p, regexp.MustCompile(`msg="tokens file reloaded" clients=\[bob\]`))
	if got := servertest.SessionStatus(t, p.base, alice, aliceToken); got != http.StatusUnauthorized {
		t.Errorf("alice after her token was dropped: %d, want 401", got)
	}
	getSnapshot(t, bob)

	// A tokens file every user may read is refused on reload: no token
	// works until it is fixed.
	os.Chmod(tokens, 0o644)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, p, regexp.MustCompile(`msg="tokens file reload failed`))
	if res, err := bob.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: toolapi.GetSnapshot}}); err == nil && !res.IsError {
		t.Error("bob's call succeeded with a world-readable tokens file")
	}

	log := p.stderr.String()
	for _, id := range []string{servertest.SessionID(alice), servertest.SessionID(bob), servertest.SessionID(bob2)} {
		if strings.Contains(log, id) {
			t.Errorf("the log holds the full session id %s", id)
		}
	}
	for _, want := range []string{
		`msg="browser session opened" client=alice mcp_session=` + server.ShortID(servertest.SessionID(alice)),
		`msg="browser session opened" client=bob mcp_session=` + server.ShortID(servertest.SessionID(bob)),
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	for _, token := range []string{aliceToken, bobToken} {
		if strings.Contains(log, token) {
			t.Error("the log holds a token")
		}
	}
	files, _ := filepath.Glob(filepath.Join(auditDir, "*.jsonl"))
	var audit strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		audit.Write(b)
	}
	for _, want := range []string{`"client":"alice"`, `"client":"bob"`} {
		if !strings.Contains(audit.String(), want) {
			t.Errorf("the audit logs lack %s:\n%s", want, audit.String())
		}
	}
	if strings.Contains(audit.String(), aliceToken) || strings.Contains(audit.String(), bobToken) {
		t.Error("an audit log holds a token")
	}
}

// waitLog waits for the server's log to match re.
func waitLog(t *testing.T, p *serveProc, re *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !re.MatchString(p.stderr.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never matched %s", re)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
