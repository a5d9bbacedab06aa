package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func driverEnv(vars map[string]string) (*env, *syncBuffer, *syncBuffer) {
	var out, errOut syncBuffer
	return &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}, &out, &errOut
}

// demoTestTask is the demo's task with flag defaults, a record in dir and
// approvals answered by approver.
func demoTestTask(t *testing.T, e *env, dir string, approver checkpoint.Approver) task {
	t.Helper()
	st := lentSetup(t, e, "info")
	tk := task{setup: st, outDir: dir, approver: approver}
	if err := demoTask(e, &tk, ""); err != nil {
		t.Fatal(err)
	}
	return tk
}

// Without an API key the demo runs the scripted agent through the real
// server on real Chromium, stops at the checkpoint for the human, verifies
// completion and writes a report that Chromium can open: through MCP, and
// with the tools called in process (--via direct), the same steps.
func TestDemoWithoutKey(t *testing.T) {
	t.Parallel()
	for _, via := range []string{viaMCP, viaDirect} {
		t.Run(via, func(t *testing.T) { testDemoWithoutKey(t, via, nil) })
	}
}

// TestDemoWithDeltas: the demo succeeds, through MCP and in process, with
// snapshot deltas on and off (--snapshot-delta): the scripted agent finds
// its refs on the page it pieces together from deltas.
func TestDemoWithDeltas(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		for _, via := range []string{viaMCP, viaDirect} {
			t.Run(fmt.Sprintf("delta=%v/%s", on, via), func(t *testing.T) {
				testDemoWithoutKey(t, via, func(tk *task) { tk.setup.tools.SnapshotDelta = on })
			})
		}
	}
}

func testDemoWithoutKey(t *testing.T, via string, configure func(*task)) {
	e, stdout, stderr := driverEnv(nil)
	dir := filepath.Join(t.TempDir(), "run")
	approver := &checkpointtest.Person{Answer: checkpoint.Decision{Approved: true, Channel: "test"}}
	tk := demoTestTask(t, e, dir, approver)
	tk.via = via
	if configure != nil {
		configure(&tk)
	}
	if tk.modelName != scriptedAgentName {
		t.Fatalf("model = %q, want the scripted agent", tk.modelName)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := runDemo(ctx, e, tk)
	t.Logf("stdout:\n%s", stdout)
	if err != nil {
		t.Fatalf("demo: %v\nstderr:\n%s", err, stderr)
	}
	if !res.Success || res.Reason != driver.ReasonCompleted {
		t.Fatalf("result = %+v", res)
	}
	for _, want := range []string{"scripted agent, not Claude", "SUCCEEDED", "Verified", "Report: " + filepath.Join(dir, "report.html")} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q", want)
		}
	}

	// The human was asked, on the final page, before the final click.
	asked := approver.Requests()
	if len(asked) == 0 {
		t.Fatal("no human was asked")
	}
	if !strings.Contains(asked[0].URL, "/finish") {
		t.Errorf("asked on %s, want the finish page", asked[0].URL)
	}

	lines := drivertest.ReadSessionLog(t, dir)
	var steps []string
	var total, totalOut float64
	for _, l := range lines[1 : len(lines)-1] {
		steps = append(steps, l["tool"].(string)+" "+jsonStr(l["target"])+" → "+jsonStr(l["result"]))
		t.Logf("turn %v: request ≈%v tokens (input %v, output %v) %s(%s) → %s", l["turn"], l["request_tokens"], l["input_tokens"], l["output_tokens"], l["tool"], jsonStr(l["target"]), jsonStr(l["result"]))
		total += l["input_tokens"].(float64)
		totalOut += l["output_tokens"].(float64)
	}
	t.Logf("run total (estimated): %.0f input, %.0f output tokens; at claude-sonnet-5-5 prices $%.4f", total, totalOut, (total*2+totalOut*10)/1e6)
	want := []string{toolapi.Click, toolapi.Click, toolapi.Click, toolapi.Click, toolapi.RequestApproval, toolapi.Click, toolapi.CompleteTask}
	if len(steps) != len(want) {
		t.Fatalf("turns = %q", steps)
	}
	for i, w := range want {
		if !strings.HasPrefix(steps[i], w+" ") || strings.Contains(steps[i], "failed") {
			t.Errorf("turn %d = %q, want a successful %s", i+1, steps[i], w)
		}
	}
	if lines[5]["approval"] != "approved" {
		t.Errorf("approval turn = %v", lines[5])
	}

	// Every turn whose tool returned a screenshot shows it in the report.
	var shots []int
	for _, l := range lines[1 : len(lines)-1] {
		if jsonStr(l["screenshot"]) != "" {
			shots = append(shots, int(l["turn"].(float64)))
		}
	}
	checkReportInChromium(t, dir, len(want), shots)
}

