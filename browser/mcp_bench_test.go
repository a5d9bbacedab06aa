package browser_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/png" // the screenshots' sizes
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// The end-to-end benchmark drives the built chaperone binary over stdio with
// mcp-go's client, as an agent's MCP client does, beside the raw floor in a
// browser of its own that browser.Launch starts with the flags the server's
// browser gets. It lives here because only this package's tests may speak
// CDP directly.

// flowPages are the pages of the demo site's cancellation flow.
var flowPages = []string{"/account", "/retention", "/survey", "/finish", "/cancelled"}

// BenchmarkMCP measures chaperone end to end against the raw browser, each
// side alternating with the other in one loop, and reports median times
// (tool-ms, floor-ms) and their ratio:
//
//   - ready: from spawning `chaperone serve` to the first get_snapshot
//     result, initialize included, beside launching a browser, opening a
//     tab, navigating and taking the floor's capture;
//   - one sub-benchmark per flow page: get_snapshot through MCP beside the
//     floor (the accessibility tree and a screenshot of the size and format
//     the tool sends), with the peak proportional set size (PSS) of each
//     browser's processes.
//
// Each server starts at the page it is measured on (--url), so that a
// sub-benchmark runs on its own.
func BenchmarkMCP(b *testing.B) {
	bin := buildChaperone(b)
	site := browsertest.Site(b)
	b.Run("ready", func(b *testing.B) { benchReady(b, bin, site+flowPages[0]) })
	for _, path := range flowPages {
		b.Run(path[1:], func(b *testing.B) { benchMCPSnapshot(b, bin, site+path) })
	}
}

