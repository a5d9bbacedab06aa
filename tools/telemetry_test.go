package tools_test

import (
	"context"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/telemetry"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// A tool name is a label only once the session knows the tool: a client
// that calls made-up names, or an opt-in tool its server did not turn on,
// grows no series (a registry that any caller could grow without end).
func TestTelemetryCountsOnlyKnownTools(t *testing.T) {
	tel, err := telemetry.New(telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := tools.NewSession(browsertest.Tab(t), tools.Config{}, tools.WithTelemetry(tel.Session("0123abcd", "")))
	for _, name := range []string{"no_such_tool", "browser_click\x00", strings.Repeat("x", 300), toolapi.Hover, toolapi.Tabs} {
		if _, err := s.Call(context.Background(), name, []byte(`{}`)); err == nil {
			t.Errorf("%q: no error", name)
		}
	}
	if _, err := s.Call(context.Background(), toolapi.GetSnapshot, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	families, err := tel.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted := false
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "chaperone_tool_call") {
			continue
		}
		for _, m := range f.GetMetric() {
			tool := label(m, "tool")
			if tool != "" && tool != toolapi.GetSnapshot {
				t.Errorf("%s has a series for tool %q", f.GetName(), tool)
			}
			counted = counted || (f.GetName() == "chaperone_tool_calls_total" && tool == toolapi.GetSnapshot && m.GetCounter().GetValue() == 1)
		}
	}
	if !counted {
		t.Error("get_snapshot was not counted")
	}
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
