package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// taskStep is one action of a benchmark flow, on the element a model would
// pick from the snapshot it has: by role and accessible name, or, for a
// field labelled by plain text only, by that text.
type taskStep struct {
	act   string // "click", "fill" or "select"
	role  string
	name  string
	label bool // name is the plain text before the field
	value string
}

// taskFlow is a task on the fixture site: where it starts, its steps, and
// a text the page shows once it is done ("" when it shows none in view: the
// form logs its submit below the fold).
type taskFlow struct {
	name  string
	path  string
	steps []taskStep
	done  string
}

func clickStep(role, name string) taskStep { return taskStep{act: "click", role: role, name: name} }
func fillStep(role, name, value string) taskStep {
	return taskStep{act: "fill", role: role, name: name, value: value}
}

// taskFlows are the flows of BenchmarkTaskTokens and of Playwright MCP's
// figures beside them (scripts/bench-tokens): the demo's cancellation flow,
// the profile form, and two long flows on pages made like everyday sites,
// a shop (17 steps on one document) and a mail app (13).
var taskFlows = []taskFlow{
	{name: "cancel", path: "/account", done: "Your membership has been cancelled", steps: []taskStep{
		clickStep("button", "Cancel Membership"),
		clickStep("button", "Continue to Cancel"),
		clickStep("radio", "It's too expensive"),
		clickStep("button", "Continue"),
		clickStep("button", "Finish Cancellation"),
	}},
	{name: "form", path: "/variants/form", steps: []taskStep{
		{act: "fill", name: "Username:", label: true, value: "ada"},
		{act: "fill", name: "Email:", label: true, value: "ada@example.com"},
		{act: "fill", name: "Age:", label: true, value: "36"},
		{act: "fill", name: "Display name (required):", label: true, value: "Ada L."},
		{act: "select", role: "combobox", name: "Country", value: "Germany"},
		fillStep("textbox", "Bio", "Mathematician."),
		clickStep("button", "Save profile"),
	}},
	{name: "shop", path: "/variants/shop", done: "Order TC-1042 is on its way", steps: []taskStep{
		fillStep("searchbox", "Search products", "grey"),
		clickStep("button", "Search"),
		clickStep("button", "Add Earl grey to cart"),
		clickStep("button", "One more Earl grey"),
		fillStep("searchbox", "Search products", "mug"),
		clickStep("button", "Search"),
		clickStep("button", "Add Stoneware mug to cart"),
		fillStep("textbox", "Coupon code", "SAVE10"),
		clickStep("button", "Apply"),
		clickStep("button", "Checkout"),
		fillStep("textbox", "Full name", "Ada Lovelace"),
		fillStep("textbox", "Street address", "12 St James's Square"),
		fillStep("textbox", "City", "London"),
		fillStep("textbox", "Postal code", "SW1Y 4JH"),
		clickStep("radio", "Express ($6, 2 days)"),
		clickStep("button", "Continue to review"),
		clickStep("button", "Place order"),
	}},
	{name: "inbox", path: "/variants/inbox", done: "Settings saved.", steps: []taskStep{
		clickStep("button", "Ada Lovelace — Notes on the engine"),
		clickStep("button", "Star"),
		clickStep("button", "Move to archive"),
		clickStep("button", "Billing team — Your invoice for March"),
		clickStep("button", "Reply"),
		fillStep("textbox", "Your reply", "Thanks, it is paid."),
		clickStep("button", "Send reply"),
		clickStep("button", "Starred"),
		clickStep("button", "Settings"),
		{act: "select", role: "combobox", name: "Language", value: "Deutsch"},
		clickStep("checkbox", "Show message previews"),
		fillStep("textbox", "Signature", "Ada"),
		clickStep("button", "Save changes"),
	}},
}

// tokenCounter counts what results cost a model: text in cl100k tokens,
// images at Claude's w×h/750.
type tokenCounter struct {
	enc                 *tiktoken.Tiktoken
	text, images, calls int
}

func newTokenCounter(tb testing.TB) *tokenCounter {
	tb.Helper()
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		tb.Fatalf("load cl100k: %v", err)
	}
	return &tokenCounter{enc: enc}
}

// count adds one result: its text blocks and its image blocks.
func (tc *tokenCounter) count(tb testing.TB, res *mcp.CallToolResult) {
	tc.calls++
	for _, block := range res.Content {
		switch v := block.(type) {
		case mcp.TextContent:
			tc.text += len(tc.enc.Encode(v.Text, nil, nil))
		case mcp.ImageContent:
			tc.images += imageTokens(tb, v)
		}
	}
}

