package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// MCPTools adapts an initialized MCP client to toolapi.Tools: tools/list
// gives the specs, tools/call the results, with text content joined (what
// the model reads), structured content as JSON (what the driver reads) and
// the first image content decoded from base64.
func MCPTools(c client.MCPClient) toolapi.Tools { return mcpTools{c: c} }

type mcpTools struct{ c client.MCPClient }

func (t mcpTools) List(ctx context.Context) ([]toolapi.ToolSpec, error) {
	res, err := t.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	specs := make([]toolapi.ToolSpec, 0, len(res.Tools))
	for _, tool := range res.Tools {
		// The tool's own JSON form knows whether it carries a raw or a
		// structured schema; take the schema from there.
		raw, err := json.Marshal(tool)
		if err != nil {
			return nil, fmt.Errorf("list tools: encode %s: %w", tool.Name, err)
		}
		var wire struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &wire); err != nil {
			return nil, fmt.Errorf("list tools: decode %s: %w", tool.Name, err)
		}
		specs = append(specs, toolapi.ToolSpec{Name: tool.Name, Description: tool.Description, InputSchema: wire.InputSchema})
	}
	return specs, nil
}

func (t mcpTools) Call(ctx context.Context, name string, args json.RawMessage) (toolapi.ToolResult, error) {
	var arguments map[string]any
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &arguments); err != nil {
			return toolapi.ToolResult{Text: fmt.Sprintf("arguments to %s are not a JSON object: %v", name, err), IsError: true}, nil
		}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = arguments
	res, err := t.c.CallTool(ctx, req)
	if err != nil {
		return toolapi.ToolResult{}, fmt.Errorf("call %s: %w", name, err)
	}
	out := toolapi.ToolResult{IsError: res.IsError}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			texts = append(texts, tc.Text)
			continue
		}
		if ic, ok := mcp.AsImageContent(c); ok && out.Image == nil {
			data, err := base64.StdEncoding.DecodeString(ic.Data)
			if err != nil {
				return toolapi.ToolResult{}, fmt.Errorf("call %s: decode image content: %w", name, err)
			}
			out.Image = &toolapi.Image{MIMEType: ic.MIMEType, Data: data}
		}
	}
	out.Text = strings.Join(texts, "\n")
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return toolapi.ToolResult{}, fmt.Errorf("call %s: encode structured content: %w", name, err)
		}
		out.Structured = data
	}
	return out, nil
}

// ConnectInProcess starts and initializes an in-process MCP client of s,
// the way the driver reaches the real server, and returns it as
// toolapi.Tools with the function that closes the client.
func ConnectInProcess(ctx context.Context, s *Server, opts ...client.ClientOption) (toolapi.Tools, func() error, error) {
	c, err := client.NewInProcessClientWithOptions(s.mcp, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("connect in-process: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		return nil, nil, fmt.Errorf("connect in-process: start: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "chaperone-driver", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("connect in-process: initialize: %w", err)
	}
	return MCPTools(c), c.Close, nil
}
