package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// The hostile download page (fixtures/site/hostile/download-links) links to
// files whose server names them with path parts, a right-to-left override,
// control characters and a leading dot, to one larger than the cap, and to
// one saved by <a download>.

// downloadSaved matches what an action's message says of a saved download.
var downloadSaved = regexp.MustCompile(`Downloaded "((?:[^"\\]|\\.)*)" \(([^,]+), ([^)]+)\) to (/.*?)\.(?: |$)`)

// downloadServe starts chaperone on stdio at the hostile download page,
// with the extra flags, and returns the client and the page's snapshot.
func downloadServe(t *testing.T, page string, flags ...string) (*client.Client, string) {
	t.Helper()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	args := append([]string{"serve", "--url", site.URL + page, "--profile", "none"}, flags...)
	c, _, _ := stdioClient(t, nil, args...)
	t.Cleanup(func() { c.Close() })
	return c, site.URL
}

// downloadClick clicks the link or button named name and returns the
// result, which must be a success.
func downloadClick(t *testing.T, c *client.Client, role, name string) actionResult {
	t.Helper()
	s := getSnapshot(t, c)
	r, _ := click(t, c, browsertest.Ref(t, s, role, name))
	if !r.Success {
		t.Fatalf("clicking %s %q: %v %q", role, name, r.Error, r.Message)
	}
	return r
}

// downloadedFile is one "Downloaded …" sentence of a message.
type downloadedFile struct {
	name, size, typ, path string
}

// downloadsIn returns the saved downloads a message names.
func downloadsIn(msg string) []downloadedFile {
	var out []downloadedFile
	for _, m := range downloadSaved.FindAllStringSubmatch(msg, -1) {
		out = append(out, downloadedFile{name: m[1], size: m[2], typ: m[3], path: m[4]})
	}
	return out
}

// downloadSafeName fails the test when a saved name could go anywhere but
// into its directory, hide, or mislead a reader.
func downloadSafeName(t *testing.T, name string) {
	t.Helper()
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || len(name) > 255 {
		t.Errorf("saved name %q is not a plain file name", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			t.Errorf("saved name %q holds %U", name, r)
		}
	}
}

// TestDownloadClickSavesSafeFile: a click that downloads used to answer
// success with the file gone nowhere. Now the file is in the download
// directory under a safe name, with the served bytes, and the result names
// it, its size, type and path.
func TestDownloadClickSavesSafeFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, _ := downloadServe(t, "/hostile/download-links", "--download-dir", dir)
	tests := []struct {
		role, link string
		body       []byte
		// typ begins the type: from the extension, or sniffed without one.
		typ string
	}{
		{"link", "Export statement", fixtures.DownloadBody(0), "text/csv"},
		{"link", "Export with control characters", fixtures.DownloadBody(0), "text/csv"},
		{"link", "Export settings", fixtures.DownloadBody(0), "text/plain"},
		{"link", "Save notes", fixtures.DownloadBody(300), "text/csv"},
		// The browser opens a tab for it and closes it: the page that
		// opened it stays, and the next click works on it.
		{"link", "Export in a new tab", fixtures.DownloadBody(0), "text/csv"},
		{"button", "Export by script", fixtures.DownloadBody(0), "text/csv"},
	}
	for _, tc := range tests {
		t.Run(tc.link, func(t *testing.T) {
			r := downloadClick(t, c, tc.role, tc.link)
			files := downloadsIn(r.Message)
			if len(files) != 1 {
				t.Fatalf("result names %d saved downloads, want 1: %q", len(files), r.Message)
			}
			f := files[0]
			downloadSafeName(t, f.name)
			if filepath.Dir(f.path) != dir || filepath.Base(f.path) != f.name {
				t.Errorf("saved at %q as %q, want a file directly in %s", f.path, f.name, dir)
			}
			if !strings.HasPrefix(f.typ, tc.typ) {
				t.Errorf("type %q, want %s", f.typ, tc.typ)
			}
			t.Logf("%s", r.Message)
			data, err := os.ReadFile(f.path)
			if err != nil || !bytes.Equal(data, tc.body) {
				t.Errorf("the saved file holds %q (%v), want the %d served bytes", data, err, len(tc.body))
			}
		})
	}
	// Nothing was written outside the directory's own names.
	for _, n := range browsertest.DirNames(t, dir) {
		downloadSafeName(t, n)
	}
}

