package main

import (
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

// phaseTimes are the sums and counts of a server's phase and settle-wait
// histograms (/metrics), for where the time of calls under load goes.
type phaseTimes struct {
	phases map[string][2]float64 // phase: seconds, count
	settle [2]float64            // browser_click's settle wait: seconds, count
	calls  float64               // tool calls
}

// scrapePhases reads the phase times of the server at base (no token).
func scrapePhases(b *testing.B, base string) phaseTimes {
	b.Helper()
	m, _ := scrape(b, base+"/metrics", "")
	pt := phaseTimes{phases: map[string][2]float64{}}
	hist := func(x *dto.Metric) [2]float64 {
		return [2]float64{x.GetHistogram().GetSampleSum(), float64(x.GetHistogram().GetSampleCount())}
	}
	for _, x := range m["chaperone_tool_call_phase_seconds"].GetMetric() {
		for _, l := range x.GetLabel() {
			if l.GetName() == "phase" {
				pt.phases[l.GetValue()] = hist(x)
			}
		}
	}
	for _, x := range m["chaperone_settle_wait_seconds"].GetMetric() {
		for _, l := range x.GetLabel() {
			if l.GetName() == "tool" && l.GetValue() == toolapi.Click {
				pt.settle = hist(x)
			}
		}
	}
	for _, x := range m["chaperone_tool_calls_total"].GetMetric() {
		pt.calls += x.GetCounter().GetValue()
	}
	return pt
}

// report reports what the calls since before spent per call in each phase
// (settle-ms/call, capture-ms/call, gate-ms/call) and a click's mean
// settle wait after its input (click-settle-ms).
func (pt phaseTimes) report(b *testing.B, before phaseTimes) {
	calls := pt.calls - before.calls
	if calls <= 0 {
		return
	}
	for _, phase := range []string{"settle", "capture", "gate"} {
		sum := pt.phases[phase][0] - before.phases[phase][0]
		b.ReportMetric(sum*1000/calls, phase+"-ms/call")
	}
	if n := pt.settle[1] - before.settle[1]; n > 0 {
		b.ReportMetric((pt.settle[0]-before.settle[0])*1000/n, "click-settle-ms")
	}
}
