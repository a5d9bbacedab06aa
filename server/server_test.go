package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// fakes opens fake browser sessions and remembers them.
type fakes struct {
	mu       sync.Mutex
	sessions []*fakeSession
	// hold, when set, makes every call wait for it to close.
	hold chan struct{}
	// inCall counts calls running in any session.
	inCall atomic.Int32
	// maxInCall is the most calls seen running at once.
	maxInCall atomic.Int32
	// approve, when set, answers request_human_approval.
	approve checkpoint.Approver
}

func (f *fakes) open(ctx context.Context) (Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &fakeSession{f: f, n: len(f.sessions)}
	f.sessions = append(f.sessions, s)
	return s, nil
}

func (f *fakes) all() []*fakeSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sessions)
}

type fakeSession struct {
	f       *fakes
	n       int
	mu      sync.Mutex
	args    []string
	running atomic.Int32
	overlap atomic.Bool
	closed  atomic.Bool
	// canceled is set when a call saw its context end.
	canceled atomic.Bool
}

func (s *fakeSession) Call(ctx context.Context, name string, args json.RawMessage) (tools.Output, error) {
	if s.running.Add(1) > 1 {
		s.overlap.Store(true)
	}
	defer s.running.Add(-1)
	n := s.f.inCall.Add(1)
	defer s.f.inCall.Add(-1)
	for {
		m := s.f.maxInCall.Load()
		if n <= m || s.f.maxInCall.CompareAndSwap(m, n) {
			break
		}
	}
	s.mu.Lock()
	s.args = append(s.args, name+" "+string(args))
	s.mu.Unlock()
	if s.f.hold != nil {
		select {
		case <-s.f.hold:
		case <-ctx.Done():
			s.canceled.Store(true)
			return tools.Output{}, ctx.Err()
		}
	}
	if s.closed.Load() {
		return tools.Output{}, errors.New("call on a closed session")
	}
	snap := &snapshot.Snapshot{
		ID:       fmt.Sprintf("snap-%d", s.n),
		Elements: []snapshot.Element{},
		Page:     snapshot.Page{URL: "http://127.0.0.1/account", Title: "Account"},
	}
	img := &snapshot.Screenshot{MIMEType: "image/png", Width: 2, Height: 1, Data: []byte("\x89PNG fake")}
	snap.Screenshot = img
	switch name {
	case toolapi.GetSnapshot:
		return tools.Output{Value: snap, Image: img}, nil
	case toolapi.RequestApproval:
		if s.f.approve != nil {
			d, err := s.f.approve.Approve(ctx, checkpoint.Request{ID: "req-1", Kind: checkpoint.KindCheckpoint, Action: `click button "Finish"`})
			return tools.Output{Value: toolapi.ApprovalResult{Approved: d.Approved, Message: fmt.Sprint(err)}}, nil
		}
		return tools.Output{Value: toolapi.ApprovalResult{Message: "no approver"}}, nil
	case toolapi.CompleteTask:
		return tools.Output{Value: toolapi.CompletionResult{Acknowledged: true, Message: "ok"}}, nil
	case "broken":
		return tools.Output{}, errors.New("unknown tool")
	}
	return tools.Output{Value: toolapi.ActionResult{Success: true, Snapshot: snap}, Image: img}, nil
}

func (s *fakeSession) Close() error {
	s.closed.Store(true)
	return nil
}

func (s *fakeSession) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.args)
}

func ptr[T any](v T) *T { return &v }

