package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/telemetry"
	"github.com/chaperone-mcp/chaperone/tools"
)

// BenchmarkCall is what one tool call's instrumentation costs, without the
// call: the call, its settle, capture and gate phases, and the settle wait,
// with metrics only and with traces sent by OTLP to a collector on
// loopback. (Off, a session calls none of it.)
func BenchmarkCall(b *testing.B) {
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	b.Cleanup(collector.Close)
	for _, bc := range []struct {
		name string
		cfg  telemetry.Config
	}{
		{"metrics", telemetry.Config{}},
		{"traces", telemetry.Config{OTLPEndpoint: collector.URL}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tel, err := telemetry.New(bc.cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { tel.Shutdown(context.Background()) })
			s := tel.Session("0123abcd", "bench")
			ctx := context.Background()
			for b.Loop() {
				cctx, end := s.Call(ctx, "browser_click")
				for _, p := range []string{tools.PhaseGate, tools.PhaseSettle, tools.PhaseCapture} {
					pctx, endPhase := s.Phase(cctx, p)
					if p == tools.PhaseSettle {
						s.Settled(pctx, "browser_click", 20*time.Millisecond)
					}
					endPhase()
				}
				end("ok", 40_000)
			}
		})
	}
}
