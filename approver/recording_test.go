package approver_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/recording"
)

// The console plays a session's recording under its own capability and
// content policy: the player runs, shows the frames, and shows a mark's
// hostile text as text; the frames are served by name only, and a session
// without a recording has none.
func TestWebRecordingView(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	web, err := approver.NewWeb(approver.WebOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := web.Listen(""); err != nil {
		t.Fatal(err)
	}
	defer web.Close()

	dir := filepath.Join(t.TempDir(), "rec")
	rec, err := recording.Open(dir, "s1", recording.Options{MaxFPS: 100})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i := range 3 {
		img := image.NewGray(image.Rect(0, 0, 64, 32))
		for j := range img.Pix {
			img.Pix[j] = uint8(60 * i)
		}
		var b bytes.Buffer
		jpeg.Encode(&b, img, nil)
		rec.Frame(recording.Frame{Data: b.Bytes(), Time: t0.Add(time.Duration(i) * time.Second), Width: 64, Height: 32})
	}
	const hostile = `</script><script>document.title='pwned'</script><img src=x onerror="document.title='pwned'">`
	rec.Call(recording.Call{Tool: "browser_click", Target: hostile, Code: "ok", Start: t0.Add(time.Second), End: t0.Add(1500 * time.Millisecond)})
	rec.Approval(recording.Approval{ID: "a", Action: hostile, Asked: t0.Add(2 * time.Second), Decided: t0.Add(2 * time.Second), Channel: "web", Approved: true})
	rec.Close()
	web.AttachRecording("s1", dir)

	u, err := web.URL("s1")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := web.URL("s2")
	for _, tc := range []struct {
		url  string
		code int
	}{
		{u + "recording/frames/000001.jpg", 200},
		{u + "recording/frames/000009.jpg", 404},
		{u + "recording/frames/../timeline.jsonl", 404},
		{u + "recording/timeline.jsonl", 404},
		{u + "recording/frames/%2e%2e/timeline.jsonl", 404},
		{other + "recording", 404},
	} {
		resp, err := http.Get(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || (tc.code != 200 && bytes.Contains(body, []byte(`"type":"start"`))) {
			t.Errorf("GET %s: %d, want %d", tc.url, resp.StatusCode, tc.code)
		}
	}

	tab := browsertest.Tab(t)
	if err := tab.Navigate(ctx, u+"recording"); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Loaded bool
		Title  string
		Marks  []string
		Ticks  int
	}
	for range 100 {
		if err := tab.Evaluate(ctx, `(() => { const img = document.querySelector('#recording .rec-frame');
  return {Loaded: img.complete && img.naturalWidth === 64, Title: document.title,
    Marks: [...document.querySelectorAll('#recording .rec-marks button')].map(b => b.textContent),
    Ticks: document.querySelectorAll('#recording .rec-bar .rec-tick').length}; })()`, &st); err != nil {
			t.Fatal(err)
		}
		if st.Loaded {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !st.Loaded || st.Ticks != 2 || len(st.Marks) != 2 {
		t.Fatalf("the player did not run under the console's policy: %+v", st)
	}
	if st.Title == "pwned" || !strings.Contains(st.Marks[0], hostile) || !strings.Contains(st.Marks[1], "approved by web") {
		t.Errorf("marks %q, title %q: want the hostile text shown as text", st.Marks, st.Title)
	}
}
