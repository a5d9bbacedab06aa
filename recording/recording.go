// Package recording keeps a recording of one browser session: the pictures
// of its page with their times, and each tool call and approval marked on
// the same timeline, written to a directory as they happen, bounded by size
// and frame rate. It is pure code: the browser core feeds it frames (no CDP
// here), and the run report, the console and the video export read it back.
// See docs/architecture.md.
//
// A recording's directory holds timeline.jsonl, one event a line (a frame,
// a call, an approval, a note), and frames/NNNNNN.jpg, each written before
// the line that names it. Nothing waits in memory but the newest frame a
// rate bound holds back, so a process that dies keeps all but that one.
package recording

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // a PNG still is turned into a JPEG frame
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The files of a recording.
const (
	TimelineName = "timeline.jsonl"
	FramesDir    = "frames"
)

// Defaults of Options.
const (
	DefaultMaxBytes = 100 << 20
	DefaultMaxFPS   = 5
)

// Permissions: a recording shows what the agent saw of pages a person is
// logged in to, so only its owner may read it.
const (
	dirPerm  os.FileMode = 0o700
	filePerm os.FileMode = 0o600
)

// syncEvery is how often, at most, the timeline is flushed to the disk for
// frames; a mark is flushed at once.
const syncEvery = time.Second

// Options bound a recording.
type Options struct {
	// MaxBytes caps the bytes of the frames kept (DefaultMaxBytes when 0).
	// Past half of it the frame rate halves, past three quarters it halves
	// again, and so on, so frames thin out evenly over a long session; a
	// frame that would pass it is dropped, and a note says frames stopped.
	MaxBytes int64
	// MaxFPS caps the frames kept per second (DefaultMaxFPS when 0).
	MaxFPS float64
	// Redact, when set, rewrites every text a mark carries (a target's
	// name, an action, a note) before it is written: a session's secrets
	// must not reach the file.
	Redact func(string) string
}

// Frame is one picture of the page.
type Frame struct {
	// Data is the picture: a JPEG, or a PNG that is turned into one.
	Data []byte
	// Time is when the page looked so.
	Time time.Time
	// Width and Height are the viewport's, in CSS pixels.
	Width, Height float64
}

