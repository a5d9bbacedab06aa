package tools_test

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// lockedBuffer is a log destination safe for the browser's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// pageText takes a snapshot of the session's page and returns its text.
func pageText(t *testing.T, s *tools.Session) string {
	t.Helper()
	out, err := s.Call(t.Context(), toolapi.GetSnapshot, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, ok := out.Value.(*snapshot.Snapshot)
	if !ok {
		t.Fatalf("get_snapshot answered %+v", out.Value)
	}
	return snap.Text
}

// writeState writes a storage state in Playwright's format for the site
// base, whose cookie sid has the value secret.
func writeState(t *testing.T, base, secret string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.json")
	state := `{
  "cookies": [
    {"name": "sid", "value": "` + secret + `", "domain": "127.0.0.1", "path": "/", "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}
  ],
  "origins": [
    {"origin": "` + base + `", "localStorage": [{"name": "user", "value": "ada@example.com"}]}
  ]
}`
	if err := os.WriteFile(path, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every session starts with the storage state, each in its own context, and
// a log at debug level names the cookies without their values.
func TestSessionsStartWithStorageState(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	const secret = "pw-session-c0ffee-77"
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m, err := fleet.New(t.Context(), browser.Options{Logger: log}, fleet.Config{StorageState: writeState(t, site, secret), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := range 2 {
		s, err := tools.Open(t.Context(), m, tools.Config{StartURL: site + "/echo/cookies", Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := pageText(t, s); !strings.Contains(got, "sid="+secret) {
			t.Errorf("session %d: /echo/cookies shows %q, want the sid cookie", i+1, got)
		}
	}
	if !strings.Contains(logs.String(), "sid") || !strings.Contains(logs.String(), "cookies=1") {
		t.Errorf("the log does not name the loaded cookie:\n%s", logs)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the debug log shows the cookie's value:\n%s", logs)
	}
}

// A storage-state file that cannot be used fails the start, before any
// browser starts, and says what is wrong with it.
func TestBadStorageStateFailsTheStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"cookies": [{"name": "sid", "value": "x", "sameSite": "Lax"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{bad, `cookie 0 ("sid") has no domain`},
		{filepath.Join(dir, "missing.json"), "no such file"},
	}
	for _, tt := range tests {
		// A browser that cannot start shows that none was tried.
		m := fleet.Start(t.Context(), browser.Options{Path: "/nonexistent/chromium"}, fleet.Config{StorageState: tt.path})
		err := m.Started(t.Context())
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, browser.ErrNoBrowser) {
			t.Errorf("%s: Started = %v, want an error saying %q", tt.path, err, tt.want)
		}
		if _, err := tools.Open(t.Context(), m, tools.Config{}); err == nil {
			t.Errorf("%s: a session opened", tt.path)
		}
		m.Close()
	}
}

// With a persistent profile sessions share its default context, so only one
// runs at a time; a refused second leaves the first alone.
func TestUserDataDirOneSessionAtATime(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	m, err := fleet.New(t.Context(), browser.Options{UserDataDir: t.TempDir(), DefaultContext: true}, fleet.Config{})
	cfg := tools.Config{StartURL: site + "/variants/signin?as=ada"}
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	first, err := tools.Open(t.Context(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools.Open(t.Context(), m, cfg)
	if err == nil || !strings.Contains(err.Error(), "--user-data-dir allows one session at a time; ") || !errors.Is(err, browser.ErrContextBusy) {
		t.Fatalf("a second session: %v", err)
	}
	if got := pageText(t, first); !strings.Contains(got, "Signed in as ada") {
		t.Errorf("the first session shows %q after the second was refused", got)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	next, err := tools.Open(t.Context(), m, cfg)
	if err != nil {
		t.Fatalf("a session after the first ended: %v", err)
	}
	defer next.Close()
}