// TestDownloadNavigate: browser_navigate to a URL that downloads ends at
// once with the file named (it used to wait for a document that never
// commits), and the session goes on where it was.
func TestDownloadNavigate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, site := downloadServe(t, "/hostile/download-links", "--download-dir", dir, "--navigation-timeout", "20s")
	r, s := act(t, c, toolapi.Navigate, map[string]any{"url": site + "/download?name=..%2Fnav%E2%80%AE.csv"})
	if !r.Success || r.Error != nil {
		t.Fatalf("navigating to a download: %+v", r)
	}
	files := downloadsIn(r.Message)
	if len(files) != 1 || filepath.Dir(files[0].path) != dir {
		t.Fatalf("result does not name the download in %s: %q", dir, r.Message)
	}
	downloadSafeName(t, files[0].name)
	if data, err := os.ReadFile(files[0].path); err != nil || !bytes.Equal(data, fixtures.DownloadBody(0)) {
		t.Errorf("saved file holds %q (%v)", data, err)
	}
	if !strings.HasSuffix(s.Page.URL, "/hostile/download-links") {
		t.Errorf("after the download the page is %s, want the page it was on", s.Page.URL)
	}
	// Usable: the next action works.
	downloadClick(t, c, "link", "Export statement")
}

// TestDownloadTooLarge: a download over --max-download-size is cancelled,
// the result says so, and nothing of it is left in the directory.
func TestDownloadTooLarge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, _ := downloadServe(t, "/hostile/download-links", "--download-dir", dir, "--max-download-size", "1MB")
	r := downloadClick(t, c, "link", "Export everything (4 MB)")
	if len(downloadsIn(r.Message)) != 0 || !strings.Contains(r.Message, "not saved") || !strings.Contains(r.Message, "1 MB cap") {
		t.Errorf("result does not say the big download was refused: %q", r.Message)
	}
	if names := browsertest.DirNames(t, dir); len(names) != 0 {
		t.Errorf("the download directory holds %q after a refused download, want nothing", names)
	}
	// The session goes on, and takes files within the cap.
	r = downloadClick(t, c, "link", "Export statement")
	if len(downloadsIn(r.Message)) != 1 {
		t.Errorf("a small download after the big one: %q", r.Message)
	}
}

// TestDownloadSameNameTwice: a second file of the same name never replaces
// the first, and the snapshot lists the session's downloads.
func TestDownloadSameNameTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, _ := downloadServe(t, "/hostile/download-links", "--download-dir", dir)
	first := downloadsIn(downloadClick(t, c, "link", "Export statement").Message)
	second := downloadsIn(downloadClick(t, c, "link", "Export statement again").Message)
	if len(first) != 1 || len(second) != 1 {
		t.Fatalf("downloads named: %v, %v", first, second)
	}
	if first[0].path == second[0].path {
		t.Fatalf("both downloads saved at %s", first[0].path)
	}
	if want := strings.TrimSuffix(first[0].name, ".csv") + " (2).csv"; second[0].name != want {
		t.Errorf("second download named %q, want %q", second[0].name, want)
	}
	for _, f := range append(first, second...) {
		if data, err := os.ReadFile(f.path); err != nil || !bytes.Equal(data, fixtures.DownloadBody(0)) {
			t.Errorf("%s holds %q (%v)", f.path, data, err)
		}
	}
	s := getSnapshot(t, c)
	for _, f := range append(first, second...) {
		if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, f.path) }) {
			t.Errorf("snapshot notes do not list %s: %q", f.path, s.Notes)
		}
	}
}

