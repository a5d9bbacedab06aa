package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// BenchmarkTaskTokens runs the demo's cancellation flow (a first look, five
// clicks, complete_task) through the built binary over stdio under each
// --screenshots setting and reports what the whole task cost a model: the
// text of every result in cl100k tokens, and every image at Claude's
// w×h/750. Measured beside Playwright MCP on this flow, its text came to
// about 2,900 tokens over 13 calls (its snapshots fetched apart), with no
// image unless asked: compare text-tokens/task, and tokens/task under
// screenshots=never.
func BenchmarkTaskTokens(b *testing.B) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		b.Fatalf("load cl100k: %v", err)
	}
	flow := []struct{ role, name string }{
		{"button", "Cancel Membership"},
		{"button", "Continue to Cancel"},
		{"radio", "It's too expensive"},
		{"button", "Continue"},
		{"button", "Finish Cancellation"},
	}
	for _, setting := range []string{tools.ScreenshotsAlways, tools.ScreenshotsAuto, tools.ScreenshotsNever} {
		b.Run("screenshots="+setting, func(b *testing.B) {
			var text, images, calls int
			for b.Loop() {
				c, _, _ := stdioClient(b, nil, "serve", "--profile", "none", "--screenshots", setting)
				count := func(res *mcp.CallToolResult) {
					calls++
					for _, block := range res.Content {
						switch v := block.(type) {
						case mcp.TextContent:
							text += len(enc.Encode(v.Text, nil, nil))
						case mcp.ImageContent:
							images += imageTokens(b, v)
						}
					}
				}
				res, data := call(b, c, toolapi.GetSnapshot, nil)
				count(res)
				snap := decodeSnapshot(b, []byte(data))
				for _, step := range flow {
					res, data = call(b, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(b, snap, step.role, step.name)})
					count(res)
					snap = nextPage(b, snap, data)
				}
				res, _ = call(b, c, toolapi.CompleteTask, map[string]any{"status": "success", "reason": "cancelled"})
				count(res)
				c.Close()
			}
			n := float64(b.N)
			b.ReportMetric(float64(text)/n, "text-tokens/task")
			b.ReportMetric(float64(images)/n, "image-tokens/task")
			b.ReportMetric(float64(text+images)/n, "tokens/task")
			b.ReportMetric(float64(calls)/n, "calls/task")
		})
	}
}

// imageTokens is what an image block costs Claude: width×height/750.
func imageTokens(tb testing.TB, img mcp.ImageContent) int {
	tb.Helper()
	data, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("image block of type %s: %v", img.MIMEType, err)
	}
	return cfg.Width * cfg.Height / 750
}

// decodeSnapshot reads a snapshot's JSON.
func decodeSnapshot(tb testing.TB, data []byte) *snapshot.Snapshot {
	tb.Helper()
	var s snapshot.Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		tb.Fatal(fmt.Errorf("snapshot: %w", err))
	}
	return &s
}
