package server

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// oneSession is an MCP client session of a modern client that declared
// form elicitation.
type oneSession struct{ id string }

func (oneSession) Initialize()                                         {}
func (oneSession) Initialized() bool                                   { return true }
func (oneSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s oneSession) SessionID() string                                 { return s.id }

// A call parked on a person's answer is answered only by a retry of that
// call under a grant that allows it: a read-only token of the same sub
// retrying get_snapshot with the click's requestState, or an act-only one
// retrying a click at x,y by ref, approves nothing and runs nothing.
func TestParkedCallAnsweredOnlyWithItsOwnScopes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{Caps: []string{toolapi.CapAll}})
	// handler is the click as a gated tool runs it, telling approved what
	// its person's answer was; each case has its own, so that a click
	// parked by an earlier case and ended later is not taken for this
	// one's.
	handler := func(approved chan<- bool) mcpserver.ToolHandlerFunc {
		next := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.Name != toolapi.Click {
				return mcp.NewToolResultText("read"), nil
			}
			d, err := s.elicit.Approve(ctx, checkpoint.Request{ID: "r1", Kind: checkpoint.KindAgent, Action: "click Pay", Words: "pay"})
			approved <- err == nil && d.Approved
			return mcp.NewToolResultText("clicked"), nil
		}
		return s.scopeMiddleware(s.elicit.Middleware(next))
	}
	base := s.mcp.WithContext(context.Background(), oneSession{"sess-1"})
	base = mcpserver.WithRequestProtocolInfo(base, &mcpserver.RequestProtocolInfo{Modern: true, ProtocolVersion: mcp.ProtocolVersion20260728,
		ClientCapabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}}})
	accept := map[string]mcp.InputResponse{elicitKey: mcp.NewElicitationInputResponse(mcp.ElicitationResult{
		ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": true}}})}
	for _, tc := range []struct {
		name       string
		parkScopes []string
		parkArgs   map[string]any
		retryTool  string
		retryArgs  map[string]any
		retry      []string
	}{
		{"read-only get_snapshot answers a click", []string{ScopeRead, ScopeAct}, map[string]any{"ref": "@e1"}, toolapi.GetSnapshot, nil, []string{ScopeRead}},
		{"act get_snapshot answers a click", []string{ScopeRead, ScopeAct}, map[string]any{"ref": "@e1"}, toolapi.GetSnapshot, nil, []string{ScopeRead, ScopeAct}},
		{"act-only answers a click at x,y by ref", []string{ScopeRead, ScopeAct, ScopeCaps}, map[string]any{"x": 1, "y": 2}, toolapi.Click, map[string]any{"ref": "@e1"}, []string{ScopeRead, ScopeAct}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			approved := make(chan bool, 4)
			h := handler(approved)
			var park mcp.CallToolRequest
			park.Params.Name, park.Params.Arguments = toolapi.Click, tc.parkArgs
			res, err := h(withGrant(base, tc.parkScopes), park)
			if err != nil || res.RequestState == "" {
				t.Fatalf("the click did not ask: %+v %v", res, err)
			}
			var retry mcp.CallToolRequest
			retry.Params.Name, retry.Params.Arguments = tc.retryTool, tc.retryArgs
			retry.Params.RequestState, retry.Params.InputResponses = res.RequestState, accept
			out, err := h(withGrant(base, tc.retry), retry)
			if err == nil && !out.IsError {
				t.Errorf("the retry was answered: %+v", out)
			}
			// The parked click may yet end, refused; it must never go on
			// approved.
			select {
			case ok := <-approved:
				if ok {
					t.Errorf("the parked click went on approved")
				}
			default:
			}
		})
	}
}