// A rejection at the checkpoint ends the demo as failed, cleanly.
func TestDemoRejected(t *testing.T) {
	t.Parallel()
	e, stdout, _ := driverEnv(nil)
	dir := filepath.Join(t.TempDir(), "run")
	approver := checkpoint.ApproverFunc(func(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
		return checkpoint.Decision{Approved: false, Feedback: "not today", Channel: "test"}, nil
	})
	tk := demoTestTask(t, e, dir, approver)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := runDemo(ctx, e, tk)
	if err == nil || res.Success || res.Reason != driver.ReasonTaskFailed || !strings.Contains(res.Detail, "not today") {
		t.Fatalf("result = %+v, %v; want task_failed with the human's words", res, err)
	}
	if !strings.Contains(stdout.String(), "FAILED") {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, l := range drivertest.ReadSessionLog(t, dir) {
		if l["tool"] == toolapi.Click && strings.Contains(jsonStr(l["target"]), "Finish") {
			t.Fatal("the final click ran without approval")
		}
	}
}

// run refuses to start without an API key, before any browser starts.
func TestRunWithoutKey(t *testing.T) {
	t.Parallel()
	e, _, _ := driverEnv(map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:1"})
	// A browser that started first would fail on its path instead.
	err := runCmd(context.Background(), e, []string{"--goal", "Cancel my membership", "--profile", "demo", "--browser-path", "/nonexistent"})
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v, want the missing key", err)
	}
	if err := runCmd(context.Background(), e, []string{"--profile", "demo"}); err == nil || !strings.Contains(err.Error(), "--goal") {
		t.Fatalf("err = %v, want --goal required", err)
	}
}

func jsonStr(v any) string {
	s, _ := v.(string)
	return s
}

// checkReportInChromium opens report.html in Chromium and finds the
// timeline: a heading per turn and a rendered screenshot per entry.
func checkReportInChromium(t *testing.T, dir string, turns int, shots []int) {
	t.Helper()
	base := browsertest.Serve(t, http.FileServer(http.Dir(dir)))
	b := browsertest.NewBrowser(t, browser.Options{})
	tab := browsertest.TabOf(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tab.Navigate(ctx, base+"/report.html"); err != nil {
		t.Fatal(err)
	}
	c, err := tab.Capture(ctx, browser.CaptureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ax struct {
		Nodes []struct {
			Role struct{ Value string } `json:"role"`
			Name struct{ Value string } `json:"name"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(c.Frames[0].AX, &ax); err != nil {
		t.Fatal(err)
	}
	headings, images := map[string]bool{}, map[string]bool{}
	for _, n := range ax.Nodes {
		switch n.Role.Value {
		case "heading":
			headings[n.Name.Value] = true
		case "image", "img":
			images[n.Name.Value] = true
		}
	}
	if !images["initial screenshot"] {
		t.Errorf("no initial screenshot among %v", images)
	}
	for _, i := range shots {
		if !images["screenshot after turn "+strconv.Itoa(i)] {
			t.Errorf("no screenshot of turn %d among %v", i, images)
		}
	}
	for i := 1; i <= turns; i++ {
		found := false
		for h := range headings {
			found = found || strings.HasPrefix(h, "Turn "+strconv.Itoa(i)+":")
		}
		if !found {
			t.Errorf("no heading for turn %d among %v", i, headings)
		}
	}
	// The screenshots, and the recording player's frame.
	if loaded := renderedImages(t, c.DOM); loaded != len(shots)+2 {
		t.Errorf("%d images rendered, want %d", loaded, len(shots)+2)
	}
}

// renderedImages counts the <img> elements laid out taller than 50 px: a
// screenshot that failed to load shows as a one-line alt text.
func renderedImages(t *testing.T, dom json.RawMessage) int {
	t.Helper()
	var snap struct {
		Documents []struct {
			Nodes struct {
				NodeName []int `json:"nodeName"`
			} `json:"nodes"`
			Layout struct {
				NodeIndex []int       `json:"nodeIndex"`
				Bounds    [][]float64 `json:"bounds"`
			} `json:"layout"`
		} `json:"documents"`
		Strings []string `json:"strings"`
	}
	if err := json.Unmarshal(dom, &snap); err != nil {
		t.Fatal(err)
	}
	n := 0
	doc := snap.Documents[0]
	for i, node := range doc.Layout.NodeIndex {
		if snap.Strings[doc.Nodes.NodeName[node]] == "IMG" && len(doc.Layout.Bounds[i]) == 4 && doc.Layout.Bounds[i][3] > 50 {
			n++
		}
	}
	return n
}

// The command line: `chaperone demo --approver web` without a key pauses at
// the checkpoint until someone approves in the web console, then verifies
// completion and says where the report is.
func TestDemoCommandWebApproval(t *testing.T) {
	t.Parallel()
	e, stdout, stderr := driverEnv(nil)
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"demo", "--approver", "web", "--out", dir, "--log-level", "warn"}, e)
	}()

	consoleRE := regexp.MustCompile(`Approval console: (\S+)`)
	var console string
	approved := false
	for !approved {
		select {
		case c := <-code:
			t.Fatalf("demo exited with %d before the approval\nstdout:\n%s\nstderr:\n%s", c, stdout, stderr)
		case <-ctx.Done():
			t.Fatalf("no approval request\nstderr:\n%s", stderr)
		case <-time.After(100 * time.Millisecond):
		}
		if console == "" {
			if m := consoleRE.FindStringSubmatch(stderr.String()); m != nil {
				console = m[1]
			}
			continue
		}
		var pending struct {
			Pending []struct {
				ID  string `json:"id"`
				URL string `json:"url"`
			} `json:"pending"`
		}
		resp, err := http.Get(console + "api/pending")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&pending)
		resp.Body.Close()
		if err != nil || len(pending.Pending) == 0 {
			continue
		}
		if !strings.Contains(pending.Pending[0].URL, "/finish") {
			t.Errorf("approval asked on %s, want the finish page", pending.Pending[0].URL)
		}
		resp, err = http.Post(console+"api/approvals/"+pending.Pending[0].ID, "application/json", strings.NewReader(`{"approved":true}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("approve: %s", resp.Status)
		}
		approved = true
	}
	if c := <-code; c != 0 {
		t.Fatalf("demo exited with %d\nstdout:\n%s\nstderr:\n%s", c, stdout, stderr)
	}
	for _, want := range []string{"scripted agent, not Claude", "SUCCEEDED", "Verified", "Report: " + filepath.Join(dir, "report.html")} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
}
