package main

import (
	"flag"
	"log/slog"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// The observability flags: what they start, what they refuse (saying why,
// never repeating a password), and the metrics listener reserved from the
// browser.
func TestObsFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name               string
		args               []string
		overHTTP           bool
		wantErr            string
		wantTel, wantTrace bool
		wantListener       bool
	}{
		{name: "stdio, nothing asked", args: nil},
		{name: "http", overHTTP: true, wantTel: true},
		{name: "stdio, metrics listener", args: []string{"--metrics-listen", "0"}, wantTel: true, wantListener: true},
		{name: "traces", args: []string{"--otel-endpoint", "http://127.0.0.1:4318"}, wantTel: true, wantTrace: true},
		{name: "traces, no scheme", args: []string{"--otel-endpoint", "127.0.0.1:4318"}, wantErr: "--otel-endpoint: OTLP endpoint: not a URL"},
		{name: "traces, gRPC", args: []string{"--otel-endpoint", "grpc://127.0.0.1:4317"}, wantErr: "http:// or https://"},
		{name: "traces, a password", args: []string{"--otel-endpoint", "https://me:hunter2hunter2@collector.example"}, wantErr: "OTEL_EXPORTER_OTLP_HEADERS"},
		{name: "metrics listener, no port", args: []string{"--metrics-listen", "127.0.0.1:"}, wantErr: "--metrics-listen"},
		{name: "metrics listener, every interface", args: []string{"--metrics-listen", "0.0.0.0:0"}, wantErr: "without a token"},
		{name: "metrics listener, every IPv6 interface", args: []string{"--metrics-listen", "[::]:0"}, wantErr: "without a token"},
		{name: "metrics listener, a name", args: []string{"--metrics-listen", "metrics.example:9464"}, wantErr: "without a token"},
		{name: "metrics listener, localhost", args: []string{"--metrics-listen", "localhost:0"}, wantTel: true, wantListener: true},
		{name: "metrics listener, another loopback address", args: []string{"--metrics-listen", "127.0.0.2:0"}, wantTel: true, wantListener: true},
		{name: "metrics listener, not an address", args: []string{"--metrics-listen", "a:b:c"}, wantErr: "--metrics-listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			of := addObsFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			var policy urlpolicy.Policy
			obs, stop, err := of.start(slog.New(slog.DiscardHandler), tc.overHTTP, nil, &policy)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("error %v, want one saying %q, without the password", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			if (obs.tel != nil) != tc.wantTel || (obs.tel != nil && obs.tel.Tracing() != tc.wantTrace) {
				t.Errorf("telemetry %v (tracing %v), want %v (%v)", obs.tel != nil, obs.tel != nil && obs.tel.Tracing(), tc.wantTel, tc.wantTrace)
			}
			if (obs.ln != nil) != tc.wantListener {
				t.Fatalf("listener %v, want %v", obs.ln, tc.wantListener)
			}
			if obs.ln != nil {
				addr := obs.ln.Addr().String()
				if !server.IsLoopback(addr) {
					t.Errorf("listens on %s, want loopback", addr)
				}
				port := addr[strings.LastIndex(addr, ":")+1:]
				for _, u := range []string{"http://" + addr + "/metrics", "http://localhost:" + port + "/metrics", "http://[::1]:" + port + "/", "http://127.0.0.1:" + port + "/"} {
					if policy.Check(u) == nil {
						t.Errorf("the browser may open %s", u)
					}
				}
			}
		})
	}
}
