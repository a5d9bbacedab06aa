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
		{"capture", []string{chromedp, mcpGo, anthropic}},
		{"snapshot", []string{chromedp, mcpGo, anthropic}},
		{"toolapi", []string{chromedp, mcpGo, anthropic}},
		{"urlpolicy", []string{chromedp, mcpGo, anthropic}},
		{"checkpoint", []string{chromedp, mcpGo, anthropic}},
		{"approver", []string{chromedp, mcpGo, anthropic}},
		{"audit", []string{chromedp, mcpGo, anthropic}},
		{"recording", []string{chromedp, mcpGo, anthropic}},
		{"driver", []string{chromedp, mcpGo}},
		{"browser", []string{mcpGo, anthropic}},
		{"fleet", []string{mcpGo, anthropic}},
		{"tools", []string{mcpGo, anthropic}},
		{"server", []string{anthropic}},
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