// report reports the counts per task.
func (tc *tokenCounter) report(b *testing.B) {
	n := float64(b.N)
	b.ReportMetric(float64(tc.text)/n, "text-tokens/task")
	b.ReportMetric(float64(tc.images)/n, "image-tokens/task")
	b.ReportMetric(float64(tc.text+tc.images)/n, "tokens/task")
	b.ReportMetric(float64(tc.calls)/n, "calls/task")
}

// BenchmarkTaskTokens runs each of taskFlows through the built binary over
// stdio (a first look, the steps, complete_task) under each --screenshots
// setting, with --snapshot-delta off and on, and reports what the whole
// task cost a model: the text of every result in cl100k tokens, and every
// image at Claude's w×h/750. Every run must end on the flow's done text.
// BenchmarkPlaywrightTokens measures Playwright MCP on the same flows;
// scripts/bench-tokens prints both as a table.
func BenchmarkTaskTokens(b *testing.B) {
	site := browsertest.Site(b)
	for _, flow := range taskFlows {
		for _, setting := range []string{tools.ScreenshotsAlways, tools.ScreenshotsAuto, tools.ScreenshotsNever} {
			for _, delta := range []bool{false, true} {
				b.Run(fmt.Sprintf("flow=%s/screenshots=%s/delta=%v", flow.name, setting, delta), func(b *testing.B) {
					tc := newTokenCounter(b)
					// The flag is spelt out both ways: deltas are the default.
					args := []string{"serve", "--profile", "none", "--url", site + flow.path, "--screenshots", setting,
						fmt.Sprintf("--snapshot-delta=%v", delta)}
					for b.Loop() {
						c, _, _ := stdioClient(b, nil, args...)
						runChaperoneFlow(b, c, flow, tc)
						res, _ := call(b, c, toolapi.CompleteTask, map[string]any{"status": "success", "reason": "done"})
						tc.count(b, res)
						c.Close()
					}
					tc.report(b)
				})
			}
		}
	}
}

// findStep returns the ref of the step's element in page, "" when it has
// none: a model looks for it as the benchmark does, in the page it pieced
// together from the last whole snapshot and the deltas since.
func findStep(page *snapshot.Snapshot, st taskStep) string {
	if st.label {
		if e, ok := page.Labelled(st.name); ok {
			return e.Ref
		}
		return ""
	}
	for _, e := range page.Elements {
		if e.Role == st.role && e.Name == st.name {
			return e.Ref
		}
	}
	return ""
}

