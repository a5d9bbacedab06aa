package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// flowStep is one call of a flow: a tool on the element of role and name
// (or, with no role, the field the page text labels name), with more
// arguments.
type flowStep struct {
	tool, role, name string
	args             map[string]any
}

// deltaFlows are the flows deltas are measured on: the demo's cancellation
// flow over five pages, its held-out variants (other markup, and the whole
// flow as stages of one page), and flows of ten steps or more on one page (a
// profile form, a todo list).
var deltaFlows = []struct {
	name, start string
	steps       []flowStep
}{
	{"cancellation", "demo:/account", []flowStep{
		{toolapi.Click, "button", "Cancel Membership", nil}, {toolapi.Click, "button", "Continue to Cancel", nil},
		{toolapi.Click, "radio", "It's too expensive", nil}, {toolapi.Click, "button", "Continue", nil},
		{toolapi.Click, "button", "Finish Cancellation", nil},
	}},
	{"altered", "demo:/variants/altered", []flowStep{
		{toolapi.Click, "button", "Cancel Membership", nil}, {toolapi.Click, "button", "Continue to Cancel", nil},
		{toolapi.Click, "radio", "It's too expensive", nil}, {toolapi.Click, "button", "Continue", nil},
		{toolapi.Click, "button", "Finish Cancellation", nil},
	}},
	{"renamed-flow", "demo:/variants/renamed-flow", []flowStep{
		{toolapi.Click, "button", "Cancel Membership", nil}, {toolapi.Click, "button", "Continue to Cancel", nil},
		{toolapi.Click, "radio", "It's too expensive", nil}, {toolapi.Click, "button", "Continue", nil},
		{toolapi.Click, "button", "Finish Cancellation", nil},
	}},
	{"form", "demo:/variants/form", []flowStep{
		{toolapi.Fill, "", "Username:", map[string]any{"value": "ada"}},
		{toolapi.Fill, "", "Email:", map[string]any{"value": "ada@example.com"}},
		{toolapi.Fill, "", "Age:", map[string]any{"value": "36"}},
		{toolapi.Fill, "", "Birthday:", map[string]any{"value": "1990-12-10"}},
		{toolapi.Fill, "", "Reminder time:", map[string]any{"value": "08:30"}},
		{toolapi.Fill, "", "Display name (required):", map[string]any{"value": "Ada L."}},
		{toolapi.Fill, "", "Notes:", map[string]any{"value": "Prefers email."}},
		{toolapi.Fill, "", "Nickname:", map[string]any{"value": "ace"}},
		{toolapi.Click, "button", "Save profile", nil},
	}},
	{"todos", "demo:/widgets/todos-react", []flowStep{
		{toolapi.Fill, "textbox", "New todo", map[string]any{"value": "Buy milk"}}, {toolapi.PressKey, "textbox", "New todo", map[string]any{"key": "Enter"}},
		{toolapi.Fill, "textbox", "New todo", map[string]any{"value": "Call the bank"}}, {toolapi.PressKey, "textbox", "New todo", map[string]any{"key": "Enter"}},
		{toolapi.Fill, "textbox", "New todo", map[string]any{"value": "Book flights"}}, {toolapi.PressKey, "textbox", "New todo", map[string]any{"key": "Enter"}},
		{toolapi.Fill, "textbox", "New todo", map[string]any{"value": "Pay rent"}}, {toolapi.PressKey, "textbox", "New todo", map[string]any{"key": "Enter"}},
		{toolapi.Fill, "textbox", "New todo", map[string]any{"value": "Water plants"}}, {toolapi.PressKey, "textbox", "New todo", map[string]any{"key": "Enter"}},
	}},
}

// flowTokens is what one run of a flow cost a model in text: cl100k tokens
// over every result's text, the calls, and how many results were deltas.
type flowTokens struct {
	text, calls, deltas int
	// shares are the server's log of each delta's size and the whole's.
	shares []string
}

// runDeltaFlow runs a flow over stdio with screenshots off and deltas on or off,
// as an agent that keeps the page would (refs found on the page it pieces
// together), and fails unless every step succeeds.
func runDeltaFlow(t *testing.T, enc *tiktoken.Tiktoken, start string, steps []flowStep, delta bool) (n flowTokens) {
	t.Helper()
	c, _, stderr := stdioClient(t, nil, "serve", "--profile", "none", "--screenshots", "never", "--url", start, fmt.Sprintf("--snapshot-delta=%v", delta), "--log-level", "debug")
	defer c.Close()
	// Each delta's size beside the whole snapshot's, sent or not: what
	// snapshot.DeltaShare is judged by.
	defer func() {
		for l := range strings.Lines(stderr.String()) {
			if strings.Contains(l, `msg="snapshot delta"`) {
				i := strings.Index(l, "delta_bytes=")
				n.shares = append(n.shares, strings.TrimSpace(l[i:]))
			}
		}
	}()
	count := func(res *mcp.CallToolResult) {
		n.calls++
		for _, b := range res.Content {
			if v, ok := b.(mcp.TextContent); ok {
				n.text += len(enc.Encode(v.Text, nil, nil))
			}
		}
	}
	a := &deltaAgent{t: t, c: c}
	res, data := call(t, c, toolapi.GetSnapshot, nil)
	count(res)
	a.page = decodeSnapshot(t, []byte(data))
	for _, s := range steps {
		ref := ""
		if s.role == "" {
			e, ok := a.page.Labelled(s.name)
			if !ok {
				t.Fatalf("no field labelled %q on %s", s.name, a.page.Page.URL)
			}
			ref = e.Ref
		} else {
			ref = a.ref(s.role, s.name)
		}
		args := map[string]any{"ref": ref}
		for k, v := range s.args {
			args[k] = v
		}
		r, text := a.do(s.tool, args)
		if !r.Success {
			t.Fatalf("%s %s %q: failed:\n%s", s.tool, s.role, s.name, text)
		}
		if r.Delta != nil {
			n.deltas++
		}
		n.text += len(enc.Encode(text, nil, nil))
		n.calls++
	}
	return n
}

// TestDeltaFlows runs each flow with deltas off and on: every step succeeds
// either way, and deltas never cost a flow more text. It logs the table the
// README's figures come from.
func TestDeltaFlows(t *testing.T) {
	t.Parallel()
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatalf("load cl100k: %v", err)
	}
	var table strings.Builder
	table.WriteString("| flow | calls | text tokens, deltas off | deltas on | results as deltas |\n|---|---|---|---|---|\n")
	for _, f := range deltaFlows {
		t.Run(f.name, func(t *testing.T) {
			off := runDeltaFlow(t, enc, f.start, f.steps, false)
			on := runDeltaFlow(t, enc, f.start, f.steps, true)
			if off.deltas != 0 {
				t.Errorf("deltas off: %d results were deltas", off.deltas)
			}
			if on.text > off.text {
				t.Errorf("deltas cost more: %d text tokens, %d without", on.text, off.text)
			}
			fmt.Fprintf(&table, "| %s | %d | %d | %d | %d of %d |\n", f.name, on.calls, off.text, on.text, on.deltas, len(f.steps))
			t.Logf("%s: deltas beside the whole snapshot: %q", f.name, on.shares)
		})
	}
	t.Logf("text tokens per flow (cl100k, --screenshots never):\n%s", table.String())
}
