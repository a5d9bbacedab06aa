package telemetry

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the instruments of one registry. Every label takes its
// values from a closed set the server names (tool names, result codes,
// phases, outcomes), never from a client or a page, so that no caller can
// grow the registry.
type metrics struct {
	calls        *prometheus.CounterVec   // tool, code
	latency      *prometheus.HistogramVec // tool
	phases       *prometheus.HistogramVec // phase
	settle       *prometheus.HistogramVec // tool
	waiting      prometheus.Gauge
	approvalWait *prometheus.HistogramVec // outcome
	shotBytes    prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	// The buckets, in seconds: a call takes minutes only when it waits for
	// a person; a settle wait is milliseconds up to the navigation
	// timeout; an approval waits for a person.
	callBuckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}
	settleBuckets := []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	approvalBuckets := []float64{.1, .5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600}
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chaperone_tool_calls_total",
			Help: "Tool calls by tool and result code (ok, or the result's error code).",
		}, []string{"tool", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "chaperone_tool_call_duration_seconds",
			Help:    "Time from a tool call's start in its session to its result, by tool.",
			Buckets: callBuckets,
		}, []string{"tool"}),
		phases: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "chaperone_tool_call_phase_seconds",
			Help:    "Time tool calls spend in each phase: settle (input and wait), capture (snapshot and screenshot), gate (checkpoint decision, approvals included).",
			Buckets: callBuckets,
		}, []string{"phase"}),
		settle: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "chaperone_settle_wait_seconds",
			Help:    "Time an action's page took to settle after its input (quiet in place, or a navigation interactive and quiet), by tool.",
			Buckets: settleBuckets,
		}, []string{"tool"}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "chaperone_approvals_waiting",
			Help: "Approval requests waiting for a person now.",
		}),
		approvalWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "chaperone_approval_wait_seconds",
			Help:    "Time approval requests waited for a decision, by outcome (approved, rejected, withdrawn, unavailable, failed).",
			Buckets: approvalBuckets,
		}, []string{"outcome"}),
		shotBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "chaperone_screenshot_bytes_total",
			Help: "Bytes of the screenshots sent with tool results.",
		}),
	}
	reg.MustRegister(m.calls, m.latency, m.phases, m.settle, m.waiting, m.approvalWait, m.shotBytes)
	return m
}

// endpointCollector reads a pool's endpoints at each scrape.
type endpointCollector struct {
	read                func() []Endpoint
	up, sessions, total *prometheus.Desc
}

func newEndpointCollector(read func() []Endpoint) *endpointCollector {
	labels := []string{"endpoint", "index"}
	return &endpointCollector{
		read: read,
		up: prometheus.NewDesc("chaperone_browser_endpoint_up",
			"Whether a --browser-pool endpoint is connected and alive (1) or down and retried (0); endpoint has no path, query or credentials, index is its place in the pool.",
			labels, nil),
		sessions: prometheus.NewDesc("chaperone_browser_endpoint_sessions",
			"Sessions placed on a --browser-pool endpoint.", labels, nil),
		total: prometheus.NewDesc("chaperone_browser_endpoints_up",
			"--browser-pool endpoints up now.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *endpointCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.up
	ch <- c.sessions
	ch <- c.total
}

// Collect implements prometheus.Collector. A fleet with no pool reports
// nothing.
func (c *endpointCollector) Collect(ch chan<- prometheus.Metric) {
	eps := c.read()
	if len(eps) == 0 {
		return
	}
	up := 0
	for i, e := range eps {
		v := 0.0
		if e.Up {
			v, up = 1, up+1
		}
		index := strconv.Itoa(i)
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, v, e.Name, index)
		ch <- prometheus.MustNewConstMetric(c.sessions, prometheus.GaugeValue, float64(e.Sessions), e.Name, index)
	}
	ch <- prometheus.MustNewConstMetric(c.total, prometheus.GaugeValue, float64(up))
}
