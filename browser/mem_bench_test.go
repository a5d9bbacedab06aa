package browser_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// memSessions is how many sessions BenchmarkMemory holds open at once.
const memSessions = 8

// BenchmarkMemory measures what a session costs in memory: `chaperone serve
// --http` with 1 and then memSessions MCP clients, each holding a session
// open on a page of the demo flow (the pages in turn), beside a bare
// browser (launched with the server's flags) holding as many isolated
// contexts that went the same way (the start page, then the session's
// page), with raw protocol calls. It reports
// the proportional set size (PSS) each extra session adds on both sides
// (pss-MB/session, floor-pss-MB/session), the whole tree's PSS at
// memSessions (the server's process included) beside the bare browser's
// (pss-ratio), and logs where the memory goes by process kind. PSS shares
// pages among the processes that map them, other programs' Chromium
// included: on a shared machine both sides move together, so read the
// ratio. Run it with -benchtime 1x: each iteration opens and closes
// everything.
func BenchmarkMemory(b *testing.B) {
	bin := buildChaperone(b)
	site := browsertest.Site(b)
	var ours, floor [2]browsertest.ByKind
	for b.Loop() {
		ours, floor = memoryRound(b, bin, site)
	}
	extra := func(m [2]browsertest.ByKind) float64 {
		return float64(m[1].Total()-m[0].Total()) / (memSessions - 1) / (1 << 20)
	}
	b.ReportMetric(extra(ours), "pss-MB/session")
	b.ReportMetric(extra(floor), "floor-pss-MB/session")
	b.ReportMetric(float64(ours[1].Total())/(1<<20), "pss-MB")
	b.ReportMetric(float64(floor[1].Total())/(1<<20), "floor-pss-MB")
	b.ReportMetric(float64(ours[1].Total())/float64(floor[1].Total()), "pss-ratio")
	per := func(m [2]browsertest.ByKind) browsertest.ByKind {
		d := browsertest.ByKind{}
		for k, v := range m[1] {
			d[k] = v - m[0][k]
		}
		return d
	}
	b.Logf("\nPSS with 1 session:  ours %.0f MB (%s)\n                     bare %.0f MB (%s)\n"+
		"PSS with %d sessions: ours %.0f MB (%s)\n                     bare %.0f MB (%s)\n"+
		"per extra session:   ours %.1f MB (%s)\n                     bare %.1f MB (%s)",
		float64(ours[0].Total())/(1<<20), browsertest.FormatKinds(ours[0], 1<<20, "%.0f"),
		float64(floor[0].Total())/(1<<20), browsertest.FormatKinds(floor[0], 1<<20, "%.0f"),
		memSessions, float64(ours[1].Total())/(1<<20), browsertest.FormatKinds(ours[1], 1<<20, "%.0f"),
		float64(floor[1].Total())/(1<<20), browsertest.FormatKinds(floor[1], 1<<20, "%.0f"),
		extra(ours), browsertest.FormatKinds(per(ours), (memSessions-1)*(1<<20), "%.1f"),
		extra(floor), browsertest.FormatKinds(per(floor), (memSessions-1)*(1<<20), "%.1f"))
}

// memoryRound opens 1 and then memSessions sessions on the server and as
// many contexts on the bare browser, and returns the PSS by process kind of
// each side at 1 and at memSessions.
func memoryRound(b *testing.B, bin, site string) (ours, floor [2]browsertest.ByKind) {
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	srv := startHTTPServer(b, bin, "serve", "--http", "127.0.0.1:0", "--profile", "none",
		"--max-sessions", "32", "--url", site+flowPages[0])
	defer srv.stop()
	fb, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer fb.Close()
	var clients []*client.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	var tabs []*browser.Context
	defer func() {
		for _, t := range tabs {
			t.Close()
		}
	}()
	open := func(i int) {
		url := site + flowPages[i%len(flowPages)]
		c, err := sessionOn(ctx, srv.base, url)
		if err != nil {
			b.Fatalf("session %d: %v%s", i, err, srv.log())
		}
		clients = append(clients, c)
		tab, err := fb.NewContext(ctx)
		if err != nil {
			b.Fatal(err)
		}
		tabs = append(tabs, tab)
		// The way the session went: its start URL, a snapshot, the page.
		for _, u := range []string{site + flowPages[0], url} {
			if err := rawLoad(ctx, tab, func() error {
				_, err := browser.CallForTest(ctx, tab, page.Navigate, page.NavigateParams{URL: u})
				return err
			}); err != nil {
				b.Fatal(err)
			}
			if err := rawSnap(ctx, tab); err != nil {
				b.Fatal(err)
			}
		}
	}
	measure := func() (ours, floor browsertest.ByKind) {
		// The most of a few samples: a renderer's memory moves as its
		// page's last tasks and collections run.
		ours, floor = browsertest.ByKind{}, browsertest.ByKind{}
		for range 5 {
			o, f := browsertest.PSSByKind(srv.cmd.Process.Pid), browsertest.PSSByKind(fb.Process().Pid)
			if o.Total() > ours.Total() {
				ours = o
			}
			if f.Total() > floor.Total() {
				floor = f
			}
			time.Sleep(200 * time.Millisecond)
		}
		return ours, floor
	}
	open(0)
	ours[0], floor[0] = measure()
	for i := 1; i < memSessions; i++ {
		open(i)
	}
	ours[1], floor[1] = measure()
	return ours, floor
}

// sessionOn connects an MCP client over streamable HTTP, which opens its
// browser session with the first call, and takes it to url.
func sessionOn(ctx context.Context, base, url string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(base + "/mcp")
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		c.Close()
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "chaperone-memory", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	for _, call := range []struct {
		name string
		args map[string]any
	}{{toolapi.GetSnapshot, nil}, {toolapi.Navigate, map[string]any{"url": url}}} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = call.name, call.args
		res, err := c.CallTool(ctx, req)
		if err == nil && res.IsError {
			err = fmt.Errorf("an error result: %+v", res.Content)
		}
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: %w", call.name, err)
		}
	}
	return c, nil
}

// httpServer is `chaperone serve --http` with the address it listens on.
type httpServer struct {
	cmd    *exec.Cmd
	base   string
	stderr *strings.Builder
	lines  <-chan string
	done   chan struct{}
}

// startHTTPServer runs the binary with args and waits for its address.
func startHTTPServer(b *testing.B, bin string, args ...string) *httpServer {
	b.Helper()
	s := &httpServer{cmd: exec.Command(bin, args...), stderr: &strings.Builder{}, done: make(chan struct{})}
	pr, pw := io.Pipe()
	s.cmd.Stderr = pw
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	addrRE := regexp.MustCompile(`msg="serving MCP over HTTP" addr=(\S+)`)
	found := make(chan string, 1)
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		s.cmd.Wait()
		pw.Close()
		close(s.done)
	}()
	s.lines = lines
	select {
	case addr := <-found:
		s.base = "http://" + addr
	case <-s.done:
		b.Fatalf("chaperone %s exited before listening%s", strings.Join(args, " "), s.log())
	case <-time.After(time.Minute):
		b.Fatalf("chaperone %s did not listen within a minute%s", strings.Join(args, " "), s.log())
	}
	return s
}

// log is what the server logged so far, for an error message.
func (s *httpServer) log() string {
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return "\nserver log:\n" + s.stderr.String()
			}
			s.stderr.WriteString(l + "\n")
			continue
		default:
		}
		return "\nserver log:\n" + s.stderr.String()
	}
}

// stop ends the server (SIGINT, then kill) and waits for it.
func (s *httpServer) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}
