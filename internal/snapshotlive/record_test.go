package snapshotlive

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

var record = flag.Bool("record", false, "record snapshot/testdata/captures from the demo site with a real browser")

// demoOrigin replaces the test server's origin in recorded captures, so that
// recordings do not depend on the port they were made on.
const demoOrigin = "http://demo.test"

// otherOrigin replaces the test server's other loopback name (localhost),
// the other site of the cross-site frames.
const otherOrigin = "http://other.test"

// TestRecordCaptures is a tool, not a test: with -record it loads each demo
// page in a real browser and writes its raw capture to
// snapshot/testdata/captures, from which the golden tests of package snapshot
// run without a browser. Without -record it does nothing.
func TestRecordCaptures(t *testing.T) {
	if !*record {
		return
	}
	if err := os.MkdirAll(capturesDir, 0o755); err != nil {
		t.Fatalf("making the captures directory: %v", err)
	}
	site := browsertest.Site(t)
	for name, c := range captureLive(t, site, browser.CaptureOptions{}) {
		c.ScreenshotError = ""
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("encoding capture %s: %v", name, err)
		}
		data = bytes.ReplaceAll(data, []byte(site), []byte(demoOrigin))
		data = bytes.ReplaceAll(data, []byte(strings.Replace(site, "127.0.0.1", "localhost", 1)), []byte(otherOrigin))
		path := filepath.Join(capturesDir, name+".json")
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatalf("writing capture %s: %v", name, err)
		}
		t.Logf("%s: %d bytes", path, len(data))
	}
}
