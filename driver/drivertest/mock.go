// Package drivertest holds the driver's test doubles: a mock browser with a
// scripted page that stands in for the real server's tools, and snapshots to
// script it with.
package drivertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"sync"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// MockCall is one call the mock browser received.
type MockCall struct {
	Name string
	Args json.RawMessage
}

// MockOutcome is what an action does in the mock browser: on success the
// page becomes Snapshot (nil leaves it as it is); with Error set the action
// fails with that code and the page stays.
type MockOutcome struct {
	Snapshot *snapshot.Snapshot
	Error    toolapi.Code
	Message  string
}

// MockBrowser is a [toolapi.Tools] with a scripted page: predefined snapshots per
// action, configurable failures, and a record of every call. Its results
// have the JSON shapes of package tools, each with a small PNG screenshot.
// Set its fields before the first call.
type MockBrowser struct {
	// Page is the page before any action.
	Page *snapshot.Snapshot
	// Actions maps "tool ref" (e.g. "browser_click @e5"), or just "tool",
	// to what the action does. An action not listed succeeds and leaves
	// the page as it is.
	Actions map[string]MockOutcome
	// Reject, when set, answers request_human_approval with a rejection
	// carrying this message; otherwise approval is granted.
	Reject string
	// Done says whether complete_task(success) is acknowledged on the
	// current page; nil acknowledges it always.
	Done func(page *snapshot.Snapshot) bool
	// Specs is the tool list; nil lists the seven core tools.
	Specs []toolapi.ToolSpec
	// Moves makes every action that succeeds change the page (its text
	// gains a line), as on a page that reacts to each step: the driver then
	// sees progress, not the same call on an unchanged page.
	Moves bool
	// HandBack, when set, answers request_human_approval as a person's
	// hand-back does in the real server (the console's Take over, then
	// Hand back): approved with their note, the page becomes HandBack,
	// and the refs of every snapshot before it are dead, so that an
	// action on a ref HandBack does not show fails with ref_invalid,
	// carrying the page as it is.
	HandBack *snapshot.Snapshot

	mu     sync.Mutex
	handed bool
	calls  []MockCall
	page   *snapshot.Snapshot
	shots  int
}

// Calls returns every call received so far, in order.
func (m *MockBrowser) Calls() []MockCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]MockCall(nil), m.calls...)
}

// List returns Specs, or the seven core tools.
func (m *MockBrowser) List(ctx context.Context) ([]toolapi.ToolSpec, error) {
	if m.Specs != nil {
		return m.Specs, nil
	}
	return CoreToolSpecs(), nil
}

// Call runs a tool on the scripted page.
func (m *MockBrowser) Call(ctx context.Context, name string, args json.RawMessage) (toolapi.ToolResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, MockCall{Name: name, Args: append(json.RawMessage(nil), args...)})
	if m.page == nil {
		m.page = m.Page
		if m.page == nil {
			m.page = &snapshot.Snapshot{ID: "mock-0", Page: snapshot.Page{URL: "about:blank"}}
		}
	}
	var in struct {
		Ref    string `json:"ref"`
		Status string `json:"status"`
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			return toolapi.ToolResult{Text: fmt.Sprintf("invalid arguments: %v", err), IsError: true}, nil
		}
	}
	switch name {
	case toolapi.GetSnapshot:
		return m.result(m.page)
	case toolapi.RequestApproval:
		if m.HandBack != nil && !m.handed {
			m.handed, m.page = true, m.HandBack
			return m.result(toolapi.ApprovalResult{Approved: true, Message: "User feedback: A person took the browser and handed it back: signed in."})
		}
		if m.Reject != "" {
			return m.result(toolapi.ApprovalResult{Approved: false, Message: "User feedback: " + m.Reject})
		}
		return m.result(toolapi.ApprovalResult{Approved: true, Message: "Approved."})
	case toolapi.CompleteTask:
		if in.Status == "failed" || m.Done == nil || m.Done(m.page) {
			return m.result(toolapi.CompletionResult{Acknowledged: true, Message: "Task ended: " + in.Status + "."})
		}
		return m.result(toolapi.CompletionResult{Acknowledged: false, Message: "No success indicator holds on the current page."})
	case toolapi.Click, toolapi.Fill, toolapi.Select, toolapi.Scroll:
	default:
		return toolapi.ToolResult{Text: "unknown tool: " + name, IsError: true}, nil
	}
	if m.handed && in.Ref != "" && !m.shows(in.Ref) {
		code := toolapi.RefInvalid
		return m.result(toolapi.ActionResult{Success: false, Snapshot: m.page, Error: &code,
			Message: in.Ref + " is not in the newest snapshot: take a fresh look."})
	}
	out, ok := m.Actions[name+" "+in.Ref]
	if !ok {
		out = m.Actions[name]
	}
	if out.Error != "" {
		code := out.Error
		return m.result(toolapi.ActionResult{Success: false, Snapshot: m.page, Error: &code, Message: out.Message})
	}
	if out.Snapshot != nil {
		m.page = out.Snapshot
	}
	if m.Moves {
		moved := *m.page
		moved.Text += fmt.Sprintf("\nstep %d", len(m.calls))
		m.page = &moved
	}
	return m.result(toolapi.ActionResult{Success: true, Snapshot: m.page, Message: out.Message})
}

