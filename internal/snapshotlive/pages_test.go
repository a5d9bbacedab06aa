package snapshotlive

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// capturesDir is where the recorded captures live: beside the golden tests of
// package snapshot, which read them without a browser.
const capturesDir = "../../snapshot/testdata/captures"

// recordings are the demo pages recorded as captures: the cancellation flow
// and the variants. after runs on the loaded page before the capture.
var recordings = []struct {
	name, path string
	after      func(ctx context.Context, t *browser.Context) error
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
	{"long-bottom", "/variants/long", func(ctx context.Context, t *browser.Context) error { return t.ScrollPageTo(ctx, "bottom") }},
	{"similar", "/variants/similar", nil},
	{"disabled", "/variants/disabled", nil},
	{"third-party", "/variants/third-party", nil},
	{"altered", "/variants/altered", nil},
	{"names", "/variants/names", nil},
	{"clickables", "/variants/clickables", nil},
	{"dialog-modal", "/variants/dialog-modal", nil},
	{"cross-site", "/variants/cross-site-checkout?nested=1", nil},
	{"w-sortable", "/widgets/sortable", nil},
	{"w-dropdowns", "/widgets/dropdowns", nil},
	{"w-timeline", "/widgets/timeline", nil},
	{"w-inbox", "/widgets/inbox", nil},
	{"w-chart", "/widgets/chart", nil},
	{"w-menubar", "/widgets/menubar", nil},
	{"w-menubar-open", "/widgets/menubar", func(ctx context.Context, t *browser.Context) error { return t.Hover(ctx, 280, 200) }},
	{"w-todos-vue", "/widgets/todos-vue", nil},
	{"w-todos-jquery", "/widgets/todos-jquery", nil},
	{"w-todos-react", "/widgets/todos-react", nil},
	{"w-files", "/widgets/files", nil},
}

// captureLive loads each recorded demo page from site in a fresh tab of the
// shared browser and captures it, by recording name.
func captureLive(t *testing.T, site string, opts browser.CaptureOptions) map[string]*capture.Page {
	t.Helper()
	captures := make(map[string]*capture.Page, len(recordings))
	for _, r := range recordings {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		tab := browsertest.Tab(t)
		if err := tab.Navigate(ctx, site+r.path); err != nil {
			t.Fatalf("%s: %v", r.path, err)
		}
		if r.after != nil {
			if err := r.after(ctx, tab); err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
		}
		c, err := tab.Capture(ctx, opts)
		cancel()
		if err != nil {
			t.Fatalf("capture %s: %v", r.path, err)
		}
		captures[r.name] = c
	}
	return captures
}

// recorded reads the recorded capture of each demo page, by recording name.
func recorded(t *testing.T) map[string]*capture.Page {
	t.Helper()
	captures := make(map[string]*capture.Page, len(recordings))
	for _, r := range recordings {
		path := filepath.Join(capturesDir, r.name+".json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (record it with go test ./internal/snapshotlive -run TestRecordCaptures -record)", err)
		}
		var c capture.Page
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		captures[r.name] = &c
	}
	return captures
}
