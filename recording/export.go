package recording

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// ExportFPS is the frame rate of an exported video: each frame of the
// recording is shown for as long as it was the newest, to within a tenth of
// a second.
const ExportFPS = 10

// maxExport bounds an exported video's length: a session left open for a
// day must not make a day of video.
const maxExport = 4 * time.Hour

// ErrNoEncoder is the error of Export when no ffmpeg can be found.
var ErrNoEncoder = errors.New("no ffmpeg found: install it (Debian and Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg) or name it with --ffmpeg")

// Export writes rec as an H.264 MP4 video to out with ffmpeg (the program
// ffmpeg names; "" looks for ffmpeg on PATH): the frames are piped to it as
// JPEGs at ExportFPS, each repeated for as long as it was on screen.
func Export(ctx context.Context, rec *Recording, out, ffmpeg string) error {
	if len(rec.Frames) == 0 {
		return fmt.Errorf("export %s: the recording has no frames", rec.Dir)
	}
	if ffmpeg == "" {
		p, err := exec.LookPath("ffmpeg")
		if err != nil {
			return ErrNoEncoder
		}
		ffmpeg = p
	}
	cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-loglevel", "error", "-y",
		"-f", "image2pipe", "-framerate", fmt.Sprint(ExportFPS), "-c:v", "mjpeg", "-i", "-",
		// Frames of other sizes (a still, a new viewport) are fitted into
		// the first one's size.
		"-vf", fmt.Sprintf("scale=%[1]d:%[2]d:force_original_aspect_ratio=decrease,pad=%[1]d:%[2]d:(ow-iw)/2:(oh-ih)/2:white", evenSide(rec, true), evenSide(rec, false)),
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", out)
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("export: start %s: %w", ffmpeg, err)
	}
	werr := writeFrames(in, rec)
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("export: ffmpeg: %w: %s", err, stderr.b)
	}
	if werr != nil {
		return fmt.Errorf("export: %w", werr)
	}
	return nil
}

// writeFrames writes rec's frames to w, each once per tick it was the
// newest.
func writeFrames(w io.Writer, rec *Recording) error {
	tick := time.Second / ExportFPS
	end := min(rec.Duration(), maxExport)
	var cur []byte
	next := 0
	for t := time.Duration(0); t <= end; t += tick {
		for next < len(rec.Frames) && rec.Frames[next].Time.Sub(rec.Start) <= t {
			data, err := os.ReadFile(filepath.Join(rec.Dir, filepath.FromSlash(rec.Frames[next].File)))
			if err != nil {
				return fmt.Errorf("read a frame: %w", err)
			}
			cur = data
			next++
		}
		if cur == nil {
			// Before the first frame: the first one stands in.
			data, err := os.ReadFile(filepath.Join(rec.Dir, filepath.FromSlash(rec.Frames[0].File)))
			if err != nil {
				return fmt.Errorf("read a frame: %w", err)
			}
			cur = data
		}
		if _, err := w.Write(cur); err != nil {
			return fmt.Errorf("feed ffmpeg: %w", err)
		}
	}
	return nil
}

// evenSide is the video's width (or height): the first frame's viewport,
// even, as H.264 with yuv420p needs, and 1280×720 when unknown.
func evenSide(rec *Recording, width bool) int {
	f := rec.Frames[0]
	v, def := f.Height, 720
	if width {
		v, def = f.Width, 1280
	}
	if v < 16 || v > 4096 {
		return def
	}
	return int(v) &^ 1
}

// limitedBuffer keeps the first 4 KiB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
