package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/telemetry"
	"github.com/chaperone-mcp/chaperone/tools"
)

// A Session is what a tools.Session hears through.
var _ tools.Telemetry = (*telemetry.Session)(nil)

// scrape reads t's handler as Prometheus does.
func scrape(t *testing.T, tel *telemetry.Telemetry) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var p expfmt.TextParser
	body := rec.Body.String()
	m, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("not Prometheus' text format: %v\n%s", err, body)
	}
	return m, body
}

// value is the value (a histogram's count) of the metric name whose labels
// include labels.
func value(m map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	for _, x := range m[name].GetMetric() {
		have := map[string]string{}
		for _, l := range x.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		ok := true
		for i := 0; i+1 < len(labels); i += 2 {
			ok = ok && have[labels[i]] == labels[i+1]
		}
		if !ok {
			continue
		}
		switch {
		case x.GetCounter() != nil:
			return x.GetCounter().GetValue()
		case x.GetGauge() != nil:
			return x.GetGauge().GetValue()
		case x.GetHistogram() != nil:
			return float64(x.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// A call's span is the root of its phases; an approval asked within the
// gate phase is the gate's child, whatever the approver.
func TestSpanTree(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tel, err := telemetry.New(telemetry.Config{Exporter: exp})
	if err != nil {
		t.Fatal(err)
	}
	person := tel.Approver(checkpoint.ApproverFunc(func(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
		return checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWeb}, nil
	}))
	s := tel.Session("0123abcd", "alice")
	ctx, end := s.Call(context.Background(), "browser_click")
	sctx, endSettle := s.Phase(ctx, tools.PhaseSettle)
	s.Settled(sctx, "browser_click", 30*time.Millisecond)
	endSettle()
	gctx, endGate := s.Phase(ctx, tools.PhaseGate)
	if _, err := person.Approve(gctx, checkpoint.Request{Kind: checkpoint.KindCheckpoint, Action: `click button "Pay"`, URL: "https://shop.example/pay?card=4242"}); err != nil {
		t.Fatal(err)
	}
	endGate()
	_, endCapture := s.Phase(ctx, tools.PhaseCapture)
	endCapture()
	end("ok", 1234)

	spans := exp.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	for _, sp := range spans {
		byName[sp.Name] = sp
	}
	root := byName["tools/call browser_click"]
	if root.Parent.IsValid() {
		t.Errorf("the call's span has a parent: %v", root.Parent)
	}
	for child, parent := range map[string]string{"settle": root.Name, "gate": root.Name, "capture": root.Name, "approval": "gate"} {
		sp, ok := byName[child]
		if !ok {
			t.Errorf("no %s span among %d", child, len(spans))
			continue
		}
		if sp.Parent.SpanID() != byName[parent].SpanContext.SpanID() || sp.SpanContext.TraceID() != root.SpanContext.TraceID() {
			t.Errorf("%s's parent is not %s", child, parent)
		}
	}
	attrs := map[string]string{}
	for _, sp := range spans {
		for _, kv := range sp.Attributes {
			attrs[sp.Name+" "+string(kv.Key)] = kv.Value.Emit()
		}
	}
	for k, want := range map[string]string{
		"tools/call browser_click chaperone.tool":    "browser_click",
		"tools/call browser_click chaperone.code":    "ok",
		"tools/call browser_click chaperone.session": "0123abcd",
		"tools/call browser_click chaperone.client":  "alice",
		"settle chaperone.settle.wait_seconds":       "0.03",
		"approval chaperone.approval.outcome":        "approved",
		"approval chaperone.approval.channel":        "web",
	} {
		if attrs[k] != want {
			t.Errorf("%s = %q, want %q", k, attrs[k], want)
		}
	}
	// What the person was asked about is the page's and the agent's.
	for k, v := range attrs {
		if strings.Contains(v, "Pay") || strings.Contains(v, "shop.example") {
			t.Errorf("%s carries the request's words or URL: %q", k, v)
		}
	}

	m, _ := scrape(t, tel)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"chaperone_tool_calls_total", []string{"tool", "browser_click", "code", "ok"}, 1},
		{"chaperone_tool_call_duration_seconds", []string{"tool", "browser_click"}, 1},
		{"chaperone_settle_wait_seconds", []string{"tool", "browser_click"}, 1},
		{"chaperone_tool_call_phase_seconds", []string{"phase", "gate"}, 1},
		{"chaperone_approval_wait_seconds", []string{"outcome", "approved"}, 1},
		{"chaperone_approvals_waiting", nil, 0},
		{"chaperone_screenshot_bytes_total", nil, 1234},
	} {
		if got := value(m, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

// Without an endpoint nothing is traced, and the metrics still count.
func TestNoTracing(t *testing.T) {
	tel, err := telemetry.New(telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if tel.Tracing() {
		t.Fatal("tracing without an endpoint")
	}
	s := tel.Session("0123abcd", "")
	ctx := context.Background()
	cctx, end := s.Call(ctx, "get_snapshot")
	pctx, endPhase := s.Phase(cctx, tools.PhaseCapture)
	if cctx != ctx || pctx != ctx {
		t.Error("a call untraced still made a context of its own")
	}
	endPhase()
	end("timeout", 0)
	m, _ := scrape(t, tel)
	if got := value(m, "chaperone_tool_calls_total", "tool", "get_snapshot", "code", "timeout"); got != 1 {
		t.Errorf("calls: %v", got)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}

// Each way an approval ends is counted as one word, and the gauge counts
// the one waiting while it waits.
func TestApprovalOutcomes(t *testing.T) {
	tel, err := telemetry.New(telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	waitingSeen := -1.0
	for _, tc := range []struct {
		outcome string
		answer  func(ctx context.Context) (checkpoint.Decision, error)
		cancel  bool
	}{
		{"approved", func(context.Context) (checkpoint.Decision, error) {
			m, _ := scrape(t, tel)
			waitingSeen = value(m, "chaperone_approvals_waiting")
			return checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY}, nil
		}, false},
		{"rejected", func(context.Context) (checkpoint.Decision, error) {
			return checkpoint.Decision{Channel: checkpoint.ChannelWebhook}, nil
		}, false},
		{"unavailable", func(context.Context) (checkpoint.Decision, error) {
			return checkpoint.Decision{}, fmt.Errorf("elicitation: %w", checkpoint.ErrNoApprover)
		}, false},
		{"failed", func(context.Context) (checkpoint.Decision, error) {
			return checkpoint.Decision{}, errors.New("webhook: 500")
		}, false},
		{"withdrawn", func(ctx context.Context) (checkpoint.Decision, error) {
			<-ctx.Done()
			return checkpoint.Decision{}, ctx.Err()
		}, true},
	} {
		a := tel.Approver(checkpoint.ApproverFunc(func(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
			return tc.answer(ctx)
		}))
		ctx, cancel := context.WithCancel(context.Background())
		if tc.cancel {
			cancel()
		}
		a.Approve(ctx, checkpoint.Request{Kind: checkpoint.KindAgent})
		cancel()
		m, _ := scrape(t, tel)
		if got := value(m, "chaperone_approval_wait_seconds", "outcome", tc.outcome); got != 1 {
			t.Errorf("%s: %v", tc.outcome, got)
		}
	}
	if waitingSeen != 1 {
		t.Errorf("approvals waiting during an approval: %v, want 1", waitingSeen)
	}
}

// A pool's endpoints are gauges by name and place; two endpoints of one
// host and port (a browserless with two tokens) stay two series.
func TestEndpoints(t *testing.T) {
	tel, err := telemetry.New(telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var eps []telemetry.Endpoint
	tel.Endpoints(func() []telemetry.Endpoint { return eps })
	tel.SessionsOpen(func() int { return 3 })
	m, body := scrape(t, tel)
	if _, ok := m["chaperone_browser_endpoints_up"]; ok {
		t.Errorf("a fleet without a pool reports endpoints:\n%s", body)
	}
	if got := value(m, "chaperone_sessions_open"); got != 3 {
		t.Errorf("sessions open: %v", got)
	}
	eps = []telemetry.Endpoint{{Name: "ws://127.0.0.1:3000", Up: true, Sessions: 2}, {Name: "ws://127.0.0.1:3000"}, {Name: "http://127.0.0.1:9222", Up: true}}
	m, _ = scrape(t, tel)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"chaperone_browser_endpoints_up", nil, 2},
		{"chaperone_browser_endpoint_up", []string{"index", "0"}, 1},
		{"chaperone_browser_endpoint_up", []string{"index", "1"}, 0},
		{"chaperone_browser_endpoint_sessions", []string{"index", "0"}, 2},
		{"chaperone_browser_endpoint_up", []string{"endpoint", "http://127.0.0.1:9222"}, 1},
	} {
		if got := value(m, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

func TestTracesURL(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces", ""},
		{"http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/traces", ""},
		{"https://collector.example/otlp/v1/traces", "https://collector.example/otlp/v1/traces", ""},
		{"127.0.0.1:4318", "", "http"},
		{"grpc://127.0.0.1:4317", "", "http"},
		{"http:///v1/traces", "", "host"},
		{"https://user:hunter2@collector.example", "", "OTEL_EXPORTER_OTLP_HEADERS"},
		{"https://user:hunter2@collector.example:99999999999/%zz", "", "not a URL"},
		{"http://127.0.0.1:4318/v1/traces?token=x", "", "query"},
	} {
		got, err := telemetry.TracesURL(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %q %v, want an error saying %q", tc.in, got, err, tc.err)
		case tc.err != "" && strings.Contains(err.Error(), "hunter2"):
			t.Errorf("%s: the error repeats the password: %v", tc.in, err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %q %v, want %q", tc.in, got, err, tc.want)
		}
	}
}
