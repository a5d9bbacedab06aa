package driver

import (
	"context"
	"encoding/json"
)

// Tools is the browser as the loop sees it: the tools on offer and a way to
// call them. The results are the tools' JSON text (see package tools) and,
// for anything that took a snapshot, its screenshot.
type Tools interface {
	List(ctx context.Context) ([]ToolSpec, error)
	Call(ctx context.Context, name string, args json.RawMessage) (ToolResult, error)
}

// ToolResult is what one tool call returned.
type ToolResult struct {
	// Text is the result's text: for the browser tools, their JSON.
	Text string
	// Image is the screenshot that travelled beside it, if any.
	Image *Image
	// IsError is set when the call itself failed (unknown tool, malformed
	// arguments), as opposed to an action that failed on the page, which
	// is a normal result whose JSON says success:false.
	IsError bool
}
