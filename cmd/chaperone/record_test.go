package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/recording"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// reportShot is where TestDemoRecordingPlays leaves its picture of the
// player (a person reads it; nothing compares it).
var reportShot = filepath.Join(os.TempDir(), "chaperone-record-report.png")

// The demo is recorded: frames, each tool call, and the person's approval
// on the timeline; report.html plays it in Chromium, its timeline marks the
// calls and the approval, and a click on a call jumps to the frame of that
// moment.
func TestDemoRecordingPlays(t *testing.T) {
	t.Parallel()
	e, stdout, stderr := driverEnv(nil)
	dir := filepath.Join(t.TempDir(), "run")
	person := &checkpointtest.Person{Answer: checkpoint.Decision{Approved: true, Channel: "test"}}
	tk := demoTestTask(t, e, dir, person)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := runDemo(ctx, e, tk); err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}

	rec, err := recording.Read(filepath.Join(dir, driver.RecordingDir))
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, c := range rec.Calls {
		tools = append(tools, c.Tool)
	}
	want := []string{toolapi.Click, toolapi.Click, toolapi.Click, toolapi.Click, toolapi.RequestApproval, toolapi.Click, toolapi.CompleteTask}
	if !containsInOrder(tools, want) {
		t.Errorf("calls marked %q, want %q among them", tools, want)
	}
	if len(rec.Approvals) == 0 || !rec.Approvals[0].Approved || rec.Approvals[0].Channel != "test" {
		t.Fatalf("approvals = %+v, want the person's approval", rec.Approvals)
	}
	if len(rec.Frames) < 2 {
		t.Fatalf("%d frames recorded", len(rec.Frames))
	}
	var size int64
	for _, f := range rec.Frames {
		size += int64(f.Bytes)
	}
	t.Logf("recorded %d frames, %d bytes over %v (%.0f KB a minute), %d calls, %d approvals",
		len(rec.Frames), size, rec.Duration(), float64(size)/1024/rec.Duration().Minutes(), len(rec.Calls), len(rec.Approvals))

	player := rec.Player(driver.RecordingDir + "/")
	checkPlayer(t, dir, player)
}

// containsInOrder reports whether want is a subsequence of got.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// playerState is what the test reads of the player in the page.
type playerState struct {
	Calls     []string `json:"calls"`
	CallTimes []int64  `json:"callTimes"`
	Approvals []string `json:"approvals"`
	Ticks     int      `json:"ticks"`
	Approved  int      `json:"approved"`
	Loaded    bool     `json:"loaded"`
	Frame     string   `json:"frame"`
	Src       string   `json:"src"`
	Time      string   `json:"time"`
}

const readPlayer = `(() => {
  const r = document.getElementById('recording'), img = r.querySelector('.rec-frame');
  const calls = [...r.querySelectorAll('.rec-marks button.rec-call')];
  return {
    calls: calls.map(b => b.textContent), callTimes: calls.map(b => Number(b.dataset.t)),
    approvals: [...r.querySelectorAll('.rec-marks button.rec-approval')].map(b => b.textContent),
    ticks: r.querySelectorAll('.rec-bar .rec-tick').length,
    approved: r.querySelectorAll('.rec-bar .rec-tick.rec-approved').length,
    loaded: img.complete && img.naturalWidth > 0,
    frame: img.dataset.frame || '', src: img.getAttribute('src') || '', time: r.dataset.time || '',
  };
})()`

