package driver

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/chaperone-mcp/chaperone/tools"
)

func TestDescribe(t *testing.T) {
	tests := []struct {
		res  ToolResult
		want string
	}{
		{ToolResult{Text: `{"success":true,"snapshot":{},"error":null}`}, "success"},
		{ToolResult{Text: `{"success":false,"snapshot":{},"error":"element_disabled"}`}, "failed (element_disabled)"},
		{ToolResult{Text: `{"success":false,"snapshot":{},"error":"human_rejected","message":"User feedback: no"}`}, "failed (human_rejected)"},
		{ToolResult{Text: `{"approved":true,"message":""}`}, "approved"},
		{ToolResult{Text: `{"approved":false,"message":"no"}`}, "rejected"},
		{ToolResult{Text: `{"acknowledged":true,"message":""}`}, "acknowledged"},
		{ToolResult{Text: `{"acknowledged":false,"message":""}`}, "not acknowledged"},
		{ToolResult{Text: `{"snapshot_id":"x","elements":[]}`}, "done"},
		{ToolResult{Text: `not json`}, "done"},
		{ToolResult{Text: `unknown tool`, IsError: true}, "error"},
	}
	for _, tt := range tests {
		if got := describe(tt.res); got != tt.want {
			t.Errorf("describe(%s) = %q, want %q", tt.res.Text, got, tt.want)
		}
	}
}

func TestTarget(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{tools.Click, `{"ref":"@e5"}`, "@e5"},
		{tools.Fill, `{"ref":"@e3","value":"secret"}`, "@e3"},
		{tools.Scroll, `{"direction":"down","amount":300}`, "down"},
		{tools.CompleteTask, `{"status":"failed","reason":"x"}`, "failed"},
		{tools.RequestApproval, `{"action":"Click Confirm cancellation","reason":"irreversible"}`, "Click Confirm cancellation"},
		{tools.GetSnapshot, `{}`, ""},
		{tools.Click, `garbage`, ""},
	}
	for _, tt := range tests {
		if got := target(tt.name, json.RawMessage(tt.input)); got != tt.want {
			t.Errorf("target(%s, %s) = %q, want %q", tt.name, tt.input, got, tt.want)
		}
	}
}

func TestKeepNewestImage(t *testing.T) {
	img := func() *Image { return &Image{MIMEType: "image/png", Data: []byte("x")} }
	msgs := []Message{
		{Role: RoleUser, Content: []Block{Text("goal"), ImageOf(img())}},
		{Role: RoleAssistant, Content: []Block{ToolUse("a", tools.Click, json.RawMessage(`{}`))}},
		{Role: RoleUser, Content: []Block{ToolResultOf("a", false, Text("{}"), ImageOf(img()))}},
		{Role: RoleAssistant, Content: []Block{ToolUse("b", tools.Click, json.RawMessage(`{}`))}},
		{Role: RoleUser, Content: []Block{ToolResultOf("b", false, Text("{}"), ImageOf(img())), Text("note")}},
	}
	out := keepNewestImage(msgs)
	count := func(ms []Message) (n int) {
		var walk func([]Block)
		walk = func(bs []Block) {
			for _, b := range bs {
				if b.Type == ImageBlock {
					n++
				}
				walk(b.Content)
			}
		}
		for _, m := range ms {
			walk(m.Content)
		}
		return n
	}
	if n := count(out); n != 1 {
		t.Fatalf("%d images kept, want 1", n)
	}
	if out[4].Content[0].Content[1].Type != ImageBlock {
		t.Fatal("the newest image was not the one kept")
	}
	if out[0].Content[1].Text != screenshotPlaceholder || out[2].Content[0].Content[1].Text != screenshotPlaceholder {
		t.Fatal("older images were not replaced by the placeholder")
	}
	if count(msgs) != 3 {
		t.Fatal("keepNewestImage changed its input")
	}
}

func TestCalibration(t *testing.T) {
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
	tests := []struct {
		model string
		u     Usage
		want  float64
		known bool
	}{
		{"claude-sonnet-5-5", Usage{1_000_000, 100_000}, 3, true},
		{"claude-haiku-4-5-20251001", Usage{1_000_000, 1_000_000}, 6, true},
		{"claude-opus-5-5", Usage{10_000, 1_000}, 0.06, true},
		{"claude-fable-5-1", Usage{10_000, 1_000}, 0.15, true},
		{"some-other-model", Usage{10_000, 1_000}, 0, false},
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
