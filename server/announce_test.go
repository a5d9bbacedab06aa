package server

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// slowConsole is a web console that takes a moment to list a request
// asked of it through Approve; Register lists it at once.
type slowConsole struct {
	listed atomic.Bool
}

func (c *slowConsole) Approve(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	time.Sleep(200 * time.Millisecond)
	return c.Register(r)(ctx)
}

func (c *slowConsole) Register(r checkpoint.Request) func(context.Context) (checkpoint.Decision, error) {
	c.listed.Store(true)
	return func(context.Context) (checkpoint.Decision, error) {
		return checkpoint.Decision{Approved: true, Channel: "test"}, nil
	}
}

// The client hears of an approval only once the console lists it: a person
// (or a host) who follows the message at once finds the request there.
func TestAnnounceComesOnceTheRequestIsListed(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{})
	console := &slowConsole{}
	f.approve = s.Announce(console)
	c := inProcessClient(t, s)
	req := mcp.SetLevelRequest{}
	req.Params.Level = mcp.LoggingLevelInfo
	//lint:ignore SA1019 the announcement reaches clients of the revisions that still log (2025-11-25 and earlier)
	if err := c.SetLevel(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	listedWhenHeard := make(chan bool, 1)
	heard := make(chan string, 1)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/message" {
			select {
			case listedWhenHeard <- console.listed.Load():
				heard <- fmt.Sprint(n.Params.AdditionalFields["data"])
			default:
			}
		}
	})
	res := callTool(t, context.Background(), c, toolapi.RequestApproval, map[string]any{"action": "click"})
	if res.IsError {
		t.Fatalf("request_human_approval: %+v", res)
	}
	select {
	case listed := <-listedWhenHeard:
		if !listed {
			t.Error("the client heard of the approval before the console listed it")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client never heard of the approval")
	}
	// It hears that a person decides, and not where to decide: no address
	// the client could follow to approve its own action.
	msg := <-heard
	if !strings.Contains(msg, "A person must approve") || strings.Contains(msg, "http") || strings.Contains(msg, "127.0.0.1") {
		t.Errorf("the announcement: %q", msg)
	}
}
