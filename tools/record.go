package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/recording"
)

// Recording records one session (--record, and every run's record): the
// browser's screencast frames while the page cannot show a secret, each
// tool call, and each approval the session's gate decides, which it then
// passes on to the session's audit log (as the gate's checkpoint.Recorder).
//
// Secrets are masked as in screenshots. A screencast frame comes from the
// compositor, which no mask can be laid on for certain: a page that knows a
// secret may draw it for a single frame anywhere. So once the session may
// show one (it has secrets or one-time codes, a password was or is about to
// be typed, a canvas is covered, a person took the browser), the
// screencast stops for good and the recording's frames are screenshots
// taken with the screenshots' own masking (browser/masksecrets.go): one
// before the first call, one after each call, and the one a person was
// shown when asked. A frame that arrives once the switch was made is
// dropped, so a frame drawn after it never reaches the file.
type Recording struct {
	rec   *recording.Recorder
	audit *audit.Log
	// stills is set, once and for good, when the frames must be masked
	// stills.
	stills atomic.Bool
	// stop ends the session's screencast.
	stop context.CancelFunc
	// shot says a still was taken.
	shot atomic.Bool
}

// NewRecording records a session into rec, passing the approvals the gate
// decides on to a (which may be nil). Give it to the session's gate as its
// checkpoint.Options.Audit and to the session with WithRecording; the
// session closes rec when it closes.
func NewRecording(rec *recording.Recorder, a *audit.Log) *Recording {
	return &Recording{rec: rec, audit: a}
}

// Dir is the recording's directory.
func (r *Recording) Dir() string { return r.rec.Dir() }

// Close closes the recording; a session recorded into it closes it too.
// A nil *Recording does nothing.
func (r *Recording) Close() error {
	if r == nil {
		return nil
	}
	if r.stop != nil {
		r.stop()
	}
	return r.rec.Close()
}

// WithRecording records the session into r.
func WithRecording(r *Recording) SessionOption {
	return func(s *Session) { s.recording = r }
}

// Approval marks the gate's decision on the timeline and logs it.
func (r *Recording) Approval(req checkpoint.Request, d checkpoint.Decision) error {
	if r.stills.Load() && req.Screenshot != nil {
		// What the person was shown, masked as every screenshot is.
		r.rec.Frame(recording.Frame{Data: req.Screenshot.Data, Time: req.Time})
	}
	r.rec.Approval(recording.Approval{ID: req.ID, Action: req.Action, Asked: req.Time, Decided: time.Now(),
		Channel: string(d.Channel), Approved: d.Approved})
	return r.audit.Approval(req, d)
}

// Widened logs a person's widening of the write set (checkpoint.WidenRecorder).
func (r *Recording) Widened(req checkpoint.Request, d checkpoint.Decision) error {
	return r.audit.Widened(req, d)
}

// PlanApproved logs an approved plan (checkpoint.PlanRecorder).
func (r *Recording) PlanApproved(req checkpoint.Request, d checkpoint.Decision, p checkpoint.Plan) error {
	return r.audit.PlanApproved(req, d, p)
}

// startRecording starts feeding the session's screencast to its recording,
// unless its frames must be stills from the start.
func (s *Session) startRecording() {
	r := s.recording
	if r == nil {
		return
	}
	r.rec.SetRedact(s.secrets.redact)
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	if s.mayShowSecret() {
		r.toStills("the session has secrets: its frames are screenshots with the secrets masked, taken at each call")
		return
	}
	s.wheel.mu.Lock()
	s.wheel.pace = r.rec.Interval()
	s.wheel.mu.Unlock()
	frames, err := s.screencast(ctx, false)
	if err != nil {
		s.log.Warn("recording: no screencast", "err", err)
		r.toStills("no screencast: the frames are screenshots taken at each call")
		return
	}
	go func() {
		for f := range frames {
			// Checked as each frame arrives: one drawn after the switch
			// arrives after it too.
			if r.stills.Load() || s.mayShowSecret() {
				r.toStills("the page may show a secret from here: the frames are screenshots with the secrets masked, taken at each call")
				continue
			}
			r.rec.Frame(recording.Frame{Data: f.JPEG, Time: f.Time, Width: f.Width, Height: f.Height})
		}
	}()
}

