package recording

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A recording exports as an H.264 video as long as the recording, each
// frame held while it was the newest (ffmpeg: scripts/ensure-ffmpeg).
func TestExport(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("no ffmpeg: run scripts/ensure-ffmpeg (make test does)")
	}
	r, dir := open(t, Options{MaxFPS: 100})
	t0 := time.Now()
	for i := range 4 {
		// Frames of two sizes: a still and a screencast frame differ.
		r.Frame(Frame{Data: picture(t, i), Time: t0.Add(time.Duration(i) * 500 * time.Millisecond), Width: float64(32 + i%8), Height: 16})
	}
	r.Call(Call{Tool: "browser_click", Code: "ok", Start: t0, End: t0.Add(2 * time.Second)})
	r.Close()
	rec := read(t, dir)
	out := filepath.Join(t.TempDir(), "out.mp4")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Export(ctx, rec, out, ffmpeg); err != nil {
		t.Fatal(err)
	}
	probe, err := exec.CommandContext(ctx, filepath.Join(filepath.Dir(ffmpeg), "ffprobe"), "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,nb_frames", "-of", "csv=p=0", out).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	fields := strings.Split(strings.TrimSpace(string(probe)), ",")
	n, _ := strconv.Atoi(fields[len(fields)-1])
	// The recording lasts from its start (Open) to the call's end, at
	// ExportFPS.
	want := int(rec.Duration()/(time.Second/ExportFPS)) + 1
	if fields[0] != "h264" || n != want {
		t.Errorf("ffprobe says %q, want h264 with %d frames", probe, want)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Errorf("no video: %v", err)
	}
	// No ffmpeg: a clear error.
	if err := Export(ctx, rec, out, filepath.Join(t.TempDir(), "no-ffmpeg")); err == nil {
		t.Error("exported without an encoder")
	}
}
