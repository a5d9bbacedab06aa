package main

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/server"
)

// --via is checked before anything starts: a way that does not exist, or
// direct with JSON text (which only the MCP server renders), is refused
// with what to say instead.
func TestVia(t *testing.T) {
	for _, tc := range []struct {
		via  string
		text server.TextFormat
		want string // "" for no error
	}{
		{"", "", ""},
		{viaMCP, server.TextJSON, ""},
		{viaDirect, server.TextCompact, ""},
		{"grpc", "", `--via "grpc": want mcp or direct`},
		{viaDirect, server.TextJSON, "--snapshot-text json needs --via mcp"},
	} {
		err := task{via: tc.via, text: tc.text}.checkVia()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("via %q text %q: err = %v, want %q", tc.via, tc.text, err, tc.want)
		}
	}
}