// shows reports whether the page shows an element with ref.
func (m *MockBrowser) shows(ref string) bool {
	for _, e := range m.page.Elements {
		if e.Ref == ref {
			return true
		}
	}
	return false
}

// result encodes v as the tool's JSON, as both its text and its structured
// content, and adds a fresh screenshot whose colour changes with each call,
// so that screenshots are told apart.
func (m *MockBrowser) result(v any) (toolapi.ToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return toolapi.ToolResult{}, fmt.Errorf("mock browser: encode result: %w", err)
	}
	m.shots++
	img, err := Screenshot(m.shots)
	if err != nil {
		return toolapi.ToolResult{}, err
	}
	return toolapi.ToolResult{Text: string(b), Structured: b, Image: img}, nil
}

// Screenshot draws a 160×90 PNG of one colour, chosen by seed: 20 image
// tokens.
func Screenshot(seed int) (*toolapi.Image, error) {
	img := image.NewRGBA(image.Rect(0, 0, 160, 90))
	c := color.RGBA{R: uint8(seed * 53), G: uint8(seed * 97), B: uint8(seed * 31), A: 255}
	for y := range 90 {
		for x := range 160 {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("mock browser: encode screenshot: %w", err)
	}
	return &toolapi.Image{MIMEType: "image/png", Data: buf.Bytes()}, nil
}

// CoreToolSpecs returns short specs of the seven core tools, for tests and
// the mock browser; the real ones come from the server.
func CoreToolSpecs() []toolapi.ToolSpec {
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required) // a []string always encodes
		if len(required) == 0 {
			req = []byte("[]")
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	ref := `"ref":{"type":"string","description":"A ref from the latest snapshot, e.g. @e7"}`
	return []toolapi.ToolSpec{
		{Name: toolapi.GetSnapshot, Description: "Return the current page as a snapshot.", InputSchema: obj(`"viewport_only":{"type":"boolean"}`)},
		{Name: toolapi.Click, Description: "Click an element. Refs die after any action.", InputSchema: obj(ref, "ref")},
		{Name: toolapi.Fill, Description: "Fill a text field.", InputSchema: obj(ref+`,"value":{"type":"string"},"clear_first":{"type":"boolean"}`, "ref", "value")},
		{Name: toolapi.Select, Description: "Select an option.", InputSchema: obj(ref+`,"value":{"type":"string"}`, "ref", "value")},
		{Name: toolapi.Scroll, Description: "Scroll the page or an element.", InputSchema: obj(ref + `,"direction":{"type":"string","enum":["up","down","top","bottom"]},"amount":{"type":"integer"}`)},
		{Name: toolapi.RequestApproval, Description: "Ask the human before an irreversible step.", InputSchema: obj(`"action":{"type":"string"},"reason":{"type":"string"},`+
			ref+`,"verb":{"type":"string","enum":["click","fill","select"]},"value":{"type":"string"},"plan":{"type":"array","items":{"type":"string"}},"write":{"type":"array","items":{"type":"string"}},"read":{"type":"array","items":{"type":"string"}}`, "action", "reason")},
		{Name: toolapi.CompleteTask, Description: "End the task.", InputSchema: obj(`"status":{"type":"string","enum":["success","failed"]},"reason":{"type":"string"}`, "status", "reason")},
	}
}
