// Package layering holds the test that keeps dependencies pointing one way
// (docs/architecture.md, "Packages").
package layering

import (
	"os/exec"
	"strings"
	"testing"
)

const (
	chromedp  = "github.com/chromedp/"
	mcpGo     = "github.com/mark3labs/mcp-go"
	anthropic = "github.com/anthropics/anthropic-sdk-go"
	// Metrics and the tracing SDK and exporter are telemetry's; another
	// package hears of time only through tools.Telemetry or context (the
	// OpenTelemetry API alone, which the Anthropic SDK links too).
	prometheus = "github.com/prometheus/"
	otelSDK    = "go.opentelemetry.io/otel/sdk"
	otelExport = "go.opentelemetry.io/otel/exporters/"
)

// Each package links only what its job needs: only browser speaks CDP, only
// server MCP, only driver Claude, and none links another's dependencies
// through a package it imports.
func TestPackagesLinkOnlyTheirOwnDependencies(t *testing.T) {
	const mod = "github.com/chaperone-mcp/chaperone/"
	for _, tc := range []struct {
		pkg       string
		forbidden []string
	}{
		{"capture", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"devtools", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"snapshot", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"toolapi", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"urlpolicy", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"internal/oauth", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"checkpoint", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"approver", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"audit", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"recording", []string{chromedp, mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"driver", []string{chromedp, mcpGo, prometheus, otelSDK, otelExport}},
		{"browser", []string{mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"fleet", []string{mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"tools", []string{mcpGo, anthropic, prometheus, otelSDK, otelExport}},
		{"server", []string{anthropic, prometheus, otelSDK, otelExport}},
		{"telemetry", []string{chromedp, mcpGo, anthropic}},
	} {
		out, err := exec.Command("go", "list", "-deps", mod+tc.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", tc.pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range tc.forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s links %s", tc.pkg, dep)
				}
			}
		}
	}
}
