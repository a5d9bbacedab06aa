package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// bin is the chaperone binary built for the end-to-end tests by TestMain.
var bin string

// lender lends the servers of the tests running Chromiums, so that the
// binary starts a few browsers rather than one per server (a launch is
// most of a short test's time on a small machine). TestMain closes it.
var lender browsertest.Lender

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chaperone-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if bin, err = browsertest.BuildCommand(dir); err != nil {
		fmt.Fprintf(os.Stderr, "the end-to-end tests: %v\n", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	if err := lender.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

const testToken = "e2e-token-0123456789abcdef"

// syncBuffer is a bytes.Buffer safe for concurrent writers and readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveProc is a running "chaperone serve --http".
type serveProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	// base is the server's base URL, http://127.0.0.1:port.
	base   string
	exited chan struct{}
	err    error // the exit status, once exited is closed
}

// ownBrowser, in a server's env, makes it launch a browser of its own
// instead of connecting to one lent by lender: for tests of the browser's
// own life (its processes, its exit).
const ownBrowser = "CHAPERONE_CDP_ENDPOINT="

// ownBrowserFlags are the flags that choose or shape the browser itself;
// a server given one launches its own.
var ownBrowserFlags = []string{"--connect", "--cdp-endpoint", "--cdp-default-context", "--browser-pool", "--browser-path", "--user-data-dir", "--headed"}

// actionBudget widens the time an action may take for the commands the
// tests run (a flag given in args still wins). What the tests check is the
// answer, never the time; the 2 s default is overrun on a small machine
// busy with other tests' browsers, and an overrun is a different answer.
const actionBudget = "CHAPERONE_ACTION_TIMEOUT=20s"

// withBrowser returns env with the actionBudget and a lent browser's
// endpoint for a test's server, unless args or env choose the browser; a
// benchmark, which measures the server as a user runs it, gets env as it
// is.
func withBrowser(tb testing.TB, env, args []string) []string {
	tb.Helper()
	t, ok := tb.(*testing.T)
	if !ok {
		return env
	}
	env = append(slices.Clip(env), actionBudget)
	env = wholeSnapshots(env, args)
	for _, e := range env {
		if strings.HasPrefix(e, "CHAPERONE_CDP_ENDPOINT=") || strings.HasPrefix(e, "CHAPERONE_BROWSER_POOL=") || strings.HasPrefix(e, "CHAPERONE_CONNECT=") ||
			strings.HasPrefix(e, "CHAPERONE_USER_DATA_DIR=") || strings.HasPrefix(e, "CHAPERONE_BROWSER_PATH=") {
			return env
		}
	}
	for _, a := range args {
		for _, f := range ownBrowserFlags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return env
			}
		}
	}
	return append(env, "CHAPERONE_CDP_ENDPOINT="+lender.Lend(t))
}

// wholeSnapshots turns snapshot deltas off for a test's server unless args
// or env name them: the end-to-end tests read each result's snapshot whole
// (act, click), and a test of deltas says --snapshot-delta (delta_test.go).
func wholeSnapshots(env, args []string) []string {
	for _, a := range append(slices.Clip(env), args...) {
		if strings.Contains(a, "snapshot-delta") || strings.HasPrefix(a, "CHAPERONE_SNAPSHOT_DELTA=") {
			return env
		}
	}
	return append(env, "CHAPERONE_SNAPSHOT_DELTA=false")
}

// loans holds the endpoint lent to each running test for the commands it
// runs one after another, so that they take one browser between them.
var loans sync.Map // *testing.T → string

// lentEndpoint returns the endpoint of the browser lent by lender to the
// commands the test runs one after another (run, demo, replay): the same
// for every call of the test.
func lentEndpoint(t *testing.T) string {
	t.Helper()
	if e, ok := loans.Load(t); ok {
		return e.(string)
	}
	e := lender.Lend(t)
	loans.Store(t, e)
	t.Cleanup(func() { loans.Delete(t) })
	return e
}

