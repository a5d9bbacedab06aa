package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Direct returns s as toolapi.Tools, called in process without MCP: the
// tools its capabilities turn on, and results rendered as an MCP client of
// the server reads them (the compact text, the JSON, the screenshot). A
// caller that owns its session (chaperone run --via direct) saves the
// protocol's encoding and copies; one that wants the server's exact path
// goes through MCP (server.MCPTools).
func Direct(s *Session) toolapi.Tools { return direct{s} }

type direct struct{ s *Session }

func (d direct) List(ctx context.Context) ([]toolapi.ToolSpec, error) {
	var specs []toolapi.ToolSpec
	for _, t := range catalog {
		if t.err != nil {
			return nil, t.err
		}
		if d.s.caps.on(t) {
			specs = append(specs, toolapi.ToolSpec{Name: t.def.Name, Description: t.def.Description, InputSchema: t.def.InputSchema})
		}
	}
	return specs, nil
}

func (d direct) Call(ctx context.Context, name string, args json.RawMessage) (toolapi.ToolResult, error) {
	out, err := d.s.Call(ctx, name, args)
	if err != nil {
		return toolapi.ToolResult{Text: err.Error(), IsError: true}, nil
	}
	data, err := json.Marshal(out.Value)
	if err != nil {
		return toolapi.ToolResult{}, fmt.Errorf("call %s: encode its result: %w", name, err)
	}
	res := toolapi.ToolResult{Text: string(data), Structured: data}
	if text, ok := toolapi.Text(out.Value); ok {
		res.Text = text
	}
	if img := out.Image; img != nil && len(img.Data) > 0 {
		res.Image = &toolapi.Image{MIMEType: img.MIMEType, Data: img.Data}
	}
	return res, nil
}
