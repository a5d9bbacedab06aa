package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/recording"
	"github.com/chaperone-mcp/chaperone/tools"
)

// openRecording opens the recording of session id in dir (--record's
// dir/<id>/, a run record's recording/), passing the approvals it marks on
// to a.
func openRecording(dir, id string, a *audit.Log) (*tools.Recording, error) {
	rec, err := recording.Open(dir, id, recording.Options{})
	if err != nil {
		return nil, err
	}
	return tools.NewRecording(rec, a), nil
}

// attachRecording makes a session's recording playable from the web
// console, when there is one, and says where.
func attachRecording(web *approver.Web, stderr io.Writer, id string, r *tools.Recording) {
	if web == nil || r == nil {
		return
	}
	web.AttachRecording(id, r.Dir())
	if u, err := web.URL(id); err == nil {
		fmt.Fprintf(stderr, "Recording (play it back, scrub, jump to a call): %srecording\n", u)
	}
}

// recordCmd is `chaperone record export DIR OUT.mp4`: a session's
// recording as a video, made by ffmpeg.
func recordCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "record", "record export [flags] DIR OUT.mp4")
	ffmpeg := fs.String("ffmpeg", "", "the ffmpeg `program` (default: ffmpeg on PATH)")
	if len(args) == 0 || args[0] != "export" {
		fs.Usage()
		return errUsage
	}
	rest, err := parseFlags(fs, args[1:], e.getenv)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		fs.Usage()
		return errUsage
	}
	dir := rest[0]
	// A run record holds its recording in a directory of its own.
	if _, err := recording.Read(dir); err != nil {
		if sub := filepath.Join(dir, driver.RecordingDir); sub != dir {
			if _, err2 := recording.Read(sub); err2 == nil {
				dir = sub
			}
		}
	}
	rec, err := recording.Read(dir)
	if err != nil {
		return err
	}
	if err := recording.Export(ctx, rec, rest[1], *ffmpeg); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Wrote %s: %d frames over %s.\n", rest[1], len(rec.Frames), rec.Duration().Round(100e6))
	return nil
}
