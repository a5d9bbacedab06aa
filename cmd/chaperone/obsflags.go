package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/telemetry"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// obsFlags are the flags of observability: where /metrics is served
// besides the MCP listener, and where traces go.
type obsFlags struct {
	metricsListen string
	otelEndpoint  string
}

// addObsFlags defines the observability flags on fs.
func addObsFlags(fs *flag.FlagSet) *obsFlags {
	o := &obsFlags{}
	fs.StringVar(&o.metricsListen, "metrics-listen", "", "serve Prometheus metrics at /metrics on `addr`, a loopback host:port (a bare port means 127.0.0.1), without the MCP token;\nwith --http they are also at /metrics on the MCP listener, behind its token (for scrapes from elsewhere)")
	fs.StringVar(&o.otelEndpoint, "otel-endpoint", "", "send a trace of each tool call (settle, capture, gate, approval spans) by OTLP over HTTP to this collector `URL`\n(e.g. http://127.0.0.1:4318; /v1/traces is added when it has no path; headers from $OTEL_EXPORTER_OTLP_HEADERS)")
	return o
}

// observability is what the flags started: the telemetry (nil when nothing
// asks for it) and the metrics listener (nil without --metrics-listen).
type observability struct {
	tel *telemetry.Telemetry
	ln  net.Listener
	cfg server.MetricsConfig
}

// start checks the flags and starts what they ask for: the telemetry when
// there is somewhere to read it (overHTTP, --metrics-listen or
// --otel-endpoint), and the metrics listener, whose address joins policy's
// reserved ones: the browser the agent drives never reads the server's
// metrics. Its close closes the listener.
func (o *obsFlags) start(log *slog.Logger, overHTTP bool, allowedHosts []string, policy *urlpolicy.Policy) (*observability, func(), error) {
	obs := &observability{}
	if o.otelEndpoint != "" {
		if _, err := telemetry.TracesURL(o.otelEndpoint); err != nil {
			return nil, nil, fmt.Errorf("--otel-endpoint: %w", err)
		}
	}
	if o.metricsListen != "" {
		addr, err := server.ListenAddr(o.metricsListen)
		if err != nil {
			return nil, nil, fmt.Errorf("--metrics-listen: %w", err)
		}
		if !server.IsLoopback(addr) {
			// As for --http: beyond loopback only with a token, and this
			// listener has none.
			return nil, nil, fmt.Errorf("--metrics-listen: refusing to serve metrics on %s without a token: anyone who can reach it would read "+
				"every client's activity and the pool's endpoints. Listen on 127.0.0.1, or scrape /metrics on the --http listener with a token "+
				"(Prometheus: authorization: {credentials: …})", addr)
		}
		if obs.ln, err = net.Listen("tcp", addr); err != nil {
			return nil, nil, fmt.Errorf("--metrics-listen: %w", err)
		}
		if err := reserve(policy, obs.ln.Addr().String()); err != nil {
			obs.ln.Close()
			return nil, nil, err
		}
		obs.cfg = server.MetricsConfig{Addr: addr, AllowedHosts: allowedHosts, Logger: log}
	}
	closeAll := func() {
		if obs.ln != nil {
			obs.ln.Close()
		}
	}
	if !overHTTP && obs.ln == nil && o.otelEndpoint == "" {
		return obs, closeAll, nil
	}
	tel, err := telemetry.New(telemetry.Config{OTLPEndpoint: o.otelEndpoint, Version: version(), Logger: log})
	if err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("--otel-endpoint: %w", err)
	}
	obs.tel = tel
	if tel.Tracing() {
		u, _ := telemetry.TracesURL(o.otelEndpoint)
		log.Info("tracing tool calls by OTLP", "endpoint", fleet.EndpointName(u))
	}
	return obs, func() {
		closeAll()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tel.Shutdown(ctx); err != nil {
			log.Warn("traces not all sent", "err", err)
		}
	}, nil
}

// serve serves the metrics listener, if there is one, until ctx ends.
func (obs *observability) serve(ctx context.Context, log *slog.Logger) {
	if obs.ln == nil {
		return
	}
	obs.cfg.Handler = obs.tel.Handler()
	log.Info("serving metrics", "addr", obs.ln.Addr().String(), "path", "/metrics")
	go func() {
		if err := server.ServeMetrics(ctx, obs.ln, obs.cfg); err != nil && ctx.Err() == nil {
			log.Warn("metrics listener stopped", "err", err)
		}
	}()
}

// watch has the telemetry read the sessions open and the pool's endpoints
// at each scrape.
func (obs *observability) watch(srv *server.Server, f *fleet.Fleet) {
	if obs.tel == nil {
		return
	}
	obs.tel.SessionsOpen(srv.OpenSessions)
	obs.tel.Endpoints(func() []telemetry.Endpoint {
		var eps []telemetry.Endpoint
		for _, e := range f.Endpoints() {
			eps = append(eps, telemetry.Endpoint{Name: e.Name, Up: e.Up, Sessions: e.Sessions})
		}
		return eps
	})
}
