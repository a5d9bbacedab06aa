package telemetry

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// Approver is a, counted: the requests waiting for a person, how long each
// waited and how it ended, and, when tracing, an approval span under the
// span in the request's context (the gate's).
func (t *Telemetry) Approver(a checkpoint.Approver) checkpoint.Approver {
	return approver{next: a, t: t}
}

type approver struct {
	next checkpoint.Approver
	t    *Telemetry
}

// Approve implements checkpoint.Approver.
func (a approver) Approve(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	m := a.t.metrics
	m.waiting.Inc()
	start := time.Now()
	var span trace.Span
	if a.t.tracer != nil {
		// The kind only: the request's action, URL and words are the
		// page's and the agent's, never a span's.
		ctx, span = a.t.tracer.Start(ctx, "approval", trace.WithAttributes(attribute.String("chaperone.approval.kind", string(r.Kind))))
	}
	d, err := a.next.Approve(ctx, r)
	m.waiting.Dec()
	outcome := approvalOutcome(ctx, d, err)
	m.approvalWait.WithLabelValues(outcome).Observe(time.Since(start).Seconds())
	if span != nil {
		span.SetAttributes(attribute.String("chaperone.approval.outcome", outcome))
		if err == nil {
			span.SetAttributes(attribute.String("chaperone.approval.channel", string(d.Channel)))
		}
		span.End()
	}
	return d, err
}

// approvalOutcome says how an approval request ended, in a word of a closed
// set.
func approvalOutcome(ctx context.Context, d checkpoint.Decision, err error) string {
	switch {
	case ctx.Err() != nil:
		return "withdrawn"
	case errors.Is(err, checkpoint.ErrNoApprover):
		return "unavailable"
	case err != nil:
		return "failed"
	case d.Approved:
		return "approved"
	}
	return "rejected"
}
