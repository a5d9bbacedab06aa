package tools

import (
	"context"
	"time"
)

// Telemetry hears where a session's tool calls spend their time, for
// metrics and traces (telemetry.Session is one). A session without one
// measures nothing and pays nothing for it.
type Telemetry interface {
	// Call begins a tool call; end ends it with the result's code ("ok" or
	// a toolapi code) and the bytes of the screenshot the result carries.
	Call(ctx context.Context, tool string) (_ context.Context, end func(code string, screenshot int))
	// Phase begins a part of the call in ctx (PhaseSettle, PhaseCapture,
	// PhaseGate); end ends it. The context it returns is the phase's, for
	// what runs within it (a gate's approval).
	Phase(ctx context.Context, phase string) (_ context.Context, end func())
	// Settled observes how long an action's page took to settle once its
	// input returned (the settle phase less the input); ctx is the settle
	// phase's.
	Settled(ctx context.Context, tool string, wait time.Duration)
}

// The phases of a tool call a Telemetry hears of.
const (
	// PhaseSettle is an action's input and the wait for the page after it.
	PhaseSettle = "settle"
	// PhaseCapture is a look at the page: a snapshot, a whole-page capture
	// for the gate or verification, a screenshot for a person.
	PhaseCapture = "capture"
	// PhaseGate is a checkpoint decision, a person's approval included.
	PhaseGate = "gate"
)

// WithTelemetry has the session's calls heard by t.
func WithTelemetry(t Telemetry) SessionOption {
	return func(s *Session) { s.tel = t }
}

// phase begins a phase of the call in ctx when the session has a
// Telemetry; otherwise it returns ctx and an end that does nothing.
func (s *Session) phase(ctx context.Context, name string) (context.Context, func()) {
	if s.tel == nil {
		return ctx, nothing
	}
	return s.tel.Phase(ctx, name)
}

// callTelemetry begins the call c in ctx when the session has a Telemetry.
func (s *Session) callTelemetry(ctx context.Context, c *call) (context.Context, func(code string, screenshot int)) {
	if s.tel == nil {
		return ctx, nil
	}
	return s.tel.Call(ctx, c.tool)
}

func nothing() {}
