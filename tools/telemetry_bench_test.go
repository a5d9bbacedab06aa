package tools_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/telemetry"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// BenchmarkClickTelemetry is one browser_click (the button of
// BenchmarkActions' click, in place on /account) with telemetry off, with
// metrics, and with metrics and traces sent by OTLP to a collector on
// loopback: what the instrumentation costs a tool call. Each variant's
// sub-benchmark gives its allocations (-benchmem); "interleaved" clicks in
// the three sessions in turn, each on a tab of its own, so that a busy
// machine slows all three alike, and reports each one's time and the
// ratios to off.
func BenchmarkClickTelemetry(b *testing.B) {
	site := browsertest.Site(b)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	b.Cleanup(collector.Close)
	variants := []struct {
		name string
		cfg  *telemetry.Config
	}{
		{"off", nil},
		{"metrics", &telemetry.Config{}},
		{"traces", &telemetry.Config{OTLPEndpoint: collector.URL}},
	}
	// open is a session with the variant's telemetry on a fresh tab at
	// /account, and its first snapshot.
	open := func(b *testing.B, cfg *telemetry.Config) (*tools.Session, *snapshot.Snapshot) {
		tab := browsertest.Tab(b)
		var opts []tools.SessionOption
		if cfg != nil {
			tel, err := telemetry.New(*cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { tel.Shutdown(context.Background()) })
			opts = append(opts, tools.WithTelemetry(tel.Session("0123abcd", "bench")))
		}
		s := tools.NewSession(tab, tools.Config{}, opts...)
		if err := tab.Navigate(b.Context(), site+"/account"); err != nil {
			b.Fatal(err)
		}
		return s, benchCall(b, s, toolapi.GetSnapshot, nil).Value.(*snapshot.Snapshot)
	}
	click := func(b *testing.B, s *tools.Session, snap *snapshot.Snapshot) *snapshot.Snapshot {
		e, ok := snap.Find("button", "Change plan")
		if !ok {
			b.Fatalf("no Change plan on %s", snap.Page.URL)
		}
		r := benchCall(b, s, toolapi.Click, map[string]any{"ref": e.Ref}).Value.(toolapi.ActionResult)
		if !r.Success {
			b.Fatalf("click: %v %s", *r.Error, r.Message)
		}
		return r.Snapshot
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			s, snap := open(b, v.cfg)
			for b.Loop() {
				snap = click(b, s, snap)
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		sessions := make([]*tools.Session, len(variants))
		snaps := make([]*snapshot.Snapshot, len(variants))
		took := make([]time.Duration, len(variants))
		for i, v := range variants {
			sessions[i], snaps[i] = open(b, v.cfg)
		}
		n := 0
		for b.Loop() {
			for k := range variants {
				i := (n + k) % len(variants) // each goes first in turn
				start := time.Now()
				snaps[i] = click(b, sessions[i], snaps[i])
				took[i] += time.Since(start)
			}
			n++
		}
		for i, v := range variants {
			b.ReportMetric(float64(took[i].Microseconds())/float64(n)/1000, v.name+"-ms")
			if i > 0 {
				b.ReportMetric(float64(took[i])/float64(took[0]), v.name+"/off")
			}
		}
	})
}

func benchCall(b *testing.B, s *tools.Session, name string, args any) tools.Output {
	b.Helper()
	data, _ := json.Marshal(args)
	out, err := s.Call(b.Context(), name, data)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
