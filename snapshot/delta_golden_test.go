package snapshot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/capture"
)

// deltasDir holds recorded captures of one document after each step of a
// flow (<flow>-<step>.json, recorded by internal/snapshotlive with
// -record-deltas); goldenDeltaDir the compact text a session sends for each
// step with deltas on, whole or delta.
const (
	deltasDir      = "testdata/deltas"
	goldenDeltaDir = "testdata/golden-delta"
)

// TestDeltaGolden builds each recorded flow as a session with deltas does
// (refs kept from the snapshot before, Options.Keep), and writes what the
// agent is sent at each step: the delta when it is worth sending, else the
// whole snapshot. Each delta applied to the snapshot before is the newer.
func TestDeltaGolden(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join(deltasDir, "*-0.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recorded flows in %s: %v", deltasDir, err)
	}
	for _, first := range paths {
		flow := strings.TrimSuffix(filepath.Base(first), "-0.json")
		t.Run(flow, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			var prev *Snapshot
			var table Table
			next := 0
			for step := 0; ; step++ {
				data, err := os.ReadFile(filepath.Join(deltasDir, fmt.Sprintf("%s-%d.json", flow, step)))
				if os.IsNotExist(err) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				var c capture.Page
				if err := json.Unmarshal(data, &c); err != nil {
					t.Fatal(err)
				}
				cur, tb, n := Build(&c, Options{ViewportOnly: true, Keep: table}, next)
				cur.ID = fmt.Sprintf("00000000-0000-7000-8000-%012d", step)
				cur.Timestamp = time.Date(2026, 11, 1, 12, 0, step, 0, time.UTC)
				fmt.Fprintf(&out, "## step %d\n", step)
				if d, ok := Diff(prev, cur); ok && d.Worth(cur) {
					out.WriteString(d.Render(cur))
					checkApply(t, prev, cur, d)
				} else {
					out.WriteString(cur.Render())
				}
				prev, table, next = cur, tb, n
			}
			matchGolden(t, filepath.Join(goldenDeltaDir, flow+".txt"), []byte(out.String()))
		})
	}
}
