package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestScreenshotsFlag runs the same calls through the built binary under each
// --screenshots setting and checks which results carry an image block, and
// that a result without one does not describe one in its snapshot.
func TestScreenshotsFlag(t *testing.T) {
	t.Parallel()
	type step struct {
		what string
		tool string
		args func(s *snapshot.Snapshot) map[string]any
	}
	steps := []step{
		{"get_snapshot", toolapi.GetSnapshot, func(*snapshot.Snapshot) map[string]any { return nil }},
		{"a click that shows a line", toolapi.Click, func(s *snapshot.Snapshot) map[string]any {
			return map[string]any{"ref": browsertest.Ref(t, s, "button", "Change plan")}
		}},
		{"the same click, which changes nothing", toolapi.Click, func(s *snapshot.Snapshot) map[string]any {
			return map[string]any{"ref": browsertest.Ref(t, s, "button", "Change plan")}
		}},
		{"a failed click", toolapi.Click, func(*snapshot.Snapshot) map[string]any { return map[string]any{"ref": "@e9999"} }},
		{"a click that opens another page", toolapi.Click, func(s *snapshot.Snapshot) map[string]any {
			return map[string]any{"ref": browsertest.Ref(t, s, "link", "Edit profile")}
		}},
		{"a scroll on that page", toolapi.Scroll, func(*snapshot.Snapshot) map[string]any {
			return map[string]any{"direction": "down"}
		}},
	}
	for _, tc := range []struct {
		setting string
		images  []bool // per step
	}{
		{"always", []bool{true, true, true, true, true, true}},
		{"auto", []bool{true, true, false, true, true, true}},
		{"never", []bool{false, false, false, false, false, false}},
	} {
		t.Run(tc.setting, func(t *testing.T) {
			t.Parallel()
			c, _, _ := stdioClient(t, nil, "serve", "--screenshots", tc.setting)
			var last *snapshot.Snapshot
			for i, st := range steps {
				res, data := call(t, c, st.tool, st.args(last))
				snap := resultSnapshotJSON(t, st.tool, data)
				hasImage := false
				for _, b := range res.Content[1:] {
					if _, ok := b.(mcp.ImageContent); ok {
						hasImage = true
					}
				}
				if hasImage != tc.images[i] {
					t.Errorf("%s under --screenshots %s: image sent %v, want %v", st.what, tc.setting, hasImage, tc.images[i])
				}
				if described := strings.Contains(string(snap), `"screenshot"`); described != hasImage {
					t.Errorf("%s under --screenshots %s: the snapshot describes a screenshot: %v, but an image was sent: %v", st.what, tc.setting, described, hasImage)
				}
				validateSnapshot(t, snap)
				last = new(snapshot.Snapshot)
				if err := json.Unmarshal(snap, last); err != nil {
					t.Fatal(err)
				}
			}
		})
	}

	t.Run("bad setting", func(t *testing.T) {
		t.Parallel()
		code, _, stderr := runBinary(t, nil, "serve", "--screenshots", "sometimes")
		if code == 0 || !strings.Contains(stderr, `--screenshots "sometimes": want always, auto or never`) {
			t.Errorf("serve --screenshots sometimes: exit %d, stderr %q", code, stderr)
		}
	})
}

// resultSnapshotJSON is the snapshot JSON of a tool's structured result.
func resultSnapshotJSON(t testing.TB, tool, data string) json.RawMessage {
	t.Helper()
	if tool == toolapi.GetSnapshot {
		return json.RawMessage(data)
	}
	var r actionResult
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		t.Fatal(err)
	}
	return r.Snapshot
}
