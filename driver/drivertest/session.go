package drivertest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// Session is a browser session of the real MCP server (it has the methods
// of server.Session) backed by a MockBrowser: the server's code (schemas,
// defaults, result shaping) runs for real, only the browser is scripted.
type Session struct {
	Browser *MockBrowser

	mu sync.Mutex
}

// Call runs the tool on the mock browser and decodes its JSON into the
// value the real tool returns.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) (tools.Output, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.Browser.Call(ctx, name, args)
	if err != nil {
		return tools.Output{}, err
	}
	var v any
	switch name {
	case toolapi.GetSnapshot:
		v = new(snapshot.Snapshot)
	case toolapi.RequestApproval:
		v = new(toolapi.ApprovalResult)
	case toolapi.CompleteTask:
		v = new(toolapi.CompletionResult)
	default:
		v = new(toolapi.ActionResult)
	}
	if err := json.Unmarshal(res.JSON(), v); err != nil {
		return tools.Output{}, fmt.Errorf("mock session: decode %s result: %w", name, err)
	}
	out := tools.Output{Value: v}
	if res.Image != nil {
		out.Image = &snapshot.Screenshot{MIMEType: res.Image.MIMEType, Width: 160, Height: 90, Data: res.Image.Data}
	}
	return out, nil
}

// Close does nothing: the mock browser has nothing to release.
func (s *Session) Close() error { return nil }
