package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// otlpExporter sends spans to the OTLP/HTTP endpoint e. The exporter also
// reads the OTEL_EXPORTER_OTLP_* environment (headers, timeout, TLS); the
// endpoint is e's.
func otlpExporter(e string, log *slog.Logger) (sdktrace.SpanExporter, error) {
	u, err := TracesURL(e)
	if err != nil {
		return nil, err
	}
	// New makes no connection: a collector that is down only fails exports.
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(u))
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	return &loggedExporter{SpanExporter: exp, log: log}, nil
}

// loggedExporter logs an exporter's failures through the server's logger,
// once when sending starts to fail and once when it works again, rather
// than through OpenTelemetry's global error handler: a collector that is
// down must neither flood the log nor slow a tool call (spans wait in the
// batch processor's bounded queue, and are dropped when it is full).
type loggedExporter struct {
	sdktrace.SpanExporter
	log     *slog.Logger
	failing atomic.Bool
}

// ExportSpans implements sdktrace.SpanExporter.
func (e *loggedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	switch {
	case err != nil && !e.failing.Swap(true):
		e.log.Warn("traces: sending spans to the OTLP endpoint fails; spans are dropped until it works", "err", err, "spans", len(spans))
	case err == nil && e.failing.Swap(false):
		e.log.Info("traces: sending spans to the OTLP endpoint works again")
	}
	// Reported here; the processor's own report goes to the global handler.
	return nil
}

// newTracerProvider is the provider of spans sent to exp: in batches, or
// one by one as each ends when sync (tests). It samples as
// $OTEL_TRACES_SAMPLER says, every trace by default.
func newTracerProvider(exp sdktrace.SpanExporter, sync bool, version string) *sdktrace.TracerProvider {
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", "chaperone"), attribute.String("service.version", version)))
	if err != nil {
		res = resource.NewSchemaless(attribute.String("service.name", "chaperone"))
	}
	proc := sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(2*time.Second))
	if sync {
		proc = sdktrace.WithSyncer(exp)
	}
	return sdktrace.NewTracerProvider(proc, sdktrace.WithResource(res))
}
