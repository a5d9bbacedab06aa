package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/pdfbomb"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// maxServerMemory bounds the server's peak resident memory over a session
// that opens every bomb; before the bounds, the first alone took it past
// 2 GB.
const maxServerMemory = 1 << 30

// TestPDFBombIsRefused opens PDFs that cost a parser far more than their
// size (issue 27: a 96 KB page that inflates to 64 MB took the server to
// 2.2 GB and 8 s; one whose page tree's parents loop never answers): the
// action's snapshot, get_snapshot and browser_extract each say the PDF is
// too large to read, the file is parsed once however often it is looked
// at, the server's peak memory stays bounded, and the session then reads
// an ordinary PDF.
func TestPDFBombIsRefused(t *testing.T) {
	bombs := []struct {
		name string
		data []byte
		why  string
	}{
		{"inflates-to-64MB", pdfbomb.Inflating(64 << 20), "glyphs"},
		{"one-string-shown-again", pdfbomb.Glyphs(64 << 20), "glyphs"},
		{"deflated-twice", pdfbomb.DoubleFlate(256 << 20), "a stream decodes to more than"},
		{"parents-that-loop", pdfbomb.ParentLoop(3), "objects"},
	}
	mux := http.NewServeMux()
	mux.Handle("/", fixtures.Site())
	for _, b := range bombs {
		mux.HandleFunc("/bombs/"+b.name+".pdf", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write(b.data)
		})
	}
	site := httptest.NewServer(mux)
	defer site.Close()
	c, cmd, stderr := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/documents", "--profile", "none", "--log-level", "info")

	const refused = "the PDF is too large to read: "
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			r, s := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/bombs/" + b.name + ".pdf"})
			if !r.Success {
				t.Fatalf("navigate: %v %q", r.Error, r.Message)
			}
			// Chromium's own viewer may be busy drawing the bomb, and a
			// snapshot then may not see the viewer at all; whatever a
			// snapshot says of the PDF is the refusal, and one of the two
			// says it.
			refusals := 0
			for _, notes := range [][]string{s.Notes, getSnapshot(t, c).Notes} {
				for _, n := range notes {
					switch {
					case strings.Contains(n, "could not be read as text: "+refused) && strings.Contains(n, b.why):
						refusals++
					case strings.Contains(n, "PDF"):
						t.Errorf("a snapshot says %q, want the PDF refused as too large to read (%s)", n, b.why)
					}
				}
			}
			if refusals == 0 {
				t.Errorf("neither the navigation's snapshot nor get_snapshot says the PDF is too large to read: %q", s.Notes)
			}
			out, _ := extractCall(t, c, map[string]any{})
			if out.Success || out.Error == nil || *out.Error != string(toolapi.ActionFailed) || !strings.Contains(out.Message, refused) {
				t.Errorf("browser_extract: success %v, error %v, %q", out.Success, out.Error, out.Message)
			}
		})
	}
	// Three looks at each bomb, one parse: the server logs each refusal.
	if n := strings.Count(stderr.String(), "PDF not read"); n != len(bombs) {
		t.Errorf("%d PDFs refused in the log, want one per bomb (%d): a document is parsed once, not per snapshot", n, len(bombs))
	}
	if peak := peakMemory(t, cmd.Process.Pid); peak > maxServerMemory {
		t.Errorf("the server's peak memory is %d MB, want at most %d MB", peak>>20, maxServerMemory>>20)
	} else {
		t.Logf("the server's peak memory over the bombs: %d MB", peak>>20)
	}

	r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/files/guide.pdf"})
	out, text := extractCall(t, c, map[string]any{})
	if !r.Success || !out.Success || !strings.Contains(out.Message, "This page is a PDF of 3 pages.") || !strings.Contains(text, "Reference code: GUIDE-REF-4417.") {
		t.Errorf("after the bombs, the guide: navigate %v, extract %v %q:\n%s", r.Success, out.Success, out.Message, text)
	}
}

// peakMemory is a process's peak resident memory (VmHWM), in bytes.
func peakMemory(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("read the server's status: %v", err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in the server's status")
	return 0
}
