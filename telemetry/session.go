package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Session is the telemetry of one browser session: each tool call counted
// and timed, and, when tracing, a span per call with a child per phase. It
// implements tools.Telemetry.
type Session struct {
	t *Telemetry
	// attrs go on each call's span: the session's short id and client.
	attrs []attribute.KeyValue
}

// Call begins a tool call of tool. end ends it with the result's code ("ok"
// or an error code of toolapi) and the bytes of the screenshot it carries.
func (s *Session) Call(ctx context.Context, tool string) (context.Context, func(code string, screenshot int)) {
	start := time.Now()
	var span trace.Span
	if s.t.tracer != nil {
		ctx, span = s.t.tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(s.attrs...), trace.WithAttributes(attribute.String("chaperone.tool", tool)))
	}
	return ctx, func(code string, screenshot int) {
		m := s.t.metrics
		m.calls.WithLabelValues(tool, code).Inc()
		m.latency.WithLabelValues(tool).Observe(time.Since(start).Seconds())
		if screenshot > 0 {
			m.shotBytes.Add(float64(screenshot))
		}
		if span == nil {
			return
		}
		span.SetAttributes(attribute.String("chaperone.code", code))
		if code != "ok" {
			span.SetStatus(codes.Error, code)
		}
		span.End()
	}
}

// Phase begins a part of the call in ctx (settle, capture, gate): a child
// of its span, and a time in the phase histogram. end ends it.
func (s *Session) Phase(ctx context.Context, phase string) (context.Context, func()) {
	start := time.Now()
	var span trace.Span
	if s.t.tracer != nil {
		ctx, span = s.t.tracer.Start(ctx, phase)
	}
	return ctx, func() {
		s.t.metrics.phases.WithLabelValues(phase).Observe(time.Since(start).Seconds())
		if span != nil {
			span.End()
		}
	}
}

// Settled observes how long the page of tool's action took to settle
// after its input, on the settle span in ctx too.
func (s *Session) Settled(ctx context.Context, tool string, wait time.Duration) {
	s.t.metrics.settle.WithLabelValues(tool).Observe(wait.Seconds())
	if s.t.tracer != nil {
		trace.SpanFromContext(ctx).SetAttributes(attribute.Float64("chaperone.settle.wait_seconds", wait.Seconds()))
	}
}
