package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
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
// browser session, and reports per tool the p50 and p95 latency and the
// errors; the click p95 against its fair share (click-p95-fair: the single
// client's p95, measured in the same run, stretched by clients / cores,
// since n clients on c cores each fairly get c/n of the machine); the CPU
// time per call of the server and its browser's processes, from
// /proc/<pid>/stat (cpu-ms/call, and the server's own share); and the peak
// PSS each session adds. A table per client count, with CPU and PSS by
// process kind (server, browser, renderer, GPU, utility), goes to the log.
// BenchmarkLoadFloor (package browser) is the same flow with raw protocol
// calls; `make bench-load` runs both. Run it with -benchtime 3x or more.
func BenchmarkLoad(b *testing.B) {
	site := browsertest.Site(b)
	// single holds the one client's get_snapshot and click p95.
	var single [2]time.Duration
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
			pid := p.cmd.Process.Pid
			base := browsertest.PSSByKind(pid)
			mem := browsertest.WatchPSS(pid, 50*time.Millisecond)
			cpuStart := browsertest.SnapshotCPU(pid)
			phases := scrapePhases(b, p.base) // phases_bench_test.go
			lat := latencies{}
			errs := 0
			// seen counts the errors by message: the benchmark's log keeps
			// only its first lines, and the table comes first.
			seen := map[string]int{}
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
						msg := r.err.Error()
						if len(msg) > 100 {
							msg = msg[:100] + "…"
						}
						seen[msg]++
					}
				}
			}
			cpu := browsertest.SnapshotCPU(pid).Since(cpuStart)
			scrapePhases(b, p.base).report(b, phases)
			peak, peakKinds := mem.Stop()
			for _, name := range []string{firstSnapshot, toolapi.GetSnapshot, toolapi.Click, toolapi.Select, toolapi.CompleteTask} {
				short := strings.TrimPrefix(name, "browser_")
				b.ReportMetric(ms(lat.quantile(name, 0.5)), short+"-p50-ms")
				b.ReportMetric(ms(lat.quantile(name, 0.95)), short+"-p95-ms")
			}
			b.ReportMetric(float64(errs), "errors")
			perSession := float64(peak-base.Total()) / float64(n) / (1 << 20)
			b.ReportMetric(perSession, "pss-MB/session")
			calls := lat.calls()
			b.ReportMetric(float64(cpu.Total())/1e6/float64(calls), "cpu-ms/call")
			b.ReportMetric(float64(cpu[browsertest.KindServer])/1e6/float64(calls), "server-cpu-ms/call")
			snap, click := lat.quantile(toolapi.GetSnapshot, 0.95), lat.quantile(toolapi.Click, 0.95)
			if n == 1 {
				single = [2]time.Duration{snap, click}
			}
			// On c cores n clients fairly get min(1, c/n) of the machine
			// each: the single client's p95 stretched by n/c.
			stretch := max(1, float64(n)/float64(runtime.NumCPU()))
			if single[0] > 0 {
				b.ReportMetric(float64(snap)/float64(single[0]), "snapshot-p95-x1")
				b.ReportMetric(float64(click)/(stretch*float64(single[1])), "click-p95-fair")
			}
			growth := byKindDelta(peakKinds, base)
			b.Logf("\n%d clients, %d flows, %d calls, %d errors; %d cores\n"+
				"click p50 %.0f ms, p95 %.0f ms (fair share %.0f ms: %.2f×)\n"+
				"get_snapshot p50 %.0f ms, p95 %.0f ms\n"+
				"CPU ms per call: %.1f (%s)\n"+
				"PSS: base %.0f MB (%s); peak %.0f MB; per session %.1f MB (peak growth per kind: %s)\n"+
				"processes seen: %v\n"+
				"errors: %v",
				n, b.N*n, calls, errs, runtime.NumCPU(),
				ms(lat.quantile(toolapi.Click, 0.5)), ms(click), stretch*ms(single[1]), float64(click)/(stretch*float64(single[1])),
				ms(lat.quantile(toolapi.GetSnapshot, 0.5)), ms(snap),
				float64(cpu.Total())/1e6/float64(calls), browsertest.FormatKinds(cpu, 1e6*float64(calls), "%.1f"),
				float64(base.Total())/(1<<20), browsertest.FormatKinds(base, 1<<20, "%.0f"), float64(peak)/(1<<20), perSession,
				browsertest.FormatKinds(growth, float64(n)*(1<<20), "%.1f"),
				mem.Processes(), seen)
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// byKindDelta is what each kind of process added from base to peak.
func byKindDelta(peak, base browsertest.ByKind) browsertest.ByKind {
	out := browsertest.ByKind{}
	for k, v := range peak {
		out[k] = v - base[k]
	}
	return out
}

// calls counts every call timed.
func (l latencies) calls() int {
	n := 0
	for _, ds := range l {
		n += len(ds)
	}
	return n
}

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
	var page *snapshot.Snapshot // the page as the client has it
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
			var text []string
			for _, c := range res.Content {
				if t, ok := c.(mcp.TextContent); ok {
					text = append(text, t.Text)
				}
			}
			return nil, fmt.Errorf("%s: error result: %s %s", name, data, strings.Join(text, " "))
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
		var action toolapi.ActionResult
		_ = json.Unmarshal(data, &action)
		switch {
		case out.Error != nil:
			return nil, fmt.Errorf("%s: %s: %s", name, *out.Error, out.Message)
		case out.Acked != nil && !*out.Acked:
			return nil, fmt.Errorf("%s: not acknowledged: %s", name, out.Message)
		case action.Delta != nil:
			// A delta of the page the client has (--snapshot-delta).
			next, ok := snapshot.Apply(page, action.Delta)
			if !ok {
				return nil, fmt.Errorf("%s: a delta of %s, not of the page the client has", name, action.Delta.Of)
			}
			page = next
			return page, nil
		case out.Inner != nil:
			page = out.Inner
			return page, nil
		}
		page = &out.Snapshot
		return page, nil
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
