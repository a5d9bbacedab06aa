package approver

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"net/http"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// liveHTML is the live view's page.
//
//go:embed live.html
var liveHTML string

var liveTemplate = template.Must(template.New("live").Parse(liveHTML))

// LiveFrame is one picture of a session's page for the live view.
type LiveFrame struct {
	// JPEG is the picture.
	JPEG []byte
	// Width and Height are the page's viewport in CSS pixels, the space
	// of PersonInput's coordinates.
	Width, Height float64
}

// PersonInput is a mouse, wheel or key event a person sends from the live
// view (capture.PersonInput: the browser takes the same value).
type PersonInput = capture.PersonInput

// ErrBadInput reports a PersonInput that is not a known, well-formed event.
var ErrBadInput = capture.ErrBadInput

// Wheel is a session's browser as the live view reaches it: its pictures,
// and a person taking it over, sending it input, and handing it back.
// *tools.Session, adapted by the command, is one.
type Wheel interface {
	// Screencast streams pictures of the current page until ctx ends.
	Screencast(ctx context.Context) (<-chan LiveFrame, error)
	// TakeOver gives the browser to the person; the agent's calls are
	// refused until HandBack.
	TakeOver()
	// HandBack gives it back to the agent with the person's note.
	HandBack(note string)
	// Taken reports whether the person has it.
	Taken() bool
	// Input sends a validated event to the page.
	Input(ctx context.Context, ev PersonInput) error
}

// Attach makes session's browser reachable from its view's live page
// (/{capability}/live), and returns the view's URL, which is a capability:
// it goes to the person, never to the agent. Detach when the session
// closes.
func (w *Web) Attach(session string, wh Wheel) (string, error) {
	w.mu.Lock()
	if w.wheels == nil {
		w.wheels = map[string]Wheel{}
	}
	w.wheels[session] = wh
	w.mu.Unlock()
	return w.URL(session)
}

// Detach forgets session's browser; its live page answers 404 from then on.
func (w *Web) Detach(session string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.wheels, session)
}

func (w *Web) wheel(session string) (Wheel, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wh, ok := w.wheels[session]
	return wh, ok
}

// serveLive serves /{capability}/live and what is under it: the page (GET
// live), the frames as server-sent events (GET live/frames), and, as JSON
// POSTs, live/take, live/handback {"note":…} and live/input (a
// PersonInput). It reports whether sub was one of these.
func (w *Web) serveLive(rw http.ResponseWriter, r *http.Request, session, sub string) bool {
	switch sub {
	case "live", "live/frames", "live/take", "live/handback", "live/input":
	default:
		return false
	}
	wh, ok := w.wheel(session)
	if !ok {
		http.Error(rw, "this session has no live view (it closed, or it is not a browser session)", http.StatusNotFound)
		return true
	}
	if r.Method == http.MethodPost {
		// A JSON body cannot come from another site's form, and a
		// cross-origin fetch was refused already (foreign).
		if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
			http.Error(rw, "send JSON", http.StatusUnsupportedMediaType)
			return true
		}
		r.Body = http.MaxBytesReader(rw, r.Body, 4<<10)
	}
	switch {
	case sub == "live" && r.Method == http.MethodGet:
		w.serveLivePage(rw)
	case sub == "live/frames" && r.Method == http.MethodGet:
		w.serveFrames(rw, r, session, wh)
	case sub == "live/take" && r.Method == http.MethodPost:
		gen := w.turn(session, wh.TakeOver)
		w.log.Info("a person took over the browser from the console")
		writeJSON(rw, map[string]any{"taken": true, "gen": gen})
	case sub == "live/handback" && r.Method == http.MethodPost:
		var in struct {
			Note string `json:"note"`
		}
		if err := strictJSON(r, &in); err != nil {
			http.Error(rw, `want {"note": "..."}`, http.StatusBadRequest)
			return true
		}
		gen := w.turn(session, func() { wh.HandBack(in.Note) })
		answered := w.answerTakeover(session, in.Note)
		w.log.Info("a person handed the browser back from the console", "answered", answered)
		writeJSON(rw, map[string]any{"taken": false, "gen": gen, "answered": answered})
	case sub == "live/input" && r.Method == http.MethodPost:
		var ev PersonInput
		if err := strictJSON(r, &ev); err != nil {
			http.Error(rw, "want one input event as JSON: "+err.Error(), http.StatusBadRequest)
			return true
		}
		if err := ev.Validate(); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return true
		}
		if !wh.Taken() {
			http.Error(rw, "take over the browser first", http.StatusConflict)
			return true
		}
		if err := wh.Input(r.Context(), ev); err != nil {
			http.Error(rw, "the page did not take the event: "+err.Error(), http.StatusBadGateway)
			return true
		}
		writeJSON(rw, map[string]any{"ok": true})
	default:
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
	}
	return true
}