// mayShowSecret reports whether a page of the session may show a secret: it
// has secrets to hide, covers canvases, or a person has the browser (and
// may type a password the session learns only afterwards).
func (s *Session) mayShowSecret() bool {
	c := s.config.Capture
	return (c.SecretTexts != nil && len(c.SecretTexts()) > 0) ||
		(c.CoverCanvases != nil && c.CoverCanvases()) || s.Taken()
}

// toStills switches the recording to masked stills for good, with a note
// on the timeline the first time.
func (r *Recording) toStills(why string) {
	if r.stills.Swap(true) {
		return
	}
	r.stop()
	r.rec.Note(time.Now(), why)
}

// beforeCall switches to stills before a call that may type a password
// (a fill of a password field, any input while the page shows one), and
// takes the first still.
func (s *Session) beforeCall(ctx context.Context, c *call, readOnly bool) {
	r := s.recording
	if r == nil {
		return
	}
	if c.masked || (!readOnly && s.showsPasswordField()) || s.mayShowSecret() {
		r.toStills("a password may be typed: the frames are screenshots with the secrets masked, taken at each call")
	}
	if r.stills.Load() && !r.shot.Load() {
		s.recordStill(ctx)
	}
}

// showsPasswordField reports whether the agent's newest snapshot holds a
// password field.
func (s *Session) showsPasswordField() bool {
	for _, t := range s.live {
		if t.InputType == "password" {
			return true
		}
	}
	return false
}

// afterCall marks the call on the timeline and, for stills, takes one.
func (s *Session) afterCall(ctx context.Context, c *call, target, code string) {
	r := s.recording
	if r == nil {
		return
	}
	if r.stills.Load() {
		s.recordStill(ctx)
	}
	r.rec.Call(recording.Call{Tool: c.tool, Target: target, Code: code, Start: c.start, End: time.Now(), Approval: c.approval})
}

// stillTokens is the image budget of a still: a 1280×720 viewport at full
// size.
const stillTokens = 1280 * 720 / browser.PixelsPerToken

// recordStill adds a masked screenshot of the page to the recording.
func (s *Session) recordStill(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.config.SnapshotTimeout)
	defer cancel()
	opts := s.config.Capture
	opts.Format, opts.JPEGQuality, opts.ImageTokens = "jpeg", 70, stillTokens
	at := time.Now()
	shot, err := s.tab.Screenshot(ctx, opts)
	if err != nil {
		s.log.Debug("recording: no still", "err", err)
		return
	}
	s.recording.shot.Store(true)
	s.recording.rec.Frame(recording.Frame{Data: shot.Data, Time: at, Width: float64(shot.Width), Height: float64(shot.Height)})
}

// callTarget says what a call acts on, for its mark: the element of its
// ref as the agent saw it, or the URL it opens. The text is redacted by the
// recording.
func (s *Session) callTarget(args json.RawMessage) string {
	var in struct {
		Ref string `json:"ref"`
		URL string `json:"url"`
	}
	if json.Unmarshal(args, &in) != nil {
		return ""
	}
	if t, ok := s.live[in.Ref]; ok {
		return fmt.Sprintf("%s %s %q", in.Ref, t.Role, s.clip(t.Name, 80))
	}
	if in.URL != "" {
		return s.clip(in.URL, urlLimit)
	}
	return ""
}

// closeRecording stops the screencast and closes the recording.
func (s *Session) closeRecording() {
	r := s.recording
	if r == nil {
		return
	}
	if err := r.Close(); err != nil {
		s.log.Warn("recording incomplete", "err", err)
	}
}
