package snapshot

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/fixtures"
)

var (
	update = flag.Bool("update", false, "rewrite fixtures/golden from fixtures/captures (and the schema copy in fixtures)")
	record = flag.Bool("record", false, "record fixtures/captures from the demo site with a real browser")
)

const (
	capturesDir = "../fixtures/captures"
	goldenDir   = "../fixtures/golden"
	// demoOrigin replaces the test server's origin in recorded captures, so
	// that recordings do not depend on the port they were made on.
	demoOrigin = "http://demo.test"
)

// recordings are the demo pages recorded as captures: the cancellation flow
// and the variants. after runs on the loaded page before the capture.
var recordings = []struct {
	name, path string
	after      func(ctx context.Context, t *browser.Tab) error
}{
	{"account", "/account", nil},
	{"retention", "/retention", nil},
	{"survey", "/survey", nil},
	{"finish", "/finish", nil},
	{"cancelled", "/cancelled", nil},
	{"form", "/variants/form", nil},
	{"widgets", "/variants/widgets", nil},
	{"large", "/variants/large", nil},
	{"iframe", "/variants/iframe", nil},
	{"shadow", "/variants/shadow", nil},
	{"modal", "/variants/modal", nil},
	{"long", "/variants/long", nil},
	{"long-bottom", "/variants/long", func(ctx context.Context, t *browser.Tab) error { return t.ScrollPageTo(ctx, "bottom") }},
	{"similar", "/variants/similar", nil},
	{"disabled", "/variants/disabled", nil},
	{"third-party", "/variants/third-party", nil},
	{"altered", "/variants/altered", nil},
}

// TestRecordCaptures is a tool, not a test: with -record it loads each demo
// page in a real browser and writes its raw capture to fixtures/captures,
// from which the golden tests below run without a browser. Without -record
// it does nothing.
func TestRecordCaptures(t *testing.T) {
	if !*record {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := httptest.NewServer(fixtures.Site())
	defer srv.Close()
	b, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	defer b.Close()
	if err := os.MkdirAll(capturesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range recordings {
		tab, err := b.NewTab(ctx)
		if err != nil {
			t.Fatalf("new tab: %v", err)
		}
		if err := tab.Navigate(ctx, srv.URL+r.path); err != nil {
			t.Fatalf("%s: %v", r.path, err)
		}
		if r.after != nil {
			if err := r.after(ctx, tab); err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
		}
		c, err := tab.Capture(ctx, browser.CaptureOptions{})
		if err != nil {
			t.Fatalf("capture %s: %v", r.path, err)
		}
		c.ScreenshotError = ""
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.ReplaceAll(data, []byte(srv.URL), []byte(demoOrigin))
		path := filepath.Join(capturesDir, r.name+".json")
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", path, len(data))
		tab.Close()
	}
}

// golden is what a golden file holds for one capture: the snapshot of the
// viewport and of the whole page, with the id and time normalised.
type golden struct {
	Viewport *Snapshot `json:"viewport_only"`
	Page     *Snapshot `json:"whole_page"`
}

// loadCaptures reads every recorded capture, by name.
func loadCaptures(tb testing.TB) map[string]*capture.Page {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(capturesDir, "*.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(paths) == 0 {
		tb.Fatalf("no captures in %s", capturesDir)
	}
	out := make(map[string]*capture.Page, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		var c capture.Page
		if err := json.Unmarshal(data, &c); err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = &c
	}
	return out
}

func normalise(s *Snapshot) *Snapshot {
	s.ID = "00000000-0000-7000-8000-000000000000"
	s.Timestamp = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	return s
}

func TestGolden(t *testing.T) {
	for name, c := range loadCaptures(t) {
		t.Run(name, func(t *testing.T) {
			vp, _, _ := build(t, c, Options{ViewportOnly: true}, 0)
			all, _, _ := build(t, c, Options{}, 0)
			got, err := json.MarshalIndent(golden{normalise(vp), normalise(all)}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join(goldenDir, name+".json")
			if *update {
				if err := os.MkdirAll(goldenDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./snapshot -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("snapshot of %s differs from %s; if the change is intended, run go test ./snapshot -update and review the diff", name, path)
			}
		})
	}
}

// BenchmarkBuild builds the snapshot of every recorded page and reports the
// element-JSON and page-text tokens beside the time.
func BenchmarkBuild(b *testing.B) {
	captures := loadCaptures(b)
	for _, r := range recordings {
		c, ok := captures[r.name]
		if !ok {
			continue
		}
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			var s *Snapshot
			for b.Loop() {
				s, _, _ = Build(c, Options{ViewportOnly: true}, 0)
			}
			data, _ := json.Marshal(s.Elements)
			b.ReportMetric(float64(EstimateTokens(len(data))), "elem-tokens")
			b.ReportMetric(float64(EstimateTokens(len(s.Text))), "text-tokens")
			b.ReportMetric(float64(len(s.Elements)), "elements")
		})
	}
}

// TestTokenTable logs, per recorded page, the elements and their estimated
// tokens, and checks the budgets of the acceptance list.
func TestTokenTable(t *testing.T) {
	captures := loadCaptures(t)
	for _, r := range recordings {
		c, ok := captures[r.name]
		if !ok {
			continue
		}
		s, _, _ := build(t, c, Options{ViewportOnly: true}, 0)
		data, _ := json.Marshal(s.Elements)
		et, tt := EstimateTokens(len(data)), EstimateTokens(len(s.Text))
		t.Logf("%-12s %3d elements %5d element tokens %4d text tokens", r.name, len(s.Elements), et, tt)
		if et > DefaultTokenBudget || len(s.Elements) > DefaultMaxElements {
			t.Errorf("%s: %d elements, %d tokens", r.name, len(s.Elements), et)
		}
		if len(s.Text) > DefaultTextBudget {
			t.Errorf("%s: page text of %d bytes", r.name, len(s.Text))
		}
	}
}

func ExampleBuild() {
	c := &capture.Page{
		URL:      "https://example.test/login",
		Title:    "Log in",
		Viewport: capture.Viewport{Width: 800, Height: 600},
		Frames: []capture.Frame{{FrameID: "MAIN", AX: []byte(`{"nodes":[
			{"nodeId":"1","role":{"type":"internalRole","value":"RootWebArea"},"childIds":["2","3"]},
			{"nodeId":"2","role":{"type":"role","value":"textbox"},"name":{"type":"computedString","value":"Email"},"parentId":"1"},
			{"nodeId":"3","role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Log in"},"parentId":"1"}
		]}`)}},
	}
	s, table, next := Build(c, Options{ViewportOnly: true}, 5)
	for _, e := range s.Elements {
		fmt.Println(e.Ref, e.Role, e.Name, table[e.Ref].Role)
	}
	fmt.Println("next ref:", next)
	// Output:
	// @e5 textbox Email textbox
	// @e6 button Log in button
	// next ref: 7
}

func ExampleValidate() {
	s, _, _ := Build(&capture.Page{URL: "about:blank"}, Options{}, 0)
	data, _ := json.Marshal(s)
	fmt.Println(Validate(data))
	fmt.Println(Validate([]byte(`{"elements": []}`)) != nil)
	// Output:
	// <nil>
	// true
}
