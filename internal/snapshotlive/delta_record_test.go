package snapshotlive

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

var recordDeltas = flag.Bool("record-deltas", false, "record snapshot/testdata/deltas: captures of one document after each of its steps")

// deltasDir holds, per flow, the captures of one document after each step,
// named <flow>-<step>.json, from which package snapshot's delta goldens run.
const deltasDir = "../../snapshot/testdata/deltas"

// deltaRecordings are flows on one document, each step a script run in the
// page before the next capture ("" for the page as it loads).
var deltaRecordings = []struct {
	name, path string
	steps      []string
}{
	{"delta", "/variants/delta", []string{
		"",
		`document.getElementById('show-plans').click()`,
		`document.querySelector('input[value=Premium]').click(); document.getElementById('save-plan').click()`,
		`swapLabels()`,
		`replacePromo()`,
		`document.getElementById('promo').remove()`,
	}},
	{"survey", "/survey", []string{"", `document.querySelector('input[type=radio]').click()`}},
	{"form", "/variants/form", []string{
		"",
		`document.getElementById('username').value = 'ada'`,
		`document.getElementById('email').value = 'ada@example.com'`,
		`document.getElementById('username').focus()`,
	}},
}

// TestRecordDeltaCaptures is a tool, not a test: with -record-deltas it runs
// each flow in one tab of a real browser and writes the capture after each
// step to snapshot/testdata/deltas. Without the flag it does nothing.
func TestRecordDeltaCaptures(t *testing.T) {
	if !*recordDeltas {
		return
	}
	if err := os.MkdirAll(deltasDir, 0o755); err != nil {
		t.Fatal(err)
	}
	site := browsertest.Site(t)
	for _, r := range deltaRecordings {
		tab := browsertest.Tab(t)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		if err := tab.Navigate(ctx, site+r.path); err != nil {
			t.Fatalf("%s: %v", r.path, err)
		}
		for i, step := range r.steps {
			if step != "" {
				if err := tab.Evaluate(ctx, step, nil); err != nil {
					t.Fatalf("%s step %d: %v", r.name, i, err)
				}
			}
			c, err := tab.Capture(ctx, browser.CaptureOptions{})
			if err != nil {
				t.Fatalf("capture %s step %d: %v", r.name, i, err)
			}
			c.ScreenshotError = ""
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.ReplaceAll(data, []byte(site), []byte(demoOrigin))
			path := filepath.Join(deltasDir, fmt.Sprintf("%s-%d.json", r.name, i))
			if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cancel()
	}
}
