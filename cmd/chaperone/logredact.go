package main

import (
	"log/slog"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/redact"
)

// redactLogs wraps the command's log handler so that no line, at any level,
// shows a --secret value or a password the agent typed, in any form a page
// or an encoder gives it (a URL-encoded page URL at INFO, a frame's URL at
// DEBUG). It starts knowing nothing: each session teaches it its secrets and
// the passwords typed in it (redact.Teach), and every logger derived from
// the command's shares what it learnt. A URL's host written in Unicode is
// logged as the ASCII host the browser connects to: a person reads the real
// host (checkpoint.ASCIIHosts).
func redactLogs(h slog.Handler) slog.Handler {
	return redact.NewHandler(h, redact.New(nil)).Rewriting(checkpoint.ASCIIHosts)
}