func newTestServer(t *testing.T, f *fakes, cfg Config) *Server {
	t.Helper()
	cfg.NewSession = f.open
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func inProcessClient(t *testing.T, s *Server) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func callTool(t *testing.T, ctx context.Context, c *client.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// TestToolsListIsTheDefinitions checks that tools/list shows exactly the
// tools of the capabilities, as their definitions say, and counts the
// tokens a model pays for the list with the cl100k tokenizer (its table is
// embedded in the loader: no network). The default set must stay within
// 3,400 tokens and everything on (all and eval) within 5,600.
func TestToolsListIsTheDefinitions(t *testing.T) {
	t.Parallel()
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatalf("load cl100k: %v", err)
	}
	tests := []struct {
		name      string
		caps      []string
		maxTokens int // inclusive
	}{
		{"default", nil, 3400},
		{"wait", []string{toolapi.CapWait}, 4309},
		// browser_screenshot and browser_pdf (capability files) cost 354.
		// browser_extract (default set) costs about 300.
		{"all", []string{toolapi.CapAll}, 5600},
		// eval is never in all; everything on is all and eval.
		{"all+eval", []string{toolapi.CapAll, toolapi.CapEval}, 5600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, &fakes{}, Config{Caps: tc.caps})
			c := inProcessClient(t, s)
			list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			defs, err := tools.DefinitionsFor(tc.caps)
			if err != nil {
				t.Fatal(err)
			}
			checkListed(t, list.Tools, defs)
			b, _ := json.Marshal(list)
			tokens := len(enc.Encode(string(b), nil, nil))
			t.Logf("tools/list with caps %v: %d tools, %d chars, %d cl100k tokens", tc.caps, len(list.Tools), len(b), tokens)
			if tokens > tc.maxTokens {
				t.Errorf("tools/list is %d tokens, want ≤ %d", tokens, tc.maxTokens)
			}
		})
	}
}

func TestUnknownCapabilityFailsNew(t *testing.T) {
	t.Parallel()
	_, err := New(Config{NewSession: (&fakes{}).open, Caps: []string{"wait", "teleport"}})
	if err == nil || !strings.Contains(err.Error(), `unknown capability "teleport"`) {
		t.Fatalf("New with an unknown capability: %v", err)
	}
}

