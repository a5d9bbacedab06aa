package main

import (
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// BenchmarkExtract reads a 200-row table and a 50-card result list through
// the built binary over stdio two ways, and reports what each cost a model
// (the cl100k tokens of the text it reads; screenshots off, so images cost
// nothing either way), the calls and the time: browser_extract (the table as
// markdown following the cursor, the cards by selector and fields), and
// reading by scrolling (get_snapshot, then browser_scroll down a viewport at
// a time until the page stops moving), which is also Playwright MCP's way
// (snapshot + scroll). Each way must see the last row or card.
func BenchmarkExtract(b *testing.B) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		b.Fatalf("load cl100k: %v", err)
	}
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	pages := []struct {
		name, path, last string
		// each finds one row or card in what was read; the distinct
		// ones are reported, since a way may skip some.
		each  *regexp.Regexp
		items map[string]any
	}{
		{"table", "/variants/extract-table", "R200", regexp.MustCompile(`R\d{3}`), nil},
		{"cards", "/variants/extract-cards", "Green Table 5", regexp.MustCompile(`\d+ (?:Rue Basse|Main Street|Kirkegata|Via Roma|Hauptstraße)`), map[string]any{"selector": ".card", "fields": map[string]any{"name": ".name", "rating": ".rating", "address": ".address", "link": "a@href"}}},
	}
	for _, pg := range pages {
		for _, way := range []string{"extract", "scroll"} {
			b.Run(pg.name+"/"+way, func(b *testing.B) {
				var tokens, calls, found int
				var took time.Duration
				for b.Loop() {
					b.StopTimer()
					c, _, _ := stdioClient(b, nil, "serve", "--url", site.URL+pg.path, "--profile", "none", "--screenshots", "never")
					// The session opens while the client starts: wait for
					// it outside the measure, which is of reading alone.
					call(b, c, toolapi.GetSnapshot, nil)
					b.StartTimer()
					start := time.Now()
					var seen strings.Builder
					read := func(name string, args map[string]any) string {
						res, data := call(b, c, name, args)
						calls++
						text := res.Content[0].(mcp.TextContent).Text
						tokens += len(enc.Encode(text, nil, nil))
						seen.WriteString(text)
						return data
					}
					switch {
					case way == "extract" && pg.items != nil:
						read(toolapi.Extract, pg.items)
					case way == "extract":
						args := map[string]any{}
						for range 100 {
							var out extractOut
							extractDecode(b, read(toolapi.Extract, args), &out)
							if out.NextCursor == "" {
								break
							}
							args = map[string]any{"cursor": out.NextCursor}
						}
					default:
						s := decodeSnapshot(b, []byte(read(toolapi.GetSnapshot, nil)))
						y := s.Viewport.ScrollY
						for range 500 {
							data := read(toolapi.Scroll, map[string]any{"direction": "down", "amount": int(s.Viewport.Height)})
							s = nextPage(b, s, data)
							if s.Viewport.ScrollY == y {
								break
							}
							y = s.Viewport.ScrollY
						}
					}
					took += time.Since(start)
					b.StopTimer()
					distinct := map[string]bool{}
					for _, m := range pg.each.FindAllString(seen.String(), -1) {
						distinct[m] = true
					}
					found += len(distinct)
					if !strings.Contains(seen.String(), pg.last) {
						b.Errorf("%s by %s never showed %q", pg.name, way, pg.last)
					}
					c.Close()
					b.StartTimer()
				}
				n := float64(b.N)
				b.ReportMetric(float64(tokens)/n, "tokens/read")
				b.ReportMetric(float64(calls)/n, "calls/read")
				b.ReportMetric(float64(took.Milliseconds())/n, "ms/read")
				b.ReportMetric(float64(found)/n, "rows-seen/read")
			})
		}
	}
}

// extractDecode decodes a tool's structured result into v.
func extractDecode(tb testing.TB, data string, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(data), v); err != nil {
		tb.Fatal(err)
	}
}
