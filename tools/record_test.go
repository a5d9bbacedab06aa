package tools

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/recording"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// echoBoxes are where /hostile/record-echo draws what is typed, in CSS
// pixels: in big glyphs of text, and on a canvas.
var echoBoxes = map[string]image.Rectangle{
	"text":   image.Rect(20, 60, 920, 160),
	"canvas": image.Rect(20, 180, 920, 280),
}

// A recorded session masks what it types as screenshots do, in every
// frame, whether the page learns it by placeholder, as a password filled,
// or as a password typed key by key; the page echoes each keystroke in
// large glyphs and on a canvas. Each frame's echo boxes are compared, a
// glyph's cell at a time, with a screenshot taken unmasked at the end: no
// cell of the secret may show in any frame.
func TestRecordingMasksSecrets(t *testing.T) {
	t.Parallel()
	const secret = "K7Q9X2WM"
	for _, tc := range []struct {
		name    string
		cfg     Config
		field   string
		tool    string
		args    func(ref string) map[string]any
		screens bool // the screencast records frames before the typing
	}{
		{"placeholder", Config{Secrets: map[string]string{"CODE": secret}}, "Card code", toolapi.Fill,
			func(ref string) map[string]any { return map[string]any{"ref": ref, "value": "{{CODE}}"} }, false},
		{"password filled", Config{}, "PIN", toolapi.Fill,
			func(ref string) map[string]any { return map[string]any{"ref": ref, "value": secret} }, true},
		{"password keyed", Config{}, "PIN", toolapi.PressKey,
			func(ref string) map[string]any { return map[string]any{"ref": ref, "text": secret} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "rec")
			rec, err := recording.Open(dir, "test", recording.Options{MaxFPS: 30})
			if err != nil {
				t.Fatal(err)
			}
			h := openWith(t, "/hostile/record-echo", tc.cfg, WithRecording(NewRecording(rec, nil)))
			if tc.screens {
				// The screencast shows the page before anything is typed.
				h.evalString(`document.getElementById('big').textContent = '...', ''`)
				waitFrames(t, rec, 1)
			}
			ref := browsertest.Labelled(t, h.snap(false), tc.field)
			if r := h.act(tc.tool, tc.args(ref)); !r.Success {
				t.Fatalf("%s: %s", tc.tool, r.Message)
			}
			if got := h.evalString(`document.getElementById('big').textContent`); got != secret {
				t.Fatalf("the page echoes %q, want the secret", got)
			}
			h.snap(false)
			// The page as it is, unmasked: the secret in both boxes.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			shot, err := h.tab.Screenshot(ctx, browser.CaptureOptions{Format: "jpeg", JPEGQuality: 70, ImageTokens: stillTokens})
			if err != nil {
				t.Fatal(err)
			}
			var width float64
			h.eval(`innerWidth`, &width)
			h.s.Close()

			unmasked := decodeJPEG(t, shot.Data)
			read, err := recording.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(read.Frames) < 2 || len(read.Calls) < 3 {
				t.Fatalf("recorded %d frames and %d calls, want frames before and after the typing and every call", len(read.Frames), len(read.Calls))
			}
			for name, box := range echoBoxes {
				if n := browsertest.InkCells(unmasked, browsertest.Scaled(box, unmasked, width)); n < len(secret)-1 {
					t.Fatalf("the unmasked %s box shows %d glyphs, want the secret's %d: the comparison would prove nothing", name, n, len(secret))
				}
			}
			for i, f := range read.Frames {
				data, err := os.ReadFile(filepath.Join(dir, f.File))
				if err != nil {
					t.Fatal(err)
				}
				img := decodeJPEG(t, data)
				for name, box := range echoBoxes {
					if cell, overlap := browsertest.ShownCell(unmasked, browsertest.Scaled(box, unmasked, width), img, browsertest.Scaled(box, img, width)); cell >= 0 {
						t.Errorf("frame %d (%s) shows the secret's glyph %d in the %s box (%.0f%% of its ink)", i+1, f.File, cell+1, name, overlap*100)
					}
				}
			}
			raw, _ := os.ReadFile(filepath.Join(dir, recording.TimelineName))
			if strings.Contains(string(raw), secret) {
				t.Errorf("the timeline shows the secret")
			}
			t.Logf("%d frames, %d calls, notes %+v", len(read.Frames), len(read.Calls), read.Notes)
		})
	}
}

// waitFrames waits until rec kept n frames.
func waitFrames(t *testing.T, rec *recording.Recorder, n int) {
	t.Helper()
	for range 200 {
		if rec.Stats().Frames >= n {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("the recording kept %d frames, want %d", rec.Stats().Frames, n)
}

func decodeJPEG(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// What a person types once they took the browser is never in the
// recording's frames: the screencast's frames stop at the takeover (the
// session learns the person's passwords only when they hand back), and
// the frames after it are masked stills.
func TestRecordingStopsAtATakeover(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "rec")
	rec, err := recording.Open(dir, "test", recording.Options{MaxFPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	h := openWith(t, "/hostile/record-echo", Config{}, WithRecording(NewRecording(rec, nil)))
	h.evalString(`document.getElementById('big').textContent = '...', ''`)
	waitFrames(t, rec, 1)
	h.s.TakeOver()
	took := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The person clicks into the PIN field and types.
	var box struct{ X, Y float64 }
	h.eval(`(() => { const r = document.getElementById('pin').getBoundingClientRect(); return {X: r.left + 5, Y: r.top + 5}; })()`, &box)
	events := []browser.PersonInput{
		{Type: "mousePressed", X: box.X, Y: box.Y, Button: "left", ClickCount: 1},
		{Type: "mouseReleased", X: box.X, Y: box.Y, Button: "left", ClickCount: 1},
	}
	for _, c := range "84Z1Q6PL" {
		k := string(c)
		events = append(events, browser.PersonInput{Type: "keyDown", Key: k, Text: k}, browser.PersonInput{Type: "keyUp", Key: k})
	}
	for _, ev := range events {
		if err := h.s.PersonInput(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.evalString(`document.getElementById('big').textContent`); got != "84Z1Q6PL" {
		t.Fatalf("the page echoes %q, want what the person typed", got)
	}
	h.s.HandBack("done")
	h.snap(false)
	h.s.Close()

	read, err := recording.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Notes) != 1 {
		t.Fatalf("notes %+v, want the switch to stills", read.Notes)
	}
	switched := read.Notes[0].Time
	screencast := 0
	for _, f := range read.Frames {
		// A still comes after the switch; a screencast frame before it.
		if f.Time.Before(switched) {
			screencast++
			if f.Time.After(took) {
				t.Errorf("a screencast frame drawn at %v, after the takeover at %v", f.Time, took)
			}
		}
	}
	if screencast == 0 || len(read.Frames) == screencast {
		t.Errorf("%d frames, %d of the screencast: want both kinds", len(read.Frames), screencast)
	}
}