// TestDownloadDirRemovedOnClose: without --download-dir each session saves
// into a directory of its own, removed when the session closes.
func TestDownloadDirRemovedOnClose(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, cmd, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/hostile/download-links", "--profile", "none")
	files := downloadsIn(downloadClick(t, c, "link", "Export statement").Message)
	if len(files) != 1 {
		t.Fatalf("no download named")
	}
	dir := filepath.Dir(files[0].path)
	if _, err := os.Stat(files[0].path); err != nil {
		t.Fatalf("the download is not there: %v", err)
	}
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the session's download directory %s is still there after its client closed (server exited: %v)", dir, cmd.ProcessState != nil)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// filesSaved matches what browser_screenshot and browser_pdf answer.
var filesSaved = regexp.MustCompile(`to (/.*?\.(?:png|pdf))\.`)

// TestDownloadScreenshotAndPDF: browser_screenshot saves the whole page as
// a PNG (the band 5000 px down included) and browser_pdf a PDF with pages,
// into the download directory.
func TestDownloadScreenshotAndPDF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, _ := downloadServe(t, "/hostile/download-long", "--download-dir", dir, "--caps", "files")
	r, _ := act(t, c, toolapi.Screenshot, nil)
	m := filesSaved.FindStringSubmatch(r.Message)
	if !r.Success || m == nil || filepath.Dir(m[1]) != dir {
		t.Fatalf("browser_screenshot: %+v", r)
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dy() != 5000 {
		t.Errorf("screenshot is %d px high, want the page's 5000", b.Dy())
	}
	if want := fmt.Sprintf("(%d×%d px", b.Dx(), b.Dy()); !strings.Contains(r.Message, want) {
		t.Errorf("message does not give the dimensions: %q", r.Message)
	}
	if cr, g, bl, _ := img.At(b.Dx()/2, b.Max.Y-50).RGBA(); cr>>8 < 200 || g>>8 > 60 || bl>>8 > 60 {
		t.Errorf("the bottom of the screenshot is not the page's red band: rgb(%d,%d,%d)", cr>>8, g>>8, bl>>8)
	}

	r, _ = act(t, c, toolapi.PDF, nil)
	m = filesSaved.FindStringSubmatch(r.Message)
	if !r.Success || m == nil || filepath.Dir(m[1]) != dir {
		t.Fatalf("browser_pdf: %+v", r)
	}
	pdf, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("the PDF starts with %q", pdf[:min(len(pdf), 8)])
	}
	if !regexp.MustCompile(`/Type\s*/Page[^s]`).Match(pdf) || strings.Contains(r.Message, "(0 pages") {
		t.Errorf("the PDF has no pages: %q", r.Message)
	}
}

// TestDownloadPDFCapped: a page decides how long its print is; browser_pdf
// used to take the whole print into memory and save it, whatever its size.
// Now the print is read from the browser a chunk at a time and one over
// --max-download-size is refused, nothing saved, and the session goes on.
func TestDownloadPDFCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, _ := downloadServe(t, "/hostile/download-long", "--download-dir", dir, "--caps", "files", "--max-download-size", "1KB")
	res, text := call(t, c, toolapi.PDF, nil)
	var r actionResult
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	if r.Success || !strings.Contains(r.Message, "larger than the cap") || !strings.Contains(r.Message, "1 KB") {
		t.Errorf("browser_pdf of a print over the cap: success %v, %q", r.Success, r.Message)
	}
	checkImage(t, res, r.Snapshot)
	if names := browsertest.DirNames(t, dir); len(names) != 0 {
		t.Errorf("the download directory holds %q after a refused print, want nothing", names)
	}
	if s := getSnapshot(t, c); !strings.Contains(s.Text, "Statement") {
		t.Errorf("the session after a refused print: %q", s.Text)
	}
}

// TestDownloadFlags: a download directory that is not there, or a size
// that is no size, stops the command before anything starts.
func TestDownloadFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--download-dir", "/no/such/dir"}, `--download-dir "/no/such/dir": not a directory`},
		{[]string{"--max-download-size", "0"}, "want a positive size"},
		{[]string{"--max-download-size", "-5MB"}, "want a positive size"},
		{[]string{"--max-download-size", "lots"}, "want a positive size"},
		{[]string{"--max-download-size", "99999999999GB"}, "want a positive size"},
		{[]string{"--max-downloads-total", "0"}, "want a positive size"},
		{[]string{"--max-downloads-total", "-1MB"}, "want a positive size"},
		{[]string{"--max-downloads", "0"}, "want a positive whole number"},
		{[]string{"--max-downloads", "-3"}, "want a positive whole number"},
		{[]string{"--max-downloads", "many"}, "want a positive whole number"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
			if code := run(context.Background(), append([]string{"serve"}, tc.args...), e); code == 0 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, errOut.String(), tc.want)
			}
		})
	}
	var s sizeFlag
	for in, want := range map[string]int64{"100MB": 100 << 20, "512kb": 512 << 10, "1G": 1 << 30, "2048": 2048, "7 B": 7} {
		if err := s.Set(in); err != nil || int64(s) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, s, err, want)
		}
	}
}