// checkListed checks that listed are exactly defs, each with the
// description, title, schemas and annotations of its definition.
func checkListed(t *testing.T, listed []mcp.Tool, defs []tools.Definition) {
	t.Helper()
	if len(listed) != len(defs) {
		t.Fatalf("tools/list has %d tools, want %d", len(listed), len(defs))
	}
	byName := make(map[string]mcp.Tool)
	for _, tool := range listed {
		byName[tool.Name] = tool
	}
	for _, d := range defs {
		tool, ok := byName[d.Name]
		if !ok {
			t.Errorf("tools/list lacks %s", d.Name)
			continue
		}
		if tool.Description != d.Description || tool.Title != d.Title {
			t.Errorf("%s: description or title differ from the definition", d.Name)
		}
		b, _ := json.Marshal(tool)
		var wire struct {
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			Annotations  struct {
				ReadOnly    *bool `json:"readOnlyHint"`
				Destructive *bool `json:"destructiveHint"`
				Idempotent  *bool `json:"idempotentHint"`
				OpenWorld   *bool `json:"openWorldHint"`
			} `json:"annotations"`
		}
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, wire.InputSchema, d.InputSchema) || !jsonEqual(t, wire.OutputSchema, d.OutputSchema) {
			t.Errorf("%s: schemas on the wire differ from the definition:\n%s\n%s", d.Name, wire.InputSchema, wire.OutputSchema)
		}
		a := wire.Annotations
		if a.ReadOnly == nil || a.Destructive == nil || a.Idempotent == nil || a.OpenWorld == nil ||
			*a.ReadOnly != d.ReadOnly || *a.Destructive != d.Destructive || *a.Idempotent != d.Idempotent || *a.OpenWorld != d.OpenWorld {
			t.Errorf("%s: annotations %+v do not match the definition", d.Name, a)
		}
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y map[string]any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return false
	}
	// mcp-go's client parses a schema into a struct, which adds an empty
	// "required".
	for _, m := range []map[string]any{x, y} {
		if r, ok := m["required"].([]any); ok && len(r) == 0 {
			delete(m, "required")
		}
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// TestArgumentsPassAsGiven: the server hands the session the arguments as
// the client sent them; the session fills in the defaults
// (tools.TestCallFillsInDefaults).
func TestArgumentsPassAsGiven(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{})
	c := inProcessClient(t, s)
	ctx := context.Background()
	callTool(t, ctx, c, toolapi.GetSnapshot, nil)
	callTool(t, ctx, c, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	callTool(t, ctx, c, toolapi.Fill, map[string]any{"ref": "@e1", "value": "x"})
	callTool(t, ctx, c, toolapi.Scroll, map[string]any{"direction": "down"})
	callTool(t, ctx, c, toolapi.Scroll, map[string]any{"direction": "down", "amount": 5})
	callTool(t, ctx, c, toolapi.Click, map[string]any{"ref": "@e2"})
	want := []string{
		`get_snapshot null`,
		`get_snapshot {"viewport_only":false}`,
		`browser_fill {"ref":"@e1","value":"x"}`,
		`browser_scroll {"direction":"down"}`,
		`browser_scroll {"amount":5,"direction":"down"}`,
		`browser_click {"ref":"@e2"}`,
	}
	if got := f.all()[0].calls(); !slices.Equal(got, want) {
		t.Errorf("calls =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestResultCarriesJSONStructuredContentAndImage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{Text: TextJSON})
	c := inProcessClient(t, s)
	res := callTool(t, context.Background(), c, toolapi.Click, map[string]any{"ref": "@e2"})
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("result = %+v, want text and image, no error", res)
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("first block is %T, want text", res.Content[0])
	}
	var r struct {
		Success  bool
		Snapshot struct {
			ID         string `json:"snapshot_id"`
			Screenshot struct {
				MIMEType string `json:"mime_type"`
			}
		}
	}
	if err := json.Unmarshal([]byte(text.Text), &r); err != nil || !r.Success || r.Snapshot.ID != "snap-0" {
		t.Errorf("text %s: %v", text.Text, err)
	}
	if strings.Contains(text.Text, base64.StdEncoding.EncodeToString([]byte("\x89PNG fake"))) {
		t.Error("the screenshot's bytes are in the JSON text")
	}
	img, ok := res.Content[1].(mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("second block is %#v, want a PNG image", res.Content[1])
	}
	if data, err := base64.StdEncoding.DecodeString(img.Data); err != nil || string(data) != "\x89PNG fake" {
		t.Errorf("image data %q: %v", img.Data, err)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	if !jsonEqual(t, structured, json.RawMessage(text.Text)) {
		t.Errorf("structured content %s differs from the text %s", structured, text.Text)
	}

	// A get_snapshot that failed answers with an action result, which does
	// not fit the snapshot's output schema: an error result, still with
	// its text and image.
	s2 := newTestServer(t, &fakes{}, Config{})
	c2 := inProcessClient(t, s2)
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.GetSnapshot
	req.Params.Arguments = map[string]any{"viewport_only": true}
	res, err := c2.CallTool(context.Background(), req)
	if err != nil || res.IsError || res.StructuredContent == nil {
		t.Fatalf("snapshot result %+v, %v: want structured, not an error", res, err)
	}
}

func TestUnfitResultIsAnErrorWithoutStructuredContent(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{})
	out := tools.Output{Value: toolapi.ActionResult{Snapshot: &snapshot.Snapshot{}, Error: ptr(toolapi.Timeout)}}
	res, err := s.result(toolapi.GetSnapshot, out)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.StructuredContent != nil || len(res.Content) != 1 {
		t.Errorf("result %+v: want an error result with text only", res)
	}
	res, _ = s.result(toolapi.Click, out)
	if res.IsError || res.StructuredContent == nil {
		t.Errorf("a failed action is a result the agent acts on, not an error: %+v", res)
	}
}

func TestEachClientHasItsOwnSessionAndCallsInOneAreSerial(t *testing.T) {
	t.Parallel()
	f := &fakes{hold: make(chan struct{})}
	s := newTestServer(t, f, Config{})
	a, b := inProcessClient(t, s), inProcessClient(t, s)
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, c := range []*client.Client{a, a, a, b, b, b} {
		wg.Go(func() {
			if _, err := c.CallTool(ctx, clickRequest()); err != nil {
				t.Errorf("click: %v", err)
			}
		})
	}
	// Both sessions run a call at once while the calls of each wait.
	deadline := time.Now().Add(5 * time.Second)
	for f.inCall.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if n := f.inCall.Load(); n != 2 {
		t.Errorf("%d calls running at once, want 2 (one per session)", n)
	}
	close(f.hold)
	wg.Wait()
	sessions := f.all()
	if len(sessions) != 2 {
		t.Fatalf("%d sessions opened for two clients, want 2", len(sessions))
	}
	for _, fs := range sessions {
		if fs.overlap.Load() {
			t.Errorf("calls overlapped in session %d", fs.n)
		}
		if n := len(fs.calls()); n != 3 {
			t.Errorf("session %d ran %d calls, want 3", fs.n, n)
		}
	}
	closed := func() int {
		n := 0
		for _, fs := range sessions {
			if fs.closed.Load() {
				n++
			}
		}
		return n
	}
	a.Close()
	waitFor(t, "client A's session to close", func() bool { return closed() >= 1 })
	time.Sleep(50 * time.Millisecond)
	if closed() != 1 {
		t.Error("closing client A closed client B's session too")
	}
	b.Close()
	waitFor(t, "client B's session to close", func() bool { return closed() == 2 })
}

func TestMaxSessions(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{MaxSessions: 1})
	a, b := inProcessClient(t, s), inProcessClient(t, s)
	ctx := context.Background()
	if res := callTool(t, ctx, a, toolapi.GetSnapshot, nil); res.IsError {
		t.Fatalf("first client refused: %+v", res)
	}
	res := callTool(t, ctx, b, toolapi.GetSnapshot, nil)
	if !res.IsError || !strings.Contains(res.Content[0].(mcp.TextContent).Text, "--max-sessions") {
		t.Fatalf("second client over the limit got %+v, want an error naming --max-sessions", res)
	}
	a.Close()
	waitFor(t, "a slot to free", func() bool { return s.sessions.count() == 0 })
	if res := callTool(t, ctx, b, toolapi.GetSnapshot, nil); res.IsError {
		t.Errorf("second client still refused after the first left: %+v", res)
	}
}

func TestIdleSessionCloses(t *testing.T) {
	t.Parallel()
	f := &fakes{}
	s := newTestServer(t, f, Config{SessionIdle: 100 * time.Millisecond})
	c := inProcessClient(t, s)
	ctx := context.Background()
	callTool(t, ctx, c, toolapi.GetSnapshot, nil)
	// However slow the machine, every session opened so far idles out.
	waitFor(t, "the idle sessions to close", func() bool {
		for _, s := range f.all() {
			if !s.closed.Load() {
				return false
			}
		}
		return true
	})
	before := len(f.all())
	if res := callTool(t, ctx, c, toolapi.GetSnapshot, nil); res.IsError {
		t.Fatalf("a call after the idle close failed: %+v", res)
	}
	if n := len(f.all()); n != before+1 {
		t.Errorf("%d sessions opened by the call after the idle close, want a fresh one", n-before)
	}
}

func TestCancelReachesTheCall(t *testing.T) {
	t.Parallel()
	f := &fakes{hold: make(chan struct{})}
	defer close(f.hold)
	s := newTestServer(t, f, Config{})
	c := inProcessClient(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, clickRequest())
		done <- err
	}()
	waitFor(t, "the call to start", func() bool { return f.inCall.Load() == 1 })
	cancel()
	<-done
	waitFor(t, "the call to see its context end", f.all()[0].canceled.Load)
}

