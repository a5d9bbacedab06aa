package recording

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// picture is a distinct JPEG for each n: a gray level and a width.
func picture(t testing.TB, n int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 32+n%8, 16))
	for i := range img.Pix {
		img.Pix[i] = uint8(n * 37)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// manualTimers replaces r's timers by ones the test fires.
type manualTimers struct{ fire []func() }

type manualTimer struct{ stopped *bool }

func (m manualTimer) Stop() bool { *m.stopped = true; return true }

func (m *manualTimers) install(r *Recorder) {
	r.after = func(_ time.Duration, f func()) stopper {
		stopped := new(bool)
		m.fire = append(m.fire, func() {
			if !*stopped {
				f()
			}
		})
		return manualTimer{stopped}
	}
}

func open(t *testing.T, opts Options) (*Recorder, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rec")
	r, err := Open(dir, "session-1", opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

func read(t *testing.T, dir string) *Recording {
	t.Helper()
	rec, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// The frame rate bound keeps at most MaxFPS frames a second, by the
// frames' own times; a frame held back is written when its turn comes
// unless a newer one supersedes it, and the last one is never lost.
func TestFrameRate(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		fps   float64
		every time.Duration
		n     int
		fire  bool // fire the timers as they are set
		want  int
	}{
		// 21 frames over 2 s at 10 fps, bound 2 fps: 0, .5, 1, 1.5, 2.
		{"bounded", 2, 100 * time.Millisecond, 21, false, 5},
		// Slower than the bound: all kept.
		{"under", 10, 200 * time.Millisecond, 6, false, 6},
		// A burst, then quiet: the burst's last frame is written by its
		// timer, not lost.
		{"burst", 1, 10 * time.Millisecond, 5, true, 2},
		// The same burst closed before the timer fires: Close writes it.
		{"burst closed", 1, 10 * time.Millisecond, 5, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, dir := open(t, Options{MaxFPS: tc.fps})
			var timers manualTimers
			timers.install(r)
			for i := range tc.n {
				r.Frame(Frame{Data: picture(t, i), Time: t0.Add(time.Duration(i) * tc.every), Width: 32, Height: 16})
			}
			if tc.fire {
				for _, f := range timers.fire {
					f()
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			rec := read(t, dir)
			if len(rec.Frames) != tc.want {
				t.Fatalf("kept %d frames, want %d (stats %+v)", len(rec.Frames), tc.want, r.Stats())
			}
			last := rec.Frames[len(rec.Frames)-1]
			if want := t0.Add(time.Duration(tc.n-1) * tc.every); !last.Time.Equal(want) {
				t.Errorf("last frame at %v, want the last one sent, at %v", last.Time, want)
			}
			for i := 1; i < len(rec.Frames)-1; i++ {
				if gap := rec.Frames[i].Time.Sub(rec.Frames[i-1].Time); gap < time.Duration(float64(time.Second)/tc.fps) {
					t.Errorf("frames %d and %d are %v apart, under the rate", i-1, i, gap)
				}
			}
		})
	}
}

// A frame identical to the last one kept is not written again, however
// much time passed.
func TestIdenticalFramesSkipped(t *testing.T) {
	r, dir := open(t, Options{MaxFPS: 1000})
	t0 := time.Now()
	same := picture(t, 3)
	for i := range 10 {
		r.Frame(Frame{Data: same, Time: t0.Add(time.Duration(i) * time.Second)})
	}
	r.Frame(Frame{Data: picture(t, 4), Time: t0.Add(11 * time.Second)})
	r.Frame(Frame{Data: picture(t, 4), Time: t0.Add(12 * time.Second)})
	r.Close()
	rec := read(t, dir)
	if len(rec.Frames) != 2 || r.Stats().Same != 10 {
		t.Fatalf("kept %d frames, skipped %d as the same; want 2 and 10", len(rec.Frames), r.Stats().Same)
	}
}

// The size bound thins the frames out as it fills (the rate halves at
// each half of what is left), then stops them with a note; marks still
// go on the timeline.
func TestSizeBound(t *testing.T) {
	size := len(picture(t, 1))
	r, dir := open(t, Options{MaxFPS: 10, MaxBytes: int64(size * 8)})
	t0 := time.Now()
	// One frame every 100 ms for 20 s: without the bound, 200 frames.
	for i := range 200 {
		r.Frame(Frame{Data: picture(t, i), Time: t0.Add(time.Duration(i) * 100 * time.Millisecond)})
	}
	r.Call(Call{Tool: "browser_click", Code: "ok", Start: t0.Add(21 * time.Second), End: t0.Add(22 * time.Second)})
	r.Close()
	rec := read(t, dir)
	var total int64
	for _, f := range rec.Frames {
		total += int64(f.Bytes)
	}
	if total > int64(size*8) {
		t.Errorf("kept %d bytes, over the bound of %d", total, size*8)
	}
	if len(rec.Frames) < 4 || len(rec.Frames) > 8 {
		t.Errorf("kept %d frames, want between 4 and 8", len(rec.Frames))
	}
	// The gaps grow as the bound fills.
	first := rec.Frames[1].Time.Sub(rec.Frames[0].Time)
	lastGap := rec.Frames[len(rec.Frames)-1].Time.Sub(rec.Frames[len(rec.Frames)-2].Time)
	if lastGap <= first {
		t.Errorf("gaps %v then %v: the rate did not thin out", first, lastGap)
	}
	if len(rec.Notes) != 1 || !strings.Contains(rec.Notes[0].Text, "size bound") {
		t.Errorf("notes = %+v, want one saying frames stopped", rec.Notes)
	}
	if len(rec.Calls) != 1 {
		t.Errorf("calls = %+v, want the mark after the bound", rec.Calls)
	}
}

// Marks are written as they happen, redacted, and read back; a PNG still
// becomes a JPEG frame.
func TestMarksAndPNG(t *testing.T) {
	r, dir := open(t, Options{Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2", "{{PW}}") }})
	t0 := time.Now()
	img := image.NewRGBA(image.Rect(0, 0, 20, 10))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var p bytes.Buffer
	png.Encode(&p, img)
	r.Frame(Frame{Data: p.Bytes(), Time: t0})
	r.Call(Call{Tool: "browser_fill", Target: `@e3 textbox "hunter2"`, Code: "ok", Start: t0, End: t0.Add(time.Second)})
	r.Approval(Approval{ID: "a1", Action: `click "Pay hunter2"`, Asked: t0.Add(time.Second), Decided: t0.Add(2 * time.Second), Channel: "web", Approved: true})
	r.Note(t0, "note hunter2")
	r.Close()
	raw, _ := os.ReadFile(filepath.Join(dir, TimelineName))
	if bytes.Contains(raw, []byte("hunter2")) {
		t.Errorf("the timeline shows the secret:\n%s", raw)
	}
	rec := read(t, dir)
	if len(rec.Frames) != 1 || len(rec.Calls) != 1 || len(rec.Approvals) != 1 || len(rec.Notes) != 1 || rec.Session != "session-1" {
		t.Fatalf("read %+v", rec)
	}
	data, _ := os.ReadFile(filepath.Join(dir, rec.Frames[0].File))
	if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("the PNG frame is no JPEG: %v", err)
	}
	p2 := rec.Player("recording/")
	if p2.Frames[0].Src != "recording/frames/000001.jpg" || !p2.Approvals[0].Approved || p2.Approvals[0].T-p2.Frames[0].T != 1000 || p2.Calls[0].End-p2.Calls[0].T != 1000 {
		t.Errorf("player = %+v", p2)
	}
}

// A timeline that names files outside its frames directory, or a line cut
// short, is read without them.
func TestReadSkipsForeignFilesAndTornLines(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, FramesDir), 0o700)
	os.WriteFile(filepath.Join(dir, FramesDir, "000001.jpg"), picture(t, 1), 0o600)
	os.WriteFile(filepath.Join(dir, "secret.jpg"), picture(t, 2), 0o600)
	t0 := time.Now().UTC().Format(time.RFC3339Nano)
	lines := []string{
		`{"type":"start","time":"` + t0 + `","text":"s"}`,
		`{"type":"frame","time":"` + t0 + `","file":"frames/000001.jpg"}`,
		`{"type":"frame","time":"` + t0 + `","file":"../secret.jpg"}`,
		`{"type":"frame","time":"` + t0 + `","file":"frames/../secret.jpg"}`,
		`{"type":"frame","time":"` + t0 + `","file":"/etc/passwd"}`,
		`{"type":"frame","time":"` + t0 + `","file":"frames/000002.jpg"}`, // missing
		`{"type":"call","time":"` + t0 + `","call":{"tool":"browser_cl`,
	}
	os.WriteFile(filepath.Join(dir, TimelineName), []byte(strings.Join(lines, "\n")), 0o600)
	rec := read(t, dir)
	if len(rec.Frames) != 1 || rec.Frames[0].File != "frames/000001.jpg" || len(rec.Calls) != 0 {
		t.Fatalf("frames %+v, calls %+v", rec.Frames, rec.Calls)
	}
}

// crashEnv names the directory a child process records into before it
// kills itself.
const crashEnv = "RECORDING_CRASH_DIR"

// What was written survives a process killed without Close: every frame
// and mark before the kill is read back.
func TestWritesSurviveAbruptStop(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		// The child: record, then die without closing anything.
		r, err := Open(dir, "crash", Options{MaxFPS: 1000})
		if err != nil {
			os.Exit(3)
		}
		t0 := time.Now()
		for i := range 20 {
			r.Frame(Frame{Data: picture(t, i), Time: t0.Add(time.Duration(i) * 10 * time.Millisecond)})
			r.Call(Call{Tool: fmt.Sprintf("call-%d", i), Code: "ok", Start: t0, End: t0})
		}
		r.Approval(Approval{ID: "last", Action: "click", Asked: t0, Decided: t0, Channel: "web", Approved: true})
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	dir := filepath.Join(t.TempDir(), "rec")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWritesSurviveAbruptStop$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v", err)
	}
	rec := read(t, dir)
	if len(rec.Frames) != 20 || len(rec.Calls) != 20 || len(rec.Approvals) != 1 {
		t.Fatalf("after the kill: %d frames, %d calls, %d approvals; want 20, 20, 1", len(rec.Frames), len(rec.Calls), len(rec.Approvals))
	}
	// A recording opened again goes on after the frames it has.
	r, err := Open(dir, "again", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Frame(Frame{Data: picture(t, 99), Time: time.Now().Add(time.Hour)})
	r.Close()
	if rec := read(t, dir); len(rec.Frames) != 21 || rec.Frames[20].File != "frames/000021.jpg" {
		t.Fatalf("reopened: %d frames, last %+v", len(rec.Frames), rec.Frames[len(rec.Frames)-1])
	}
}