// TestDownloadSessionCaps: a page that starts many downloads at once, each
// under the cap of one, used to fill the directory (issue 27: five clicks
// saved 40 files, 76 MB, under a 2 MB cap). Now the session's downloads
// together are capped, in bytes (--max-downloads-total, those under way
// counted as they arrive) and in number (--max-downloads): past either,
// a download is cancelled, nothing of it is kept, the result says which
// bound, and the cap holds for what comes after.
func TestDownloadSessionCaps(t *testing.T) {
	t.Parallel()
	const file = 256 << 10 // each file the flood page starts
	tests := []struct {
		name   string
		flags  []string
		button string
		clicks int
		// maxFiles and maxBytes bound what may be left in the directory;
		// why is the flag a refusal names.
		maxFiles int
		maxBytes int64
		why      string
	}{
		{"five clicks past the total", []string{"--max-download-size", "2MB", "--max-downloads-total", "1MB"}, "Export all statements", 5, 4, 1 << 20, "--max-downloads-total"},
		{"frames past the total", []string{"--max-downloads-total", "512KB"}, "Export all statements by frames", 1, 2, 2 * file, "--max-downloads-total"},
		{"links past the count", []string{"--max-downloads", "3"}, "Export all statements", 2, 3, 3 * file, "--max-downloads"},
		{"frames past the count", []string{"--max-downloads", "5"}, "Export all statements by frames", 1, 5, 5 * file, "--max-downloads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c, _ := downloadServe(t, "/hostile/download-flood", append([]string{"--download-dir", dir}, tc.flags...)...)
			var messages []string
			for range tc.clicks {
				messages = append(messages, downloadClick(t, c, "button", tc.button).Message)
			}
			// One more, small: the cap still holds after the flood (and
			// the flood's downloads have ended by the time it answers).
			last := downloadClick(t, c, "link", "Export one statement").Message
			messages = append(messages, last)
			// The result may also tell of the flood's last downloads.
			_, refusal, _ := strings.Cut(last, `The download of "one.csv" from `)
			refusal, _, _ = strings.Cut(refusal, "kept.")
			if strings.Contains(last, `Downloaded "one.csv"`) || !strings.Contains(refusal, "not saved") || !strings.Contains(refusal, "("+tc.why+")") {
				t.Errorf("a download past the cap: %q, want it refused naming %s", last, tc.why)
			}
			all := strings.Join(messages, "\n")
			if !strings.Contains(all, "nothing of it was kept") || !strings.Contains(all, tc.why) {
				t.Errorf("no result says a download was refused by %s:\n%s", tc.why, all)
			}
			// A download the flood began last may still be ending when the
			// last result comes: wait, a bounded time, for the directory to
			// hold only named files.
			names := browsertest.DirNames(t, dir)
			for i := 0; i < 50 && slices.ContainsFunc(names, func(n string) bool { return !strings.HasSuffix(n, ".csv") }); i++ {
				time.Sleep(100 * time.Millisecond)
				names = browsertest.DirNames(t, dir)
			}
			var total int64
			for _, n := range names {
				fi, err := os.Stat(filepath.Join(dir, n))
				if err != nil {
					t.Fatal(err)
				}
				total += fi.Size()
			}
			if len(names) > tc.maxFiles || total > tc.maxBytes {
				t.Errorf("the directory holds %d files, %d bytes, want at most %d files, %d bytes: %q", len(names), total, tc.maxFiles, tc.maxBytes, names)
			}
			if len(names) == 0 {
				t.Errorf("nothing saved: the cap should let the first files in")
			}
			for _, f := range downloadsIn(all) {
				if !slices.Contains(names, f.name) {
					t.Errorf("a result says %q was saved, but it is not in the directory", f.name)
				}
			}
		})
	}
}