func TestCloseEndsRunningCallsAndSessions(t *testing.T) {
	t.Parallel()
	f := &fakes{hold: make(chan struct{})}
	defer close(f.hold)
	s := newTestServer(t, f, Config{})
	c := inProcessClient(t, s)
	go c.CallTool(context.Background(), clickRequest())
	waitFor(t, "the call to start", func() bool { return f.inCall.Load() == 1 })
	s.Close()
	if !f.all()[0].closed.Load() || !f.all()[0].canceled.Load() {
		t.Error("Close did not cancel the running call and close its session")
	}
	res := callTool(t, context.Background(), c, toolapi.GetSnapshot, nil)
	if !res.IsError {
		t.Error("a call after Close succeeded")
	}
}

func clickRequest() mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.Click
	req.Params.Arguments = map[string]any{"ref": "@e1"}
	return req
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The model reads a snapshot as compact lines, while structured content
// keeps the JSON that validates against the snapshot schema, for every
// recorded page; --snapshot-text json puts the JSON back in the text.
func TestCompactTextBesideStructuredJSON(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../snapshot/testdata/captures/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recorded captures: %v", err)
	}
	compact := newTestServer(t, &fakes{}, Config{})
	asJSON := newTestServer(t, &fakes{}, Config{Text: TextJSON})
	for _, path := range paths {
		var c capture.Page
		if f, err := os.Open(path); err != nil {
			t.Fatal(err)
		} else if err := errors.Join(json.NewDecoder(f).Decode(&c), f.Close()); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		snap, _, _ := snapshot.Build(&c, snapshot.Options{ViewportOnly: true}, 0)
		msg := "Clicked @e0."
		for _, tc := range []struct {
			tool  string
			value any
			text  string
		}{
			{toolapi.GetSnapshot, snap, snap.Render()},
			{toolapi.Click, toolapi.ActionResult{Success: true, Snapshot: snap, Message: msg}, "success\n" + msg + "\n" + snap.Render()},
			{toolapi.Click, &toolapi.ActionResult{Snapshot: snap, Error: ptr(toolapi.ElementObscured)}, "error: element_obscured\n" + snap.Render()},
		} {
			res, err := compact.result(tc.tool, tools.Output{Value: tc.value})
			if err != nil || res.IsError || res.StructuredContent == nil {
				t.Fatalf("%s %s: %+v, %v", path, tc.tool, res, err)
			}
			if got := res.Content[0].(mcp.TextContent).Text; got != tc.text {
				t.Errorf("%s %s: text\n%s\nwant\n%s", path, tc.tool, got, tc.text)
			}
			structured, _ := json.Marshal(res.StructuredContent)
			want, _ := json.Marshal(tc.value)
			if !jsonEqual(t, structured, want) {
				t.Errorf("%s %s: structured content %s, want the JSON %s", path, tc.tool, structured, want)
			}
			var wrapped struct {
				Snapshot json.RawMessage `json:"snapshot"`
			}
			if json.Unmarshal(structured, &wrapped) == nil && wrapped.Snapshot != nil {
				structured = wrapped.Snapshot
			}
			if err := snapshot.Validate(structured); err != nil {
				t.Errorf("%s %s: %v", path, tc.tool, err)
			}
			res, _ = asJSON.result(tc.tool, tools.Output{Value: tc.value})
			if got := res.Content[0].(mcp.TextContent).Text; got != string(want) {
				t.Errorf("%s %s with --snapshot-text json: text %s, want the JSON", path, tc.tool, got)
			}
		}
	}

	// Approvals and completions answer in short JSON in either format.
	for _, v := range []any{toolapi.ApprovalResult{Approved: true, Message: "yes"}, toolapi.CompletionResult{Message: "not yet"}} {
		name := toolapi.RequestApproval
		if _, ok := v.(toolapi.CompletionResult); ok {
			name = toolapi.CompleteTask
		}
		res, _ := compact.result(name, tools.Output{Value: v})
		want, _ := json.Marshal(v)
		if got := res.Content[0].(mcp.TextContent).Text; got != string(want) {
			t.Errorf("%s: text %s, want %s", name, got, want)
		}
	}

	if _, err := New(Config{NewSession: (&fakes{}).open, Text: "yaml"}); err == nil {
		t.Error("an unknown text format was accepted")
	}
}
