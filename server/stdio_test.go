package server

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The stdio client's browser session opens as the server starts, before
// any call, without holding up initialize; the first call waits for that
// opening instead of opening another.
func TestStdioSessionOpensAhead(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	opening := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	s, err := New(Config{NewSession: func(ctx context.Context) (Session, error) {
		once.Do(func() { close(opening) })
		<-release
		return f.open(ctx)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(ctx, serverIn, serverOut) }()
	defer func() {
		cancel()
		clientOut.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	}()

	select {
	case <-opening:
	case <-time.After(10 * time.Second):
		t.Fatal("no session opened before the first call")
	}
	c := client.NewClient(transport.NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader(""))))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize while the session opens: %v", err)
	}
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	called := make(chan result, 1)
	first := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: toolapi.GetSnapshot, Arguments: map[string]any{"viewport_only": true}}}
	go func() {
		res, err := c.CallTool(ctx, first)
		called <- result{res, err}
	}()
	close(release)
	if r := <-called; r.err != nil || r.res.IsError {
		t.Fatalf("first call: %+v, %v", r.res, r.err)
	}
	if n := len(f.all()); n != 1 {
		t.Fatalf("%d sessions opened, want the one opened ahead", n)
	}
	if calls := f.all()[0].calls(); len(calls) != 1 {
		t.Errorf("the session opened ahead ran %q, want the first call", calls)
	}
}
