package tools_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/telemetry"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// BenchmarkClickTelemetry is one browser_click (the button of
// BenchmarkActions' click, in place on /account) with telemetry off, with
// metrics, and with metrics and traces sent by OTLP to a collector on
// loopback: what the instrumentation costs a tool call, in time and
// allocations (-benchmem).
func BenchmarkClickTelemetry(b *testing.B) {
	site := browsertest.Site(b)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	b.Cleanup(collector.Close)
	for _, bc := range []struct {
		name string
		cfg  *telemetry.Config
	}{
		{"off", nil},
		{"metrics", &telemetry.Config{}},
		{"traces", &telemetry.Config{OTLPEndpoint: collector.URL}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tab := browsertest.Tab(b)
			var opts []tools.SessionOption
			if bc.cfg != nil {
				tel, err := telemetry.New(*bc.cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { tel.Shutdown(b.Context()) })
				opts = append(opts, tools.WithTelemetry(tel.Session("0123abcd", "bench")))
			}
			s := tools.NewSession(tab, tools.Config{}, opts...)
			if err := tab.Navigate(b.Context(), site+"/account"); err != nil {
				b.Fatal(err)
			}
			snap := benchCall(b, s, toolapi.GetSnapshot, nil).Value.(*snapshot.Snapshot)
			for b.Loop() {
				e, ok := snap.Find("button", "Change plan")
				if !ok {
					b.Fatalf("no Change plan on %s", snap.Page.URL)
				}
				r := benchCall(b, s, toolapi.Click, map[string]any{"ref": e.Ref}).Value.(toolapi.ActionResult)
				if !r.Success {
					b.Fatalf("click: %v %s", *r.Error, r.Message)
				}
				snap = r.Snapshot
			}
		})
	}
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