// checkPlayer opens dir's report.html in Chromium and checks its player
// against p, the recording's data: frames shown, the calls and the approval
// marked, a real click on a call jumping there.
func checkPlayer(t *testing.T, dir string, p recording.Player) {
	t.Helper()
	base := browsertest.Serve(t, http.FileServer(http.Dir(dir)))
	b := browsertest.NewBrowser(t, browser.Options{})
	tab := browsertest.TabOf(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tab.Navigate(ctx, base+"/report.html"); err != nil {
		t.Fatal(err)
	}
	var st playerState
	for range 100 {
		if err := tab.Evaluate(ctx, readPlayer, &st); err != nil {
			t.Fatal(err)
		}
		if st.Loaded {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !st.Loaded || st.Src != p.Frames[0].Src {
		t.Fatalf("the player shows no frame: %+v", st)
	}
	if len(st.Calls) != len(p.Calls) || st.Ticks < len(p.Calls)+len(p.Approvals) {
		t.Errorf("the timeline marks %d calls (%d ticks), want %d calls and %d approvals", len(st.Calls), st.Ticks, len(p.Calls), len(p.Approvals))
	}
	if len(st.Approvals) == 0 || st.Approved == 0 || !strings.Contains(st.Approvals[0], "approved by test") {
		t.Errorf("the approval is not marked: %q, %d approved ticks", st.Approvals, st.Approved)
	}

	// Click (as a person does, with the mouse) each call in turn whose
	// moment shows another frame than the one on screen.
	jumps := 0
	for i, c := range p.Calls {
		want := frameAt(p, c.T)
		if fmt.Sprint(want) == st.Frame {
			continue
		}
		clickMark(t, ctx, tab, "rec-call", i)
		if err := tab.Evaluate(ctx, readPlayer, &st); err != nil {
			t.Fatal(err)
		}
		if st.Time != fmt.Sprint(c.T) || st.Frame != fmt.Sprint(want) || st.Src != p.Frames[want].Src {
			t.Errorf("after a click on call %d (%s at %d ms): time %s, frame %s (%s); want frame %d (%s)", i+1, c.Tool, c.T, st.Time, st.Frame, st.Src, want, p.Frames[want].Src)
		}
		jumps++
	}
	if jumps == 0 {
		t.Error("no call's moment shows another frame: the jump was never tried")
	}

	// The picture for a person: the player at the approval.
	clickMark(t, ctx, tab, "rec-approval", 0)
	if err := tab.Evaluate(ctx, `document.getElementById('recording').scrollIntoView(), 0`, nil); err != nil {
		t.Fatal(err)
	}
	shot, err := tab.Screenshot(ctx, browser.CaptureOptions{ImageTokens: 1280 * 900 / browser.PixelsPerToken})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reportShot, shot.Data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("the player at the approval: %s (%d×%d)", reportShot, shot.Width, shot.Height)
}

// frameAt is the index of the newest frame at or before t, as the player
// picks it.
func frameAt(p recording.Player, t int64) int {
	at := 0
	for i, f := range p.Frames {
		if f.T <= t {
			at = i
		}
	}
	return at
}

// clickMark clicks the i-th mark of a kind (rec-call, rec-approval) in
// the player's list, with a real mouse press on it.
func clickMark(t *testing.T, ctx context.Context, tab *browser.Context, kind string, i int) {
	t.Helper()
	var box struct{ X, Y float64 }
	expr := fmt.Sprintf(`(() => { const b = document.querySelectorAll('#recording .rec-marks button.%s')[%d];
  b.scrollIntoView({block: 'center'}); const r = b.getBoundingClientRect();
  return {X: r.left + Math.min(r.width / 2, 40), Y: r.top + r.height / 2}; })()`, kind, i)
	if err := tab.Evaluate(ctx, expr, &box); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []browser.PersonInput{
		{Type: "mouseMoved", X: box.X, Y: box.Y},
		{Type: "mousePressed", X: box.X, Y: box.Y, Button: "left", ClickCount: 1},
		{Type: "mouseReleased", X: box.X, Y: box.Y, Button: "left", ClickCount: 1},
	} {
		if err := tab.DispatchPersonInput(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
}

// serve --record records each MCP session into a directory of its own, a
// secret typed by placeholder leaves no trace in its timeline, and `record
// export` makes a video of it.
func TestServeRecords(t *testing.T) {
	t.Parallel()
	const secret = "K7Q9X2WM"
	dir := filepath.Join(t.TempDir(), "recordings")
	site := browsertest.Site(t)
	c, _, stderr := stdioClient(t, []string{"CARD=" + secret}, "serve", "--profile", "none", "--secret", "CARD",
		"--record", dir, "--url", site+"/hostile/record-echo")
	s := getSnapshot(t, c)
	ref := ""
	for _, e := range s.Elements {
		if e.Name == "Card code" {
			ref = e.Ref
		}
	}
	if r, _ := act(t, c, toolapi.Fill, map[string]any{"ref": ref, "value": "{{CARD}}"}); !r.Success {
		t.Fatalf("fill: %s", r.Message)
	}
	getSnapshot(t, c)
	c.Close()

	sessions, err := filepath.Glob(filepath.Join(dir, "*", recording.TimelineName))
	if err != nil || len(sessions) != 1 {
		t.Fatalf("recordings %v (%v), want one session's; stderr:\n%s", sessions, err, stderr)
	}
	sdir := filepath.Dir(sessions[0])
	rec, err := recording.Read(sdir)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, c := range rec.Calls {
		tools = append(tools, c.Tool)
	}
	if !containsInOrder(tools, []string{toolapi.GetSnapshot, toolapi.Fill, toolapi.GetSnapshot}) || len(rec.Frames) < 2 {
		t.Errorf("recorded calls %q and %d frames", tools, len(rec.Frames))
	}
	if len(rec.Notes) == 0 || !strings.Contains(rec.Notes[0].Text, "secrets masked") {
		t.Errorf("notes %+v, want the frames said to be masked stills", rec.Notes)
	}
	raw, _ := os.ReadFile(sessions[0])
	if strings.Contains(string(raw), secret) {
		t.Errorf("the timeline shows the secret:\n%s", raw)
	}

	out := filepath.Join(t.TempDir(), "session.mp4")
	cmd := exec.Command(bin, "record", "export", sdir, out)
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "Wrote "+out) {
		t.Fatalf("record export: %v\n%s", err, b)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Errorf("no video: %v", err)
	}
}

// The demo with a secret typed on the way (the survey's comment, by
// placeholder): it still succeeds, its recording's frames are masked
// pictures, and no frame shows the secret where the page shows what was
// typed, compared glyph by glyph with the survey photographed unmasked with
// the secret in it.
func TestDemoRecordingMasksASecret(t *testing.T) {
	t.Parallel()
	const secret = "K7Q9X2WM-84Z1Q6PL"
	e, stdout, stderr := driverEnv(nil)
	dir := filepath.Join(t.TempDir(), "run")
	person := &checkpointtest.Person{Answer: checkpoint.Decision{Approved: true, Channel: "test"}}
	tk := demoTestTask(t, e, dir, person)
	tk.secrets = map[string]string{"NOTE": secret}
	agent := scriptedDemoAgent()
	agent.Steps = slices.Insert(agent.Steps, 3, driver.ActOn(toolapi.Fill, "textbox", "Anything else you'd like to tell us?", map[string]any{"value": "{{NOTE}}"}))
	tk.model = agent
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := runDemo(ctx, e, tk); err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	rec, err := recording.Read(filepath.Join(dir, driver.RecordingDir))
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, c := range rec.Calls {
		tools = append(tools, c.Tool)
	}
	if !containsInOrder(tools, []string{toolapi.Fill, toolapi.RequestApproval, toolapi.CompleteTask}) || len(rec.Approvals) == 0 {
		t.Fatalf("calls %q, approvals %+v", tools, rec.Approvals)
	}

	// The survey as a page shows it with the secret typed, unmasked.
	tab := browsertest.Tab(t)
	if err := tab.Navigate(ctx, browsertest.Site(t)+"/survey"); err != nil {
		t.Fatal(err)
	}
	var box struct{ X, Y, W, H, Width float64 }
	if err := tab.Evaluate(ctx, `(() => { const c = document.getElementById('comments'); c.value = `+strconv.Quote(secret)+`;
  const r = c.getBoundingClientRect(); return {X: r.left, Y: r.top, W: r.width, H: r.height, Width: document.documentElement.clientWidth}; })()`, &box); err != nil {
		t.Fatal(err)
	}
	shot, err := tab.Screenshot(ctx, browser.CaptureOptions{Format: "jpeg", JPEGQuality: 70, ImageTokens: 1280 * 720 / browser.PixelsPerToken})
	if err != nil {
		t.Fatal(err)
	}
	unmasked, err := jpeg.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	field := image.Rect(int(box.X), int(box.Y), int(box.X+box.W), int(box.Y+box.H))
	rbox := browsertest.Scaled(field, unmasked, box.Width)
	if n := browsertest.InkCells(unmasked, rbox); n < 6 {
		t.Fatalf("the unmasked comment shows ink in %d cells: the comparison would prove nothing", n)
	}
	for i, f := range rec.Frames {
		data, err := os.ReadFile(filepath.Join(rec.Dir, f.File))
		if err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		// A frame may be smaller (the picture a person was asked with).
		if cell, overlap := browsertest.ShownCell(unmasked, rbox, img, browsertest.Scaled(field, img, box.Width)); cell >= 0 {
			t.Errorf("frame %d (%s) shows the secret's part %d (%.0f%% of its ink)", i+1, f.File, cell+1, overlap*100)
		}
	}
	t.Logf("%d frames checked; notes %+v", len(rec.Frames), rec.Notes)
}