// runChaperoneFlow runs flow's first look and steps on c, counting every
// result, and fails unless the last result shows the done text. A step
// whose element no snapshot it has shows looks again with get_snapshot, as
// a model would, and that call counts too.
func runChaperoneFlow(b *testing.B, c *client.Client, flow taskFlow, tc *tokenCounter) {
	b.Helper()
	res, data := call(b, c, toolapi.GetSnapshot, nil)
	tc.count(b, res)
	page := decodeSnapshot(b, []byte(data))
	var text string
	for i, st := range flow.steps {
		ref := findStep(page, st)
		if ref == "" {
			res, data = call(b, c, toolapi.GetSnapshot, nil)
			tc.count(b, res)
			page = decodeSnapshot(b, []byte(data))
			if ref = findStep(page, st); ref == "" {
				b.Fatalf("%s step %d: no %s %q in the snapshot:\n%s", flow.name, i+1, st.role, st.name, page.Render())
			}
		}
		tool, args := toolapi.Click, map[string]any{"ref": ref}
		switch st.act {
		case "fill":
			tool, args["value"] = toolapi.Fill, st.value
		case "select":
			tool, args["value"] = toolapi.Select, st.value
		}
		res, data = call(b, c, tool, args)
		tc.count(b, res)
		var r actionResult
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			b.Fatal(err)
		}
		if !r.Success {
			b.Fatalf("%s step %d (%s %s %q): %s", flow.name, i+1, st.act, st.role, st.name, data)
		}
		page = nextPage(b, page, data)
		text = res.Content[0].(mcp.TextContent).Text
	}
	if !strings.Contains(text, flow.done) {
		b.Fatalf("%s: the last result does not show %q:\n%s", flow.name, flow.done, text)
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

// BenchmarkPlaywrightTokens runs taskFlows through Playwright MCP (the npm
// package @playwright/mcp, its cli.js named by CHAPERONE_PLAYWRIGHT_MCP;
// scripts/bench-tokens installs it) on the same fixture pages, in the same
// headless Chromium (--executable-path), and counts its results as
// BenchmarkTaskTokens counts Chaperone's. Its actions answer with the code
// they ran and a file name for the snapshot, so a model reads each page
// with browser_snapshot: a navigate and a snapshot, then an action and a
// snapshot a step, the way the cancellation flow's first figure was taken
// (about 2,900 text tokens over 13 calls; this run of the same
// version, whose npm package now pulls a newer Playwright, reads 3,915
// over 12). It asks for no screenshot.
func BenchmarkPlaywrightTokens(b *testing.B) {
	cli := os.Getenv("CHAPERONE_PLAYWRIGHT_MCP")
	if cli == "" {
		b.Skip("CHAPERONE_PLAYWRIGHT_MCP names no @playwright/mcp cli.js: run scripts/bench-tokens")
	}
	site := browsertest.Site(b)
	for _, flow := range taskFlows {
		b.Run("flow="+flow.name, func(b *testing.B) {
			tc := newTokenCounter(b)
			for b.Loop() {
				runPlaywrightFlow(b, cli, site, flow, tc)
			}
			tc.report(b)
		})
	}
}

// runPlaywrightFlow runs flow once in a fresh Playwright MCP.
func runPlaywrightFlow(b *testing.B, cli, site string, flow taskFlow, tc *tokenCounter) {
	b.Helper()
	dir := b.TempDir()
	c, err := client.NewStdioMCPClientWithOptions("node", nil,
		[]string{cli, "--headless", "--isolated", "--no-sandbox", "--executable-path", browserPath(b), "--output-dir", dir},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env, cmd.Dir = append(os.Environ(), env...), dir
			return cmd, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatalf("playwright mcp: initialize: %v", err)
	}
	do := func(name string, args map[string]any) string {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			b.Fatalf("playwright mcp: %s: %v", name, err)
		}
		tc.count(b, res)
		var text strings.Builder
		for _, block := range res.Content {
			if t, ok := block.(mcp.TextContent); ok {
				text.WriteString(t.Text)
			}
		}
		if res.IsError {
			b.Fatalf("playwright mcp: %s %v: %s", name, args, text.String())
		}
		return text.String()
	}
	do("browser_navigate", map[string]any{"url": site + flow.path})
	snap := do("browser_snapshot", map[string]any{})
	for i, st := range flow.steps {
		ref := playwrightRef(snap, st)
		if ref == "" {
			b.Fatalf("%s step %d: no %s %q in Playwright's snapshot:\n%s", flow.name, i+1, st.role, st.name, snap)
		}
		element := strings.TrimSpace(st.role + " " + st.name)
		switch st.act {
		case "fill":
			do("browser_type", map[string]any{"element": element, "target": ref, "text": st.value})
		case "select":
			do("browser_select_option", map[string]any{"element": element, "target": ref, "values": []string{st.value}})
		default:
			do("browser_click", map[string]any{"element": element, "target": ref})
		}
		snap = do("browser_snapshot", map[string]any{})
	}
	if !strings.Contains(snap, flow.done) {
		b.Fatalf("%s: Playwright's last snapshot does not show %q:\n%s", flow.name, flow.done, snap)
	}
}

// playwrightLine is one element of Playwright MCP's snapshot: its role, its
// quoted name if any, and its ref.
var playwrightLine = regexp.MustCompile(`^\s*- ([a-z]+)(?: ("(?:[^"\\]|\\.)*"))?[^\n]*?\[ref=([^\]]+)\]`)

// playwrightRef finds a step's element in Playwright MCP's snapshot text: by
// role and exact name, or the first field after the line that holds its
// label.
func playwrightRef(snap string, st taskStep) string {
	labelled := false
	for line := range strings.Lines(snap) {
		if st.label && strings.Contains(line, st.name) {
			labelled = true
			continue
		}
		m := playwrightLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, _ := strconv.Unquote(m[2])
		switch {
		case labelled && (m[1] == "textbox" || m[1] == "spinbutton"):
			return m[3]
		case !st.label && m[1] == st.role && name == st.name:
			return m[3]
		}
	}
	return ""
}

// browserPath is the Chromium Chaperone would launch.
func browserPath(tb testing.TB) string {
	tb.Helper()
	p, err := browser.FindBinary("")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
