package driver

import (
	"context"
	"encoding/json"
)

// Tools is the browser as the loop sees it: the tools on offer and a way to
// call them. A result carries the text the model reads, the tools' JSON (see
// package tools) the driver reads and, for anything that took a snapshot,
// its screenshot.
type Tools interface {
	List(ctx context.Context) ([]ToolSpec, error)
	Call(ctx context.Context, name string, args json.RawMessage) (ToolResult, error)
}

// ToolResult is what one tool call returned.
type ToolResult struct {
	// Text is the result's text, which the model reads: a snapshot's compact
	// lines, or the JSON when the server is told to send JSON text.
	Text string
	// Structured is the result's JSON (MCP structured content), which the
	// driver reads: the snapshot, the outcome, the page's URL. It is empty
	// when the server sent none, as for an error.
	Structured json.RawMessage
	// Image is the screenshot that travelled beside it, if any.
	Image *Image
	// IsError is set when the call itself failed (unknown tool, malformed
	// arguments), as opposed to an action that failed on the page, which
	// is a normal result whose JSON says success:false.
	IsError bool
}

// JSON returns the result's JSON: its structured content, or else its text,
// which holds the JSON for a server that sends no structured content.
func (r ToolResult) JSON() []byte { return jsonOf(r.Structured, r.Text) }

// jsonOf is structured when there is some, else text.
func jsonOf(structured json.RawMessage, text string) []byte {
	if len(structured) > 0 {
		return structured
	}
	return []byte(text)
}