// benchMCPSnapshot measures get_snapshot through MCP on url beside the
// floor on the same page.
func benchMCPSnapshot(b *testing.B, bin, url string) {
	srv, err := startServer(b, bin, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.close)
	fb := browsertest.NewBrowser(b, browser.Options{})
	tab := browsertest.TabOf(b, fb)
	if err := tab.Navigate(b.Context(), url); err != nil {
		b.Fatal(err)
	}
	// Both sides warm up, and show that they send images of one size.
	img, err := srv.snapshot(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	if w, h := imageSize(b, img); !sameImage(b, rawSnapshot(b, tab), w, h) {
		b.Fatalf("the floor's screenshot is not the tool's %d×%d", w, h)
	}
	var mem pssPeak
	alternate(b, func() time.Duration {
		start := time.Now()
		if _, err := srv.snapshot(b.Context()); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		mem.sample(b, srv.cmd.Process.Pid, fb.Process().Pid)
		return took
	}, func() time.Duration {
		start := time.Now()
		rawSnapshot(b, tab)
		return time.Since(start)
	})
	mem.report(b)
}

// benchReady measures the time to the first snapshot: spawning the server,
// initializing, and its first get_snapshot on url, beside launching a
// browser with the same flags, opening a tab, navigating to url and taking
// the floor's capture.
func benchReady(b *testing.B, bin, url string) {
	tool := func() time.Duration {
		start := time.Now()
		srv, err := startServer(b, bin, url)
		if err != nil {
			b.Fatal(err)
		}
		defer srv.close()
		if _, err := srv.snapshot(b.Context()); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	floor := func() time.Duration {
		ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
		defer cancel()
		start := time.Now()
		fb, err := browser.Launch(ctx, browser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer fb.Close()
		tab, err := fb.NewContext(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := tab.Navigate(ctx, url); err != nil {
			b.Fatal(err)
		}
		rawSnapshot(b, tab)
		return time.Since(start)
	}
	alternate(b, tool, floor)
}

// alternate runs the benchmark's loop, each iteration running tool and
// floor twice, in both orders, so that neither side always runs in the
// other's wake; each returns the time of what it measures. It reports the
// median time of each side and the ratio of the medians: on a busy machine
// the odd run takes twice as long.
func alternate(b *testing.B, tool, floor func() time.Duration) {
	var tools, floors []time.Duration
	for b.Loop() {
		tools = append(tools, tool())
		floors = append(floors, floor(), floor())
		tools = append(tools, tool())
	}
	t, f := median(tools), median(floors)
	b.ReportMetric(float64(t.Microseconds())/1000, "tool-ms")
	b.ReportMetric(float64(f.Microseconds())/1000, "floor-ms")
	b.ReportMetric(float64(t)/float64(f), "ratio")
}

// median is the median of ds.
func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// buildChaperone builds the chaperone command into the benchmark's
// temporary directory.
func buildChaperone(b *testing.B) string {
	b.Helper()
	bin, err := browsertest.BuildCommand(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return bin
}

// mcpServer is `chaperone serve` on stdio with its MCP client.
type mcpServer struct {
	c      *client.Client
	cmd    *exec.Cmd
	stderr *os.File
}

// startServer spawns `chaperone serve --url url` and initializes an MCP
// client over its stdio. The server's log goes to a file that a failing
// benchmark shows.
func startServer(b *testing.B, bin, url string) (*mcpServer, error) {
	stderr, err := os.CreateTemp(b.TempDir(), "stderr")
	if err != nil {
		return nil, err
	}
	s := &mcpServer{stderr: stderr}
	c, err := client.NewStdioMCPClientWithOptions(bin, nil, []string{"serve", "--url", url},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			s.cmd = exec.CommandContext(ctx, command, args...)
			return s.cmd, nil
		}),
		transport.WithCommandStderrWriter(stderr))
	if err != nil {
		stderr.Close()
		return nil, fmt.Errorf("spawn chaperone: %w", err)
	}
	s.c = c
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "chaperone-bench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		s.close()
		return nil, fmt.Errorf("initialize: %w%s", err, s.log())
	}
	return s, nil
}

// snapshot calls get_snapshot and returns the screenshot it sends.
func (s *mcpServer) snapshot(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.GetSnapshot
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("get_snapshot: %w%s", err, s.log())
	}
	for _, c := range res.Content {
		if img, ok := c.(mcp.ImageContent); ok && !res.IsError {
			return base64.StdEncoding.DecodeString(img.Data)
		}
	}
	return nil, fmt.Errorf("get_snapshot: an error or no image: %+v%s", res.Content, s.log())
}

// close closes the client, which ends the server, and waits for it to exit.
func (s *mcpServer) close() {
	s.c.Close()
	s.stderr.Close()
}

// log is the server's log so far, for an error message.
func (s *mcpServer) log() string {
	data, _ := os.ReadFile(s.stderr.Name())
	return "\nserver log:\n" + string(data)
}

// imageSize returns the size of a PNG or JPEG image.
func imageSize(b *testing.B, data []byte) (w, h int) {
	b.Helper()
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		b.Fatalf("decoding a screenshot: %v", err)
	}
	return cfg.Width, cfg.Height
}

// sameImage reports whether the image data is w×h.
func sameImage(b *testing.B, data []byte, w, h int) bool {
	b.Helper()
	iw, ih := imageSize(b, data)
	return iw == w && ih == h
}

// pssPeak keeps the peak PSS of the server's browser and of the floor's.
type pssPeak struct{ server, floor int64 }

// sample reads the PSS of the processes below the server (its browser) and
// of the floor's browser process with those below it.
func (m *pssPeak) sample(b *testing.B, server, floor int) {
	b.Helper()
	m.server = max(m.server, pss(processTree(b, server)[1:]))
	m.floor = max(m.floor, pss(processTree(b, floor)))
}

func (m *pssPeak) report(b *testing.B) {
	b.ReportMetric(float64(m.server)/(1<<20), "server-pss-MB")
	b.ReportMetric(float64(m.floor)/(1<<20), "floor-pss-MB")
	b.ReportMetric(float64(m.server)/float64(m.floor), "pss-ratio")
}

// pss sums the PSS of the processes, in bytes.
func pss(pids []int) int64 {
	var sum int64
	for _, p := range pids {
		sum += browsertest.PSS(p)
	}
	return sum
}