// answerTakeover answers the session's pending requests that asked a
// person for help in the agent's own words (a login, a second factor, a
// CAPTCHA; run's stuck question): handing back is the person's answer, with
// their note as its feedback. A request bound to an action (Concrete) is
// left for the person to decide: handing back never approves an action.
// It returns how many it answered.
func (w *Web) answerTakeover(session, note string) int {
	n := 0
	for _, r := range w.snapshotPending(session) {
		if r.Kind != checkpoint.KindAgent || r.Concrete != nil {
			continue
		}
		fb := "A person took the browser and handed it back"
		if note != "" {
			fb += ": " + note
		}
		if w.decide(session, r.ID, checkpoint.Decision{Approved: true, Feedback: fb, Channel: checkpoint.ChannelWeb}, false) {
			n++
		}
	}
	return n
}

// turn runs a take-over or hand-back of session and returns its number.
// Frames carry the number of the last one before them, so that the live
// view ignores a frame sent before the person's own click, which would
// otherwise show the old state and drop their first input.
func (w *Web) turn(session string, f func()) uint64 {
	w.turning.Lock()
	defer w.turning.Unlock()
	// f runs before the number moves on: a frame that carries the new
	// number was taken after f returned.
	f()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.turns == nil {
		w.turns = map[string]uint64{}
	}
	w.turns[session]++
	return w.turns[session]
}

// state is whether the person has session's browser, and the number of the
// last turn.
func (w *Web) state(session string, wh Wheel) (bool, uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return wh.Taken(), w.turns[session]
}

// strictJSON decodes one JSON object with no unknown field.
func strictJSON(r *http.Request, v any) error {
	d := json.NewDecoder(r.Body)
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("one object only")
	}
	return nil
}

func writeJSON(rw http.ResponseWriter, v any) {
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(v)
}

func (w *Web) serveLivePage(rw http.ResponseWriter) {
	// data: images are the frames; nothing of the page's own text is
	// shown, so nothing the page wrote can run or draw here.
	n := startPage(rw, "'self' data:", "'none'")
	var b bytes.Buffer
	if err := liveTemplate.Execute(&b, map[string]any{"Nonce": n}); err != nil {
		w.log.Warn("live view page", "err", err)
		http.Error(rw, "live view unavailable", http.StatusInternalServerError)
		return
	}
	rw.Write(b.Bytes())
}

// serveFrames streams the session's pictures as server-sent events, each
// {"jpeg": base64, "w", "h", "taken", "gen"}, until the person leaves.
func (w *Web) serveFrames(rw http.ResponseWriter, r *http.Request, session string, wh Wheel) {
	fl, ok := rw.(http.Flusher)
	if !ok {
		http.Error(rw, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	frames, err := wh.Screencast(ctx)
	if err != nil {
		http.Error(rw, "no live view: "+err.Error(), http.StatusBadGateway)
		return
	}
	h := rw.Header()
	h.Set("Content-Type", "text/event-stream")
	rw.WriteHeader(http.StatusOK)
	fl.Flush()
	for f := range frames {
		taken, gen := w.state(session, wh)
		b, _ := json.Marshal(map[string]any{
			"jpeg": base64.StdEncoding.EncodeToString(f.JPEG), "w": f.Width, "h": f.Height, "taken": taken, "gen": gen,
		})
		if _, err := fmt.Fprintf(rw, "data: %s\n\n", b); err != nil {
			return
		}
		fl.Flush()
	}
}
