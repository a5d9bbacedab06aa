package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// heldApprover is a person who never answers: each request is announced on
// asked and waits until its context ends, or until release.
type heldApprover struct {
	asked   chan checkpoint.Request
	release chan checkpoint.Decision
}

func (a *heldApprover) Approve(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	select {
	case a.asked <- r:
	case <-ctx.Done():
		return checkpoint.Decision{}, ctx.Err()
	}
	select {
	case d := <-a.release:
		return d, nil
	case <-ctx.Done():
		return checkpoint.Decision{}, ctx.Err()
	}
}

// countedSession counts the browser sessions open at once.
type countedSession struct {
	Session
	open *atomic.Int32
}

func (s countedSession) Close() error {
	s.open.Add(-1)
	return s.Session.Close()
}

// faultRig is a real server with a real browser behind it, in a temporary
// directory of its own, and what the fault tests look at afterwards.
type faultRig struct {
	base       string
	approver   *heldApprover
	open       atomic.Int32
	goroutines int
	tmp        string
	stop       func()
}

func newFaultRig(t *testing.T) *faultRig {
	t.Helper()
	site := browsertest.Site(t)
	r := &faultRig{approver: &heldApprover{asked: make(chan checkpoint.Request), release: make(chan checkpoint.Decision)}}
	// The browser's profile and anything else it leaves goes here.
	// Short: Chromium puts a socket path in it.
	tmp, err := os.MkdirTemp("", "cf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	r.tmp = tmp
	t.Setenv("TMPDIR", r.tmp)
	r.goroutines = runtime.NumGoroutine()
	profile, err := checkpoint.LoadProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	mgr := fleet.Start(ctx, browser.Options{}, fleet.Config{})
	s, err := New(Config{NewSession: func(ctx context.Context) (Session, error) {
		gate := checkpoint.NewGate(profile, r.approver, checkpoint.Options{})
		sess, err := tools.Open(ctx, mgr, tools.Config{StartURL: site + "/account"}, tools.WithGate(gate))
		if err != nil {
			return nil, err
		}
		r.open.Add(1)
		return countedSession{sess, &r.open}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ln, done := serveOn(t, ctx, s)
	r.base = "http://" + ln
	r.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		s.Close()
		if err := mgr.Close(); err != nil {
			t.Errorf("close the browser: %v", err)
		}
	}
	return r
}

// serveOn serves s on a loopback port until ctx ends; done reports Serve's
// end.
func serveOn(t *testing.T, ctx context.Context, s *Server) (string, chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, HTTPConfig{Token: testToken}) }()
	return ln.Addr().String(), done
}

// check stops the rig and fails the test if a browser session, a goroutine
// or a file in the temporary directory is left behind.
func (r *faultRig) check(t *testing.T) {
	t.Helper()
	waitFor(t, "every browser session to close", func() bool { return r.open.Load() == 0 })
	r.stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		n := runtime.NumGoroutine()
		if n <= r.goroutines {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", n, r.goroutines, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
	entries, err := os.ReadDir(r.tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the temporary directory: %s", e.Name())
	}
}

// cancelMembership returns the ref of the gated button on the account page.
func cancelMembership(t *testing.T, ctx context.Context, c interface {
	CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)
}) string {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.GetSnapshot
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("get_snapshot: %+v, %v", res, err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "Cancel Membership") && strings.Contains(line, "button") {
			if i := strings.Index(line, "@e"); i >= 0 {
				return strings.Fields(line[i:])[0]
			}
		}
	}
	t.Fatalf("no Cancel Membership button in\n%s", text)
	return ""
}

// Faults with a real browser: a client that goes while its gated click
// waits for a person, and a renderer killed while a click waits. Nothing
// hangs, and nothing is left: no browser session, goroutine or temporary
// file.
func TestFaultsLeaveNothingBehind(t *testing.T) {
	t.Run("client gone mid-approval", func(t *testing.T) {
		r := newFaultRig(t)
		c := servertest.Connect(t, servertest.Streamable, r.base, testToken)
		ctx := context.Background()
		ref := cancelMembership(t, ctx, c)
		done := make(chan error, 1)
		go func() {
			_, err := c.CallTool(ctx, clickOn(ref))
			done <- err
		}()
		<-r.approver.asked
		c.Close() // the client goes; the person never answers
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the call of a client that left never ended")
		}
		r.check(t)
	})
	t.Run("request dropped mid-approval", func(t *testing.T) {
		r := newFaultRig(t)
		c := servertest.Connect(t, servertest.Streamable, r.base, testToken)
		ref := cancelMembership(t, context.Background(), c)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := c.CallTool(ctx, clickOn(ref))
			done <- err
		}()
		<-r.approver.asked
		cancel() // the HTTP request goes; the session stays
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the dropped call never ended")
		}
		// The session is free for the next call, which asks again.
		ref = cancelMembership(t, context.Background(), c)
		go c.CallTool(context.Background(), clickOn(ref))
		<-r.approver.asked
		c.Close()
		r.check(t)
	})
	t.Run("renderer killed while a click waits", func(t *testing.T) {
		r := newFaultRig(t)
		c := servertest.Connect(t, servertest.Streamable, r.base, testToken)
		ctx := context.Background()
		ref := cancelMembership(t, ctx, c)
		done := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := c.CallTool(ctx, clickOn(ref))
			if err != nil {
				t.Errorf("click: %v", err)
			}
			done <- res
		}()
		<-r.approver.asked
		killed := 0
		for _, p := range browsertest.Descendants(t, os.Getpid()) {
			if strings.Contains(p.Cmdline, "--type=renderer") {
				if err := syscall.Kill(p.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
					t.Fatal(err)
				}
				killed++
			}
		}
		if killed == 0 {
			t.Fatal("no renderer of this test's browser found")
		}
		r.approver.release <- checkpoint.Decision{Approved: true, Channel: "test"}
		select {
		case res := <-done:
			if res != nil && !res.IsError && !strings.Contains(res.Content[0].(mcp.TextContent).Text, "error:") {
				t.Errorf("a click on a killed renderer succeeded: %s", res.Content[0].(mcp.TextContent).Text)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the click on a killed renderer never ended")
		}
		// The session goes on. On a busy machine the crash event can arrive
		// after the click answered; then the next call reports the crash,
		// with a snapshot of the reopened page, and the one after is normal.
		req := mcp.CallToolRequest{}
		req.Params.Name = toolapi.GetSnapshot
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("get_snapshot after the crash: %v", err)
		}
		if text := res.Content[0].(mcp.TextContent).Text; res.IsError && !strings.Contains(text, "crashed") {
			t.Fatalf("get_snapshot after the crash failed for another reason: %.300s", text)
		}
		cancelMembership(t, ctx, c)
		c.Close()
		r.check(t)
	})
}

func clickOn(ref string) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.Click
	req.Params.Arguments = map[string]any{"ref": ref}
	return req
}
