package tools

import "github.com/chaperone-mcp/chaperone/snapshot"

// Output is a tool's answer in transport-free form: Value marshals to the
// JSON the agent reads (a toolapi result type), and Image, when set, travels
// beside it as an image block.
type Output struct {
	Value any
	Image *snapshot.Screenshot
}
