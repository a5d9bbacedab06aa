package toolapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // screenshots are JPEG or PNG
	_ "image/png"
)

// Tools is the browser as a caller sees it: the tools on offer and a way to
// call them, in process (tools.Direct) or over MCP (server.MCPTools). A
// result carries the text the model reads, the JSON a program reads and,
// for anything that took a snapshot, its screenshot.
type Tools interface {
	List(ctx context.Context) ([]ToolSpec, error)
	Call(ctx context.Context, name string, args json.RawMessage) (ToolResult, error)
}

// ToolSpec describes a tool a model may call.
type ToolSpec struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the tool's arguments (an object).
	InputSchema json.RawMessage
}

// ToolResult is what one tool call returned.
type ToolResult struct {
	// Text is the result's text, which the model reads: a snapshot's compact
	// lines (Text), or the JSON when the server is told to send JSON text.
	Text string
	// Structured is the result's JSON (MCP structured content), which a
	// program reads: the snapshot, the outcome, the page's URL. It is empty
	// when none was sent, as for an error.
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
func (r ToolResult) JSON() []byte { return JSONOf(r.Structured, r.Text) }

// JSONOf is structured when there is some, else text.
func JSONOf(structured json.RawMessage, text string) []byte {
	if len(structured) > 0 {
		return structured
	}
	return []byte(text)
}

// Image is a screenshot or other picture sent to a model.
type Image struct {
	// MIMEType is image/png or image/jpeg.
	MIMEType string
	Data     []byte
}

// Size decodes the image header and returns its dimensions.
func (img *Image) Size() (width, height int, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return 0, 0, fmt.Errorf("decode %s header: %w", img.MIMEType, err)
	}
	return cfg.Width, cfg.Height, nil
}