// Call is one tool call on the timeline.
type Call struct {
	Tool string `json:"tool"`
	// Target says what the call acted on, as the agent saw it (a ref with
	// its role and name), or where (a URL).
	Target string `json:"target,omitempty"`
	// Code is the result: "ok" or an error code.
	Code  string    `json:"code"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Approval is the id of the approval that covered the call, if one did.
	Approval string `json:"approval,omitempty"`
}

// Approval is a decision on a person's approval on the timeline.
type Approval struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	// Asked is when the question was put, Decided when it was answered.
	Asked   time.Time `json:"asked"`
	Decided time.Time `json:"decided"`
	// Channel is who decided (web, tty, webhook, elicitation, none).
	Channel  string `json:"channel"`
	Approved bool   `json:"approved"`
}

// Event is one line of timeline.jsonl.
type Event struct {
	// Type is "start", "frame", "call", "approval" or "note".
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	// File, Width and Height are a frame's: its file under the recording's
	// directory and the viewport it shows.
	File   string  `json:"file,omitempty"`
	Width  float64 `json:"width,omitempty"`
	Height float64 `json:"height,omitempty"`
	Bytes  int     `json:"bytes,omitempty"`
	// Call and Approval are the marks.
	Call     *Call     `json:"call,omitempty"`
	Approval *Approval `json:"approval,omitempty"`
	// Text is a note's (the start's: the session).
	Text string `json:"text,omitempty"`
}

// stopper is a timer that can be stopped.
type stopper interface{ Stop() bool }

// Stats say what a recording kept and left out.
type Stats struct {
	Frames int
	Bytes  int64
	// Same, Rate and Size count frames not kept: identical to the last
	// one, held back by the frame rate (and then superseded), or past the
	// size bound.
	Same, Rate, Size int
}

// Recorder writes one session's recording. Its methods are safe for
// concurrent use; after Close they do nothing.
type Recorder struct {
	dir  string
	opts Options

	mu       sync.Mutex
	timeline *os.File
	synced   time.Time
	n        int // frames written
	bytes    int64
	lastSum  [32]byte
	lastTime time.Time
	// pending is the newest frame the rate held back, written when its
	// turn comes unless a newer one supersedes it.
	pending *Frame
	timer   stopper
	// after runs f once d has passed (time.AfterFunc; a test fires it
	// itself).
	after  func(d time.Duration, f func()) stopper
	full   bool
	stats  Stats
	err    error
	closed bool
}

// Open creates dir (a session's recording) and starts its timeline with a
// start event naming session.
func Open(dir, session string, opts Options) (*Recorder, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxFPS <= 0 {
		opts.MaxFPS = DefaultMaxFPS
	}
	if err := os.MkdirAll(filepath.Join(dir, FramesDir), dirPerm); err != nil {
		return nil, fmt.Errorf("open recording: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, TimelineName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, filePerm)
	if err != nil {
		return nil, fmt.Errorf("open recording: %w", err)
	}
	r := &Recorder{dir: dir, opts: opts, timeline: f, n: framesIn(dir),
		after: func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.line(Event{Type: "start", Time: time.Now(), Text: r.redact(session)}, true)
	if r.err != nil {
		f.Close()
		return nil, fmt.Errorf("open recording: %w", r.err)
	}
	return r, nil
}

// framesIn is the number of the last frame in dir's frames, so that a
// recording opened again (a session reopened) goes on after it.
func framesIn(dir string) int {
	entries, _ := os.ReadDir(filepath.Join(dir, FramesDir))
	n := 0
	for _, e := range entries {
		var i int
		if _, err := fmt.Sscanf(e.Name(), "%06d.jpg", &i); err == nil {
			n = max(n, i)
		}
	}
	return n
}

// Dir is the recording's directory.
func (r *Recorder) Dir() string { return r.dir }

// SetRedact sets Options.Redact, for a session that knows its secrets only
// once it is made.
func (r *Recorder) SetRedact(redact func(string) string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts.Redact = redact
}

func (r *Recorder) redact(s string) string {
	if r.opts.Redact == nil {
		return s
	}
	return r.opts.Redact(s)
}

// Frame adds a picture, unless it is the same as the last one kept, comes
// sooner than the frame rate allows (then it waits, and is written when its
// turn comes unless a newer one replaces it), or the size bound is reached.
func (r *Recorder) Frame(f Frame) {
	if r == nil || len(f.Data) == 0 {
		return
	}
	if f.Time.IsZero() {
		f.Time = time.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.full {
		return
	}
	if sha256.Sum256(f.Data) == r.lastSum && r.n > 0 {
		// The page looks as the last frame kept shows it: a change held
		// back since is over.
		r.stats.Same++
		if r.pending != nil {
			r.stats.Rate++
			r.pending = nil
		}
		return
	}
	wait := r.interval() - f.Time.Sub(r.lastTime)
	if r.n > 0 && wait > 0 {
		if r.pending != nil {
			r.stats.Rate++
		}
		r.pending = &f
		if r.timer == nil {
			r.timer = r.after(wait, r.flushPending)
		}
		return
	}
	if r.pending != nil {
		r.stats.Rate++
		r.pending = nil
	}
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.write(f)
}

// Interval is the least time between two frames kept now: a source need
// not send them faster.
func (r *Recorder) Interval() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.interval()
}

// interval is the least time between two frames kept: 1/MaxFPS, doubled
// for each half of the remaining size bound used.
func (r *Recorder) interval() time.Duration {
	d := time.Duration(float64(time.Second) / r.opts.MaxFPS)
	left := r.opts.MaxBytes
	for used := r.bytes; used >= left-left/2 && left > 1 && d < time.Hour; {
		used -= left - left/2
		left /= 2
		d *= 2
	}
	return d
}

// flushPending writes the frame the rate held back, once its turn came.
func (r *Recorder) flushPending() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer = nil
	if r.pending == nil || r.closed {
		return
	}
	f := *r.pending
	r.pending = nil
	r.write(f)
}

// write writes f's file, then its line. r.mu is held.
func (r *Recorder) write(f Frame) {
	data, err := asJPEG(f.Data)
	if err != nil {
		r.keep(err)
		return
	}
	if r.bytes+int64(len(data)) > r.opts.MaxBytes {
		r.full = true
		r.stats.Size++
		r.line(Event{Type: "note", Time: f.Time, Text: fmt.Sprintf("The recording reached its size bound (%d bytes): no more frames are kept.", r.opts.MaxBytes)}, true)
		return
	}
	name := filepath.Join(FramesDir, fmt.Sprintf("%06d.jpg", r.n+1))
	if err := os.WriteFile(filepath.Join(r.dir, name), data, filePerm); err != nil {
		r.keep(fmt.Errorf("write a frame: %w", err))
		return
	}
	r.n++
	r.bytes += int64(len(data))
	r.lastSum, r.lastTime = sha256.Sum256(f.Data), f.Time
	r.stats.Frames, r.stats.Bytes = r.n, r.bytes
	r.line(Event{Type: "frame", Time: f.Time, File: filepath.ToSlash(name), Width: f.Width, Height: f.Height, Bytes: len(data)}, false)
}

// asJPEG returns data as a JPEG: a JPEG as it is, a PNG re-encoded.
func asJPEG(data []byte) ([]byte, error) {
	if bytes.HasPrefix(data, []byte{0xff, 0xd8}) {
		return data, nil
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("a frame that is no image: %w", err)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 75}); err != nil {
		return nil, fmt.Errorf("encode a frame: %w", err)
	}
	return b.Bytes(), nil
}

// Call marks a tool call.
func (r *Recorder) Call(c Call) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	c.Target = r.redact(c.Target)
	r.line(Event{Type: "call", Time: c.Start, Call: &c}, true)
}

// Approval marks a person's decision.
func (r *Recorder) Approval(a Approval) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	a.Action = r.redact(a.Action)
	r.line(Event{Type: "approval", Time: a.Asked, Approval: &a}, true)
}

// Note adds a line of text to the timeline (why frames stop, who had the
// browser).
func (r *Recorder) Note(t time.Time, text string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.line(Event{Type: "note", Time: t, Text: r.redact(text)}, true)
}

// Stats says what was kept so far.
func (r *Recorder) Stats() Stats {
	if r == nil {
		return Stats{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// line appends ev to the timeline; sync flushes it to the disk now, else
// at most once a syncEvery. r.mu is held.
func (r *Recorder) line(ev Event, sync bool) {
	b, err := json.Marshal(ev)
	if err != nil {
		r.keep(err)
		return
	}
	// One write per line, so a line is whole or torn at its end only.
	if _, err := r.timeline.Write(append(b, '\n')); err != nil {
		r.keep(fmt.Errorf("write the timeline: %w", err))
		return
	}
	if now := time.Now(); sync || now.Sub(r.synced) >= syncEvery {
		r.synced = now
		r.keep(r.timeline.Sync())
	}
}

func (r *Recorder) keep(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

// Close writes the frame the rate held back, flushes the timeline and
// closes it, and returns the first write error.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.err
	}
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	if r.pending != nil && !r.full {
		f := *r.pending
		r.pending = nil
		r.write(f)
	}
	r.closed = true
	r.keep(r.timeline.Sync())
	r.keep(r.timeline.Close())
	return r.err
}

// ErrNoRecording is the error of Read on a directory with no timeline.
var ErrNoRecording = errors.New("no recording here")
