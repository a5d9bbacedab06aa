// Package telemetry owns a server's metrics and traces: a Prometheus
// registry of its own (no default registry, nothing global) served as
// /metrics, and an OpenTelemetry tracer provider that exports each tool
// call's spans by OTLP over HTTP when an endpoint is set, and costs nothing
// when none is. The tools hear it through tools.Telemetry (Session is one),
// the approvers through Approver; it imports neither the browser nor MCP
// (docs/architecture.md, "The HTTP sidecar").
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config says what a Telemetry exports.
type Config struct {
	// OTLPEndpoint, when set, is where spans go by OTLP over HTTP: a
	// collector's base URL (http://127.0.0.1:4318, to which /v1/traces is
	// added) or the full URL of its traces path. Empty traces nothing.
	OTLPEndpoint string
	// Exporter, when set, receives the spans instead, as each ends (tests).
	Exporter sdktrace.SpanExporter
	// Version is the service.version the spans carry.
	Version string
	// Logger receives the exporter's failures; nil discards them.
	Logger *slog.Logger
}

// Telemetry is one server's metrics and traces. Its methods are safe for
// concurrent use.
type Telemetry struct {
	reg     *prometheus.Registry
	metrics *metrics
	// tp is nil when nothing is traced; then tracer is nil too, and no
	// span is ever started.
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
}

// New builds the registry and, when cfg names an endpoint or an exporter,
// the tracer provider.
func New(cfg Config) (*Telemetry, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Telemetry{reg: prometheus.NewRegistry()}
	t.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	t.metrics = newMetrics(t.reg)
	exp := cfg.Exporter
	sync := exp != nil
	if exp == nil && cfg.OTLPEndpoint != "" {
		var err error
		if exp, err = otlpExporter(cfg.OTLPEndpoint, log); err != nil {
			return nil, err
		}
	}
	if exp != nil {
		t.tp = newTracerProvider(exp, sync, cfg.Version)
		t.tracer = t.tp.Tracer("github.com/chaperone-mcp/chaperone")
	}
	return t, nil
}

// Tracing reports whether spans are recorded.
func (t *Telemetry) Tracing() bool { return t.tracer != nil }

// Handler serves the registry in Prometheus' text format.
func (t *Telemetry) Handler() http.Handler {
	return promhttp.HandlerFor(t.reg, promhttp.HandlerOpts{})
}

// Registry is the registry the metrics are in.
func (t *Telemetry) Registry() *prometheus.Registry { return t.reg }

// Shutdown sends the spans not yet sent, within ctx, and stops tracing.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	if err := t.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("telemetry: shut down tracing: %w", err)
	}
	return nil
}

// SessionsOpen has the sessions gauge read open, the number of browser
// sessions open now, at each scrape.
func (t *Telemetry) SessionsOpen(open func() int) {
	t.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "chaperone_sessions_open",
		Help: "Browser sessions open now (one per MCP client session).",
	}, func() float64 { return float64(open()) }))
}

// Endpoint is one browser endpoint of a pool as a scrape shows it.
type Endpoint struct {
	// Name is the endpoint without path, query or credentials.
	Name string
	// Up says it is connected and alive.
	Up bool
	// Sessions is the number of sessions placed on it.
	Sessions int
}

// Endpoints has the pool's gauges read endpoints at each scrape.
func (t *Telemetry) Endpoints(endpoints func() []Endpoint) {
	t.reg.MustRegister(newEndpointCollector(endpoints))
}

// Session is the telemetry of one browser session: tools.Telemetry.
// id names the session (a short id, as logs name it) and client its
// client (a credential's name, never its token); both go on its spans.
func (t *Telemetry) Session(id, client string) *Session {
	s := &Session{t: t}
	if t.tracer != nil {
		s.attrs = []attribute.KeyValue{attribute.String("chaperone.session", id)}
		if client != "" {
			s.attrs = append(s.attrs, attribute.String("chaperone.client", client))
		}
	}
	return s
}

// tracesPath is the OTLP/HTTP path of traces on a collector.
const tracesPath = "/v1/traces"

// TracesURL is the URL spans are sent to for the endpoint e (Config.
// OTLPEndpoint): e itself when it names a path, else e's /v1/traces. It
// refuses what is not an http or https URL with a host.
func TracesURL(e string) (string, error) {
	const want = "want an http:// or https:// URL with a host, e.g. http://127.0.0.1:4318"
	u, err := url.Parse(e)
	if err != nil {
		// Not err: it quotes the URL, and with it any password in it.
		return "", errors.New("OTLP endpoint: not a URL: " + want)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("OTLP endpoint: " + want)
	}
	if u.User != nil {
		// The exporter would drop them; headers carry a collector's
		// credentials, and a URL's would reach logs.
		return "", errors.New("OTLP endpoint: want no credentials in the URL; set them as headers in $OTEL_EXPORTER_OTLP_HEADERS")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("OTLP endpoint: want no query or fragment")
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = tracesPath
	}
	return u.String(), nil
}
