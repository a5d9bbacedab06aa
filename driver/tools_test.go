package driver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/tools"
)

// serverSession is a browser session for the real MCP server, backed by a
// MockBrowser: the server's code (schemas, defaults, result shaping) runs
// for real, only the browser is scripted.
type serverSession struct {
	mb *MockBrowser
	mu sync.Mutex
}

func (s *serverSession) Call(ctx context.Context, name string, args json.RawMessage) (tools.Output, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.mb.Call(ctx, name, args)
	if err != nil {
		return tools.Output{}, err
	}
	var v any
	switch name {
	case "get_snapshot":
		v = new(snapshot.Snapshot)
	case "request_human_approval":
		v = new(tools.ApprovalResult)
	case "complete_task":
		v = new(tools.CompletionResult)
	default:
		v = new(tools.ActionResult)
	}
	if err := json.Unmarshal([]byte(res.Text), v); err != nil {
		return tools.Output{}, err
	}
	out := tools.Output{Value: v}
	if res.Image != nil {
		out.Image = &snapshot.Screenshot{MIMEType: res.Image.MIMEType, Width: 160, Height: 90, Data: res.Image.Data}
	}
	return out, nil
}

func (s *serverSession) Close() error { return nil }

// validPage is a snapshot the server's output schema accepts.
func validPage(url string, names ...string) *snapshot.Snapshot {
	s := page(url, 0, names...)
	s.ID = "0b9f6f2e-6a53-4c1e-9c1a-3f1d2b7c8e90"
	s.Timestamp = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	s.Viewport = snapshot.Viewport{Width: 1280, Height: 720}
	s.Screenshot = &snapshot.Screenshot{MIMEType: "image/png", Width: 160, Height: 90}
	for i := range s.Elements {
		s.Elements[i].BBox = snapshot.BBox{X: 10, Y: float64(10 + 40*i), Width: 100, Height: 30}
	}
	return s
}

func inProcessServer(t *testing.T, mb *MockBrowser) Tools {
	t.Helper()
	srv, err := server.New(server.Config{NewSession: func(context.Context) (server.Session, error) {
		return &serverSession{mb: mb}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tl, closeClient, err := ConnectInProcess(context.Background(), srv.MCP())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeClient() })
	return tl
}

// The adapter turns tools/list into specs and tools/call into JSON text
// plus the decoded screenshot, through the real server code.
func TestMCPToolsAdapter(t *testing.T) {
	mb := &MockBrowser{Page: validPage("https://shop.test/", "Buy", "Cancel")}
	tl := inProcessServer(t, mb)
	ctx := context.Background()

	specs, err := tl.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		var schema map[string]any
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s input schema %s: %v", s.Name, s.InputSchema, err)
		}
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
	}
	slices.Sort(names)
	want := []string{"browser_click", "browser_fill", "browser_scroll", "browser_select", "complete_task", "get_snapshot", "request_human_approval"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	res, err := tl.Call(ctx, "browser_click", json.RawMessage(`{"ref":"@e2"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.Text, `"success":true`) || res.Image == nil || res.Image.MIMEType != "image/png" {
		t.Fatalf("result = %+v", res)
	}
	if w, h, err := res.Image.Size(); err != nil || w != 160 || h != 90 {
		t.Fatalf("screenshot %dx%d: %v", w, h, err)
	}
	if got := mb.Calls(); len(got) != 1 || got[0].Name != "browser_click" || !strings.Contains(string(got[0].Args), "@e2") {
		t.Fatalf("browser calls = %+v", got)
	}

	res, err = tl.Call(ctx, "browser_click", json.RawMessage(`[1]`))
	if err != nil || !res.IsError {
		t.Fatalf("non-object arguments: %+v, %v; want an error result", res, err)
	}
}

// The whole path: Claude (against the fake API) drives the real server
// code in-process to an acknowledged completion.
func TestRunThroughInProcessServer(t *testing.T) {
	done := validPage("https://shop.test/cancelled", "Home")
	mb := &MockBrowser{
		Page:    validPage("https://shop.test/", "Buy", "Cancel"),
		Actions: map[string]MockOutcome{"browser_click @e2": {Snapshot: done}},
		Done:    func(p *snapshot.Snapshot) bool { return p == done },
	}
	h := newHarness(t, mb, reply(click("@e2")), reply(complete("success")))
	h.cfg.Tools = inProcessServer(t, mb)
	res := h.run(t)
	if !res.Success || res.Turns != 2 {
		t.Fatalf("result = %+v", res)
	}
	if got := h.actions(); !slices.Equal(got, []string{"browser_click @e2", "complete_task success"}) {
		t.Fatalf("browser calls = %q", got)
	}
	if n := h.api.Requests()[0].images(); n != 1 {
		t.Fatalf("first request has %d images, want the initial screenshot", n)
	}
}
