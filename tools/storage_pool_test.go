package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// A session that moves to another browser of the pool starts there with
// the --storage-state login again.
func TestPoolMoveReloadsStorageState(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	a := browsertest.StartChromium(t, 0)
	b := browsertest.StartChromium(t, 0)
	state := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(state, []byte(`{"cookies": [{"name": "sid", "value": "pool-7", "domain": "127.0.0.1",
		"path": "/", "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}], "origins": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	m := fleet.Start(ctx, browser.Options{}, fleet.Config{Pool: []string{a.HTTP, b.HTTP}, StorageState: state})
	if err := m.Started(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	s, err := Open(ctx, m, Config{StartURL: site + "/echo/cookies"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if endpointOf(s) == a.HTTP {
		a.Kill()
	} else {
		b.Kill()
	}
	waitGone(t, s)
	_, msg := poolCall(t, s)
	if !strings.Contains(msg, "the --storage-state login loaded again") {
		t.Fatalf("the move says %q", msg)
	}
	out, err := s.Call(ctx, toolapi.GetSnapshot, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if snap, ok := out.Value.(*snapshot.Snapshot); !ok || !strings.Contains(snap.Text, "sid=pool-7") {
		t.Errorf("after the move /echo/cookies shows %+v, want the sid cookie", out.Value)
	}
}