// lentSetup is the common flags' setup, logging at level to e's stderr, for
// a command the test runs in process (run, demo, replay): on the test's
// lent browser, with an action budget a loaded machine keeps.
func lentSetup(t *testing.T, e *env, level string) setup {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	cf := addCommonFlags(fs, level)
	keepStills(fs)
	for name, value := range map[string]string{"cdp-endpoint": lentEndpoint(t), "action-timeout": "20s"} {
		if err := fs.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	st, err := cf.setup(e.stderr)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// lentBrowser returns the environment variable that points a command the
// test runs at its lentEndpoint.
func lentBrowser(t *testing.T) string {
	t.Helper()
	return "CHAPERONE_CDP_ENDPOINT=" + lentEndpoint(t)
}

// startServe runs the binary with args (which must include --http) and env,
// and waits until it listens. Its browser is lent (withBrowser).
func startServe(t testing.TB, env []string, args ...string) *serveProc {
	t.Helper()
	env = withBrowser(t, env, args)
	p := &serveProc{cmd: exec.Command(bin, args...), stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	p.cmd.Stderr = pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		pw.Close()
		close(p.exited)
	}()
	addrRE := regexp.MustCompile(`msg="serving MCP over HTTP" addr=(\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			p.stderr.Write([]byte(line + "\n"))
			if m := addrRE.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			t.Logf("server stderr:\n%s", p.stderr.String())
		}
	})
	select {
	case addr := <-found:
		// A server on every interface is reached on loopback.
		if host, port, err := net.SplitHostPort(addr); err == nil {
			if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
				addr = net.JoinHostPort("127.0.0.1", port)
			}
		}
		p.base = "http://" + addr
	case <-p.exited:
		t.Fatalf("chaperone %s exited before listening: %v\n%s", strings.Join(args, " "), p.err, p.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("chaperone %s did not listen within 60 s\n%s", strings.Join(args, " "), p.stderr.String())
	}
	return p
}

// stop sends SIGTERM and waits for the exit, killing after 20 s.
func (p *serveProc) stop(t testing.TB) {
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		t.Errorf("chaperone did not exit within 20 s of SIGTERM; killing it")
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// stdioClient runs "chaperone args..." as an MCP server on stdio. Its
// browser is lent (withBrowser).
func stdioClient(t testing.TB, env []string, args ...string) (*client.Client, *exec.Cmd, *syncBuffer) {
	t.Helper()
	env = withBrowser(t, env, args)
	stderr := &syncBuffer{}
	var cmd *exec.Cmd
	c, err := client.NewStdioMCPClientWithOptions(bin, env, args,
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}),
		transport.WithCommandStderrWriter(stderr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	servertest.Initialize(t, c)
	return c, cmd, stderr
}

// actionResult is an action's result.
type actionResult struct {
	Success  bool            `json:"success"`
	Snapshot json.RawMessage `json:"snapshot"`
	Error    *string         `json:"error"`
	Message  string          `json:"message"`
}

// call calls a tool and returns its result and its JSON: the structured
// content, which programs read (the text is the compact rendering a model
// reads). It fails the test on a protocol error or an error result.
func call(t testing.TB, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s %v: %v", name, args, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("call %s: empty result", name)
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("call %s: first block is %T, want text", name, res.Content[0])
	}
	if res.IsError {
		t.Fatalf("call %s %v: error result: %s", name, args, text.Text)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		t.Fatalf("call %s: structured content %v: %v", name, res.StructuredContent, err)
	}
	return res, string(data)
}

// getSnapshot calls get_snapshot and checks the result: structured JSON
// that validates against the snapshot schema, its compact rendering as the
// text, and a PNG image block.
func getSnapshot(t *testing.T, c *client.Client) *snapshot.Snapshot {
	t.Helper()
	res, data := call(t, c, toolapi.GetSnapshot, nil)
	validateSnapshot(t, []byte(data))
	checkImage(t, res, []byte(data))
	var s snapshot.Snapshot
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		t.Fatal(err)
	}
	if text := textOf(t, res); text != s.Render() {
		t.Errorf("get_snapshot text is not the rendering of its structured content:\n%s", text)
	}
	return &s
}

// click clicks ref and returns the result's snapshot, checked against the
// schema.
func click(t *testing.T, c *client.Client, ref string) (actionResult, *snapshot.Snapshot) {
	t.Helper()
	return act(t, c, toolapi.Click, map[string]any{"ref": ref})
}

// act calls an action tool and returns its result and the result's
// snapshot, checked against the schema.
func act(t *testing.T, c *client.Client, name string, args map[string]any) (actionResult, *snapshot.Snapshot) {
	t.Helper()
	res, text := call(t, c, name, args)
	var r actionResult
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	validateSnapshot(t, r.Snapshot)
	checkImage(t, res, r.Snapshot)
	var s snapshot.Snapshot
	if err := json.Unmarshal(r.Snapshot, &s); err != nil {
		t.Fatal(err)
	}
	return r, &s
}

// checkImage checks the result's image against the snapshot (or delta) it
// carries: a PNG block exactly when the snapshot describes a screenshot. Under
// --screenshots auto, serve's default, an action that changed nothing
// visible carries neither.
func checkImage(t *testing.T, res *mcp.CallToolResult, snap []byte) {
	t.Helper()
	var described struct {
		Screenshot json.RawMessage `json:"screenshot"`
	}
	if err := json.Unmarshal(snap, &described); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	for _, c := range res.Content[1:] {
		img, ok := c.(mcp.ImageContent)
		if !ok {
			continue
		}
		if described.Screenshot == nil {
			t.Fatal("an image block the snapshot does not describe")
		}
		data, err := base64.StdEncoding.DecodeString(img.Data)
		if err != nil {
			t.Fatalf("image block: %v", err)
		}
		if img.MIMEType != "image/png" || !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Fatalf("image block is %s, %d bytes, not a PNG", img.MIMEType, len(data))
		}
		return
	}
	if described.Screenshot != nil {
		t.Fatal("no image block for the screenshot the snapshot describes")
	}
}

// validateSnapshot fails the test if data is not a snapshot's JSON that
// validates against the snapshot schema.
func validateSnapshot(t *testing.T, data []byte) {
	t.Helper()
	if err := snapshot.Validate(data); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
}

var userDataDirRE = regexp.MustCompile(`--user-data-dir=(\S+)`)

// browserOf returns the browser processes below pid and the profile
// directories they use; it fails the test if there are none.
func browserOf(t *testing.T, pid int) ([]browsertest.Process, []string) {
	t.Helper()
	var browsers []browsertest.Process
	dirs := make(map[string]bool)
	for _, p := range browsertest.Descendants(t, pid) {
		if strings.Contains(p.Cmdline, "chrom") {
			browsers = append(browsers, p)
			if m := userDataDirRE.FindStringSubmatch(p.Cmdline); m != nil {
				dirs[m[1]] = true
			}
		}
	}
	if len(browsers) == 0 {
		t.Fatalf("no browser process below the server (pid %d)", pid)
	}
	var list []string
	for d := range dirs {
		list = append(list, d)
	}
	return browsers, list
}

// checkNoBrowserLeft fails the test if any of the processes, or any process
// using one of the profile directories, still runs.
func checkNoBrowserLeft(t *testing.T, browsers []browsertest.Process, dirs []string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		ps := browsertest.Processes(t)
		for _, b := range browsers {
			if p, ok := ps[b.PID]; ok && p.State != "Z" && p.Cmdline == b.Cmdline {
				left = append(left, fmt.Sprintf("pid %d: %.100s", p.PID, p.Cmdline))
			}
		}
		for _, p := range ps {
			for _, d := range dirs {
				if p.State != "Z" && strings.Contains(p.Cmdline, d) {
					left = append(left, fmt.Sprintf("pid %d uses %s: %.100s", p.PID, d, p.Cmdline))
				}
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser processes left after the server exited:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
