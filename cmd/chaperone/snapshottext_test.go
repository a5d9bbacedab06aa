package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// textOf is the text content of a result: what a model reads.
func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("first block is %T, want text", res.Content[0])
	}
	return text.Text
}

func TestSnapshotTextFlag(t *testing.T) {
	t.Parallel()
	e := &env{stderr: &bytes.Buffer{}}
	for _, tc := range []struct {
		args []string
		env  string
		want server.TextFormat
	}{
		{nil, "", server.TextCompact},
		{[]string{"--snapshot-text", "json"}, "", server.TextJSON},
		{nil, "json", server.TextJSON},
		{[]string{"--snapshot-text", "compact"}, "json", server.TextCompact},
	} {
		fs := newFlagSet(e, "x", "x")
		f := addSnapshotTextFlag(fs)
		getenv := func(k string) string {
			if k == "CHAPERONE_SNAPSHOT_TEXT" {
				return tc.env
			}
			return ""
		}
		if _, err := parseFlags(fs, tc.args, getenv); err != nil || server.TextFormat(*f) != tc.want {
			t.Errorf("%v with $CHAPERONE_SNAPSHOT_TEXT=%q: %q, %v; want %q", tc.args, tc.env, *f, err, tc.want)
		}
	}
	fs := newFlagSet(e, "x", "x")
	addSnapshotTextFlag(fs)
	if _, err := parseFlags(fs, []string{"--snapshot-text", "yaml"}, func(string) string { return "" }); !errors.Is(err, errUsage) {
		t.Errorf("--snapshot-text yaml: %v, want a usage error", err)
	}
}

// TestSnapshotTextOverStdio: through the built binary, a snapshot's text is
// the compact rendering of its structured content by default, and that very
// JSON with --snapshot-text json.
func TestSnapshotTextOverStdio(t *testing.T) {
	t.Parallel()
	for _, format := range []server.TextFormat{server.TextCompact, server.TextJSON} {
		t.Run(string(format), func(t *testing.T) {
			c, _, _ := stdioClient(t, nil, "serve", "--snapshot-text", string(format))
			res, data := call(t, c, toolapi.GetSnapshot, nil)
			validateSnapshot(t, []byte(data))
			var s snapshot.Snapshot
			if err := json.Unmarshal([]byte(data), &s); err != nil {
				t.Fatal(err)
			}
			text := textOf(t, res)
			if format == server.TextJSON {
				var fromText snapshot.Snapshot
				if err := json.Unmarshal([]byte(text), &fromText); err != nil || !reflect.DeepEqual(fromText, s) {
					t.Errorf("text %s is not the structured JSON %s: %v", text, data, err)
				}
				return
			}
			if want := s.Render(); text != want {
				t.Errorf("text:\n%s\nwant\n%s", text, want)
			}
		})
	}
}
