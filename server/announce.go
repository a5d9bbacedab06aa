package server

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// Announce wraps an approver that waits for a human somewhere else (the web
// console at consoleURL) so that the calling client hears of it: once the
// request is listed there, the client whose tool call is held gets an MCP
// log message, at level alert, naming the action and where to decide. A
// client that cannot take log messages is simply not told; the approval
// still waits.
func (s *Server) Announce(a checkpoint.Registrar, consoleURL string) checkpoint.Approver {
	return checkpoint.ApproverFunc(func(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
		// Listed first: whoever follows the message finds the request.
		wait := a.Register(r)
		msg := fmt.Sprintf("Approval needed: %s Open %s to approve or reject.", r.Prompt(), consoleURL)
		n := mcp.NewLoggingMessageNotification(mcp.LoggingLevelAlert, "chaperone.approvals", msg)
		if err := s.mcp.SendLogMessageToClient(ctx, n); err != nil {
			s.log.Debug("approval not announced to the client", "id", r.ID, "err", err)
		}
		return wait(ctx)
	})
}
