package server

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// announceWhere tells the client where the person decides, in words. It
// holds no URL and no token on purpose: whatever reaches the client reaches
// the agent, and a client program or a model with a shell that held the
// console's address could approve its own actions.
const announceWhere = "A person must approve or reject this in the Chaperone approval console, " +
	"opened in their browser or shown on the terminal where Chaperone runs; " +
	"the call returns once they decide. Nothing the agent or its client sends can approve it."

// Announce wraps an approver that waits for a person somewhere else (the web
// console) so that the calling client hears of it: once the request is
// listed there, the client whose tool call is held gets an MCP log message,
// at level alert, naming the action and saying that a person decides it
// elsewhere. The message never says how to reach the console. A client that
// cannot take log messages is simply not told; the approval still waits.
func (s *Server) Announce(a checkpoint.Registrar) checkpoint.Approver {
	return checkpoint.ApproverFunc(func(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
		// Listed first: the person who looks finds the request.
		wait := a.Register(r)
		msg := fmt.Sprintf("Approval needed: %s %s", r.Prompt(), announceWhere)
		n := mcp.NewLoggingMessageNotification(mcp.LoggingLevelAlert, "chaperone.approvals", msg)
		if err := s.mcp.SendLogMessageToClient(ctx, n); err != nil {
			s.log.Debug("approval not announced to the client", "id", r.ID, "err", err)
		}
		return wait(ctx)
	})
}
