package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// loadClients are the numbers of concurrent clients BenchmarkLoad runs.
var loadClients = []int{1, 4, 8, 16}

// BenchmarkLoad runs the demo flow (snapshot, the cancellation clicks, the
// survey's select, complete_task) in 1, 4, 8 and 16 concurrent MCP clients
// over streamable HTTP against the built binary, each client in its own
// browser session, and reports per tool the p50 and p95 latency, the
// errors, and the peak PSS each session adds to the server's processes
// (the server and its browser). The single client's p95 get_snapshot,
// measured in the same run, is the floor the others are reported against
// (snapshot-p95-x1). Run it with -benchtime 3x or more.
func BenchmarkLoad(b *testing.B) {
	site := browsertest.Site(b)
	var single time.Duration
	for _, n := range loadClients {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			p := startServe(b, nil, "serve", "--http", "127.0.0.1:0", "--profile", "none",
				"--max-sessions", "32", "--url", site+"/account")
			// One client first, so that the browser has started and
			// warmed up and its first session has come and gone: what
			// is left is the base each session adds to.
			if r := runFlow(b.Context(), p.base); r.err != nil {
				b.Fatalf("warm-up: %v", r.err)
			}
			var mem pssWatch
			base := mem.now(p.cmd.Process.Pid)
			mem.start(p.cmd.Process.Pid)
			lat := latencies{}
			errs := 0
			for b.Loop() {
				var wg sync.WaitGroup
				results := make([]flowResult, n)
				for i := range n {
					wg.Go(func() { results[i] = runFlow(b.Context(), p.base) })
				}
				wg.Wait()
				for _, r := range results {
					lat.add(r.took)
					if r.err != nil {
						errs++
						b.Logf("client error: %v", r.err)
					}
				}
			}
			peak := mem.stop()
			for _, name := range []string{firstSnapshot, toolapi.GetSnapshot, toolapi.Click, toolapi.Select, toolapi.CompleteTask} {
				short := strings.TrimPrefix(name, "browser_")
				b.ReportMetric(ms(lat.quantile(name, 0.5)), short+"-p50-ms")
				b.ReportMetric(ms(lat.quantile(name, 0.95)), short+"-p95-ms")
			}
			b.ReportMetric(float64(errs), "errors")
			b.ReportMetric(float64(peak-base)/float64(n)/(1<<20), "pss-MB/session")
			p95 := lat.quantile(toolapi.GetSnapshot, 0.95)
			if n == 1 {
				single = p95
			}
			if single > 0 {
				b.ReportMetric(float64(p95)/float64(single), "snapshot-p95-x1")
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// latencies keeps every call's time, by tool.
type latencies map[string][]time.Duration

func (l latencies) add(took map[string][]time.Duration) {
	for name, ds := range took {
		l[name] = append(l[name], ds...)
	}
}

// quantile is the q-quantile of the tool's times (nearest rank).
func (l latencies) quantile(name string, q float64) time.Duration {
	ds := slices.Clone(l[name])
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

// firstSnapshot names the first get_snapshot of a client, which opens its
// browser session (a context, a page, the start URL) and so is timed apart.
const firstSnapshot = "first_snapshot"

// flowResult is what one client's run of the flow measured.
type flowResult struct {
	took map[string][]time.Duration
	err  error
}

// runFlow connects a client, runs the demo flow to the cancelled page and
// complete_task, and disconnects, which ends its browser session.
func runFlow(ctx context.Context, base string) (r flowResult) {
	r.took = map[string][]time.Duration{}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	c, err := client.NewStreamableHttpClient(base+"/mcp", transport.WithHTTPBasicClient(&http.Client{}))
	if err != nil {
		return flowResult{err: err}
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return flowResult{err: err}
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "chaperone-load", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return flowResult{err: fmt.Errorf("initialize: %w", err)}
	}
	first := true
	call := func(name string, args map[string]any) (*snapshot.Snapshot, error) {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		start := time.Now()
		res, err := c.CallTool(ctx, req)
		timed := name
		if first {
			timed, first = firstSnapshot, false
		}
		r.took[timed] = append(r.took[timed], time.Since(start))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		data, _ := json.Marshal(res.StructuredContent)
		if res.IsError {
			return nil, fmt.Errorf("%s: error result: %s", name, data)
		}
		var out struct {
			snapshot.Snapshot
			Success *bool              `json:"success"`
			Error   *string            `json:"error"`
			Message string             `json:"message"`
			Inner   *snapshot.Snapshot `json:"snapshot"`
			Acked   *bool              `json:"acknowledged"`
		}
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		switch {
		case out.Error != nil:
			return nil, fmt.Errorf("%s: %s: %s", name, *out.Error, out.Message)
		case out.Acked != nil && !*out.Acked:
			return nil, fmt.Errorf("%s: not acknowledged: %s", name, out.Message)
		case out.Inner != nil:
			return out.Inner, nil
		}
		return &out.Snapshot, nil
	}
	act := func(s *snapshot.Snapshot, tool, role, name string, extra map[string]any) (*snapshot.Snapshot, error) {
		if role == "" {
			return call(tool, nil)
		}
		e, ok := s.Find(role, name)
		if !ok {
			return nil, fmt.Errorf("no %s %q on %s", role, name, s.Page.URL)
		}
		args := map[string]any{"ref": e.Ref}
		for k, v := range extra {
			args[k] = v
		}
		return call(tool, args)
	}
	s, err := call(toolapi.GetSnapshot, nil)
	steps := []struct {
		tool, role, name string
		extra            map[string]any
	}{
		{toolapi.Click, "button", "Cancel Membership", nil},
		{toolapi.GetSnapshot, "", "", nil},
		{toolapi.Click, "button", "Continue to Cancel", nil},
		{toolapi.Click, "radio", "too expensive", nil},
		{toolapi.Select, "combobox", "How long were you a member?", map[string]any{"value": "1 to 3 years"}},
		{toolapi.Click, "button", "Continue", nil},
		{toolapi.GetSnapshot, "", "", nil},
		{toolapi.Click, "button", "Finish Cancellation", nil},
	}
	for _, st := range steps {
		if err != nil {
			return flowResult{took: r.took, err: err}
		}
		s, err = act(s, st.tool, st.role, st.name, st.extra)
	}
	if err != nil {
		return flowResult{took: r.took, err: err}
	}
	if _, err := call(toolapi.CompleteTask, map[string]any{"status": "success", "reason": "the page says the membership is cancelled"}); err != nil {
		return flowResult{took: r.took, err: err}
	}
	return r
}

// pssWatch samples the PSS of a process and everything below it every 50 ms
// and keeps the peak.
type pssWatch struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak int64
}

func (w *pssWatch) start(pid int) {
	w.done = make(chan struct{})
	w.wg.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			v := w.now(pid)
			w.mu.Lock()
			w.peak = max(w.peak, v)
			w.mu.Unlock()
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	})
}

// now is the PSS of pid's process tree at this moment, in bytes.
func (w *pssWatch) now(pid int) int64 { return browsertest.TreePSS(pid) }

// stop ends the sampling and returns the peak.
func (w *pssWatch) stop() int64 {
	close(w.done)
	w.wg.Wait()
	return w.peak
}
