package driver

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		res  toolapi.ToolResult
		want string
	}{
		{toolapi.ToolResult{Text: `{"success":true,"snapshot":{},"error":null}`}, "success"},
		{toolapi.ToolResult{Text: `{"success":false,"snapshot":{},"error":"element_disabled"}`}, "failed (element_disabled)"},
		{toolapi.ToolResult{Text: `{"success":false,"snapshot":{},"error":"human_rejected","message":"User feedback: no"}`}, "failed (human_rejected)"},
		{toolapi.ToolResult{Text: `{"approved":true,"message":""}`}, "approved"},
		{toolapi.ToolResult{Text: `{"approved":false,"message":"no"}`}, "rejected"},
		{toolapi.ToolResult{Text: `{"acknowledged":true,"message":""}`}, "acknowledged"},
		{toolapi.ToolResult{Text: `{"acknowledged":false,"message":""}`}, "not acknowledged"},
		{toolapi.ToolResult{Text: `{"snapshot_id":"x","elements":[]}`}, "done"},
		{toolapi.ToolResult{Text: `not json`}, "done"},
		{toolapi.ToolResult{Text: `unknown tool`, IsError: true}, "error"},
	}
	for _, tt := range tests {
		if got := describe(tt.res); got != tt.want {
			t.Errorf("describe(%s) = %q, want %q", tt.res.Text, got, tt.want)
		}
	}
}

func TestTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, want string
	}{
		{toolapi.Click, `{"ref":"@e5"}`, "@e5"},
		{toolapi.Fill, `{"ref":"@e3","value":"secret"}`, "@e3"},
		{toolapi.Scroll, `{"direction":"down","amount":300}`, "down"},
		{toolapi.CompleteTask, `{"status":"failed","reason":"x"}`, "failed"},
		{toolapi.RequestApproval, `{"action":"Click Confirm cancellation","reason":"irreversible"}`, "Click Confirm cancellation"},
		{toolapi.GetSnapshot, `{}`, ""},
		{toolapi.Click, `garbage`, ""},
	}
	for _, tt := range tests {
		if got := target(tt.name, json.RawMessage(tt.input)); got != tt.want {
			t.Errorf("target(%s, %s) = %q, want %q", tt.name, tt.input, got, tt.want)
		}
	}
}

// The window shows only the newest screenshot, after the cache breakpoint
// that ends the newest user message, so that the next request's prefix is
// the same; the two newest user messages end in breakpoints; the turns kept
// are not changed.
func TestHistoryWindow(t *testing.T) {
	t.Parallel()
	img := func() *toolapi.Image { return &toolapi.Image{MIMEType: "image/png", Data: []byte("x")} }
	h := history{intro: "goal", initial: toolapi.ToolResult{Text: "page", Image: img()}}
	if m := h.messages(); len(m) != 1 || m[0].Content[2].Type != ImageBlock || !m[0].Content[1].Cache {
		t.Fatalf("initial window = %+v", m)
	}
	for i, id := range []string{"a", "b"} {
		h.turns = append(h.turns, turn{
			assistant: Message{Role: RoleAssistant, Content: []Block{ToolUse(id, toolapi.Click, json.RawMessage(`{}`))}},
			user:      Message{Role: RoleUser, Content: []Block{ToolResultOf(id, false, Text("{}"))}},
			image:     img(),
		})
		msgs := h.messages()
		images := 0
		for _, m := range msgs {
			for _, b := range m.Content {
				if b.Type == ImageBlock {
					images++
				}
			}
		}
		last := msgs[len(msgs)-1].Content
		if images != 1 || last[len(last)-1].Type != ImageBlock {
			t.Fatalf("turn %d: %d images, last block %s; want one, last", i+1, images, last[len(last)-1].Type)
		}
		var marked []int
		for j, m := range msgs {
			for _, b := range m.Content {
				if b.Cache {
					marked = append(marked, j)
				}
			}
		}
		if want := []int{len(msgs) - 3, len(msgs) - 1}; !slices.Equal(marked, want) {
			t.Fatalf("turn %d: breakpoints in messages %v, want %v", i+1, marked, want)
		}
	}
	for _, tr := range h.turns {
		if tr.user.Content[0].Cache || len(tr.user.Content) != 1 {
			t.Fatal("messages changed the turns it shows")
		}
	}
}

func TestCalibration(t *testing.T) {
	t.Parallel()
	var c calibration
	if got := c.scale(1000); got != 1000 {
		t.Fatalf("uncalibrated scale = %d", got)
	}
	c.observe(1000, 1300)
	if got := c.scale(2000); got != 2600 {
		t.Fatalf("scale after 1000→1300 = %d, want 2600", got)
	}
	c.observe(1000, 1_000_000)
	if got := c.scale(100); got != 400 {
		t.Fatalf("an absurd count is clamped: scale = %d, want 400", got)
	}
	c.observe(0, 10)
	if got := c.scale(100); got != 400 {
		t.Fatalf("a zero estimate changed the factor: %d", got)
	}
}

func TestPrices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model string
		u     Usage
		want  float64
		known bool
	}{
		{"claude-sonnet-5-5", Usage{InputTokens: 1_000_000, OutputTokens: 100_000}, 3, true},
		{"claude-haiku-4-5-20251001", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 6, true},
		{"claude-opus-5-5", Usage{InputTokens: 10_000, OutputTokens: 1_000}, 0.06, true},
		{"claude-fable-5-1", Usage{InputTokens: 10_000, OutputTokens: 1_000}, 0.15, true},
		{"some-other-model", Usage{InputTokens: 10_000, OutputTokens: 1_000}, 0, false},
		// 400k plain, 500k read at 0.1, 100k written at 1.25: 575k at $2/M.
		{"claude-sonnet-5-5", Usage{InputTokens: 1_000_000, CacheReadTokens: 500_000, CacheWriteTokens: 100_000}, 1.15, true},
	}
	for _, tt := range tests {
		p, ok := PriceOf(tt.model)
		if ok != tt.known {
			t.Errorf("%s known = %v", tt.model, ok)
		}
		if got := p.Cost(tt.u); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s cost of %+v = %v, want %v", tt.model, tt.u, got, tt.want)
		}
	}
}
