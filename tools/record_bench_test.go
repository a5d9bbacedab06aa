package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/recording"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// BenchmarkRecording is the cost of recording a session: one browser_fill
// per op on a page that echoes it in large glyphs, without a recording,
// with one (the screencast fed to the recording), and with one of a
// session that has a secret (a masked screenshot after each call, no
// screencast). cpu-ms/op is this
// process's CPU (user and system) per op; Chromium's encoding of the
// frames is in its own process and not counted.
func BenchmarkRecording(b *testing.B) {
	for _, mode := range []string{"off", "on", "stills"} {
		on := mode != "off"
		b.Run(mode, func(b *testing.B) {
			tab := browsertest.Tab(b)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := tab.Navigate(ctx, browsertest.Site(b)+"/hostile/record-echo"); err != nil {
				b.Fatal(err)
			}
			var opts []SessionOption
			var rec *recording.Recorder
			if on {
				var err error
				if rec, err = recording.Open(filepath.Join(b.TempDir(), "rec"), "bench", recording.Options{}); err != nil {
					b.Fatal(err)
				}
				opts = append(opts, WithRecording(NewRecording(rec, nil)))
			}
			cfg := Config{ActionTimeout: 6 * time.Second, SnapshotTimeout: 6 * time.Second, Screenshots: ScreenshotsNever}
			if mode == "stills" {
				cfg.Secrets = map[string]string{"UNUSED": "never-typed-value"}
			}
			s := NewSession(tab, cfg, opts...)
			defer s.Close()
			if _, err := s.Call(ctx, toolapi.GetSnapshot, json.RawMessage(`{}`)); err != nil {
				b.Fatal(err)
			}
			ref := ""
			for r, t := range s.live {
				if t.Name == "Card code" {
					ref = r
				}
			}
			var before, after syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			start := time.Now()
			b.ResetTimer()
			for i := range b.N {
				args, _ := json.Marshal(map[string]any{"ref": ref, "value": fmt.Sprintf("WXYZ %06d", i)})
				out, err := s.Call(ctx, toolapi.Fill, args)
				if err != nil {
					b.Fatal(err)
				}
				r := out.Value.(toolapi.ActionResult)
				if !r.Success {
					b.Fatal(r.Message)
				}
				// The result's snapshot has the new refs.
				for _, e := range r.Snapshot.Elements {
					if e.Name == "Card code" {
						ref = e.Ref
					}
				}
			}
			b.StopTimer()
			syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			if rec != nil {
				st := rec.Stats()
				b.ReportMetric(float64(st.Frames)/float64(b.N), "frames/op")
				b.ReportMetric(float64(st.Bytes)/1024/time.Since(start).Minutes(), "KB/min")
			}
		})
	}
}
