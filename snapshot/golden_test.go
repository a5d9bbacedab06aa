package snapshot

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
)

// update rewrites the goldens from the recorded captures, and the schema copy
// in fixtures from schema.json.
var update = flag.Bool("update", false, "rewrite testdata/golden from testdata/captures (and the schema copy in fixtures)")

// The recorded captures of the demo pages, and the snapshots built from them.
// internal/snapshotlive records the captures with a real browser; here they
// are read without one.
const (
	capturesDir = "testdata/captures"
	goldenDir   = "testdata/golden"
)

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
	t.Parallel()
	for name, c := range loadCaptures(t) {
		t.Run(name, func(t *testing.T) {
			vp, _, _ := build(t, c, Options{ViewportOnly: true}, 0)
			all, _, _ := build(t, c, Options{}, 0)
			got, err := json.MarshalIndent(golden{normalise(vp), normalise(all)}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			matchGolden(t, filepath.Join(goldenDir, name+".json"), append(got, '\n'))
		})
	}
}

// matchGolden compares got with the golden file at path, or with -update
// writes it there.
func matchGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
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
		t.Errorf("%s differs from what the code makes now; if the change is intended, run go test ./snapshot -update and review the diff", path)
	}
}

// BenchmarkBuild builds the snapshot of every recorded page and reports the
// element-JSON and page-text tokens beside the time.
func BenchmarkBuild(b *testing.B) {
	captures := loadCaptures(b)
	for _, name := range slices.Sorted(maps.Keys(captures)) {
		c := captures[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var s *Snapshot
			for b.Loop() {
				s, _, _ = Build(c, Options{ViewportOnly: true}, 0)
			}
			b.ReportMetric(float64(ElementTokens(s.Elements)), "elem-tokens")
			b.ReportMetric(float64(EstimateTokens(len(s.Text))), "text-tokens")
			b.ReportMetric(float64(len(s.Elements)), "elements")
		})
	}
}

// TestTokenTable logs, per recorded page, the elements and their estimated
// tokens, and checks the budgets of the acceptance list.
func TestTokenTable(t *testing.T) {
	t.Parallel()
	captures := loadCaptures(t)
	for _, name := range slices.Sorted(maps.Keys(captures)) {
		s, _, _ := build(t, captures[name], Options{ViewportOnly: true}, 0)
		et, tt := ElementTokens(s.Elements), EstimateTokens(len(s.Text))
		t.Logf("%-12s %3d elements %5d element tokens %4d text tokens", name, len(s.Elements), et, tt)
		if et > DefaultTokenBudget || len(s.Elements) > DefaultMaxElements {
			t.Errorf("%s: %d elements, %d tokens", name, len(s.Elements), et)
		}
		if len(s.Text) > DefaultTextBudget {
			t.Errorf("%s: page text of %d bytes", name, len(s.Text))
		}
	}
}
