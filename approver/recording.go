package approver

import (
	"bytes"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"regexp"

	"github.com/chaperone-mcp/chaperone/recording"
)

// recordingTemplate is the console's recording view: the player of the
// session's recording (recording.PlayerScript), its data escaped by
// html/template and set as text by the script.
var recordingTemplate = template.Must(template.New("recording").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Chaperone: recording</title>
<style nonce="{{.Nonce}}">body{font:15px/1.4 system-ui,sans-serif;max-width:1100px;margin:1rem auto;padding:0 1rem}{{.Style}}</style>
</head><body>
{{.Markup}}
<script type="application/json" id="recording-data">{{.Data}}</script>
<script nonce="{{.Nonce}}">{{.Script}}</script>
</body></html>`))

// AttachRecording makes session's recording, in dir (recording.Open),
// playable from its view at /{capability}/recording. It stays there once
// the session closes, for a person to watch afterwards.
func (w *Web) AttachRecording(session, dir string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.recordings == nil {
		w.recordings = map[string]string{}
	}
	w.recordings[session] = dir
}

// recordingFrame is the path of a frame under the view.
var recordingFrame = regexp.MustCompile(`^recording/(frames/[0-9]{6}\.jpg)$`)

// serveRecording serves /{capability}/recording (the player, GET) and its
// frames (recording/frames/NNNNNN.jpg). It reports whether sub was one of
// these.
func (w *Web) serveRecording(rw http.ResponseWriter, r *http.Request, session, sub string) bool {
	frame := recordingFrame.FindStringSubmatch(sub)
	if sub != "recording" && frame == nil {
		return false
	}
	if r.Method != http.MethodGet {
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return true
	}
	w.mu.Lock()
	dir, ok := w.recordings[session]
	w.mu.Unlock()
	if !ok {
		http.Error(rw, "this session is not recorded (start the server with --record)", http.StatusNotFound)
		return true
	}
	if frame != nil {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(frame[1])))
		if err != nil {
			http.NotFound(rw, r)
			return true
		}
		rw.Header().Set("Content-Type", "image/jpeg")
		rw.Write(data)
		return true
	}
	rec, err := recording.Read(dir)
	if err != nil {
		http.Error(rw, "the recording cannot be read", http.StatusNotFound)
		return true
	}
	n := startPage(rw, "'self'", "'none'")
	var b bytes.Buffer
	if err := recordingTemplate.Execute(&b, map[string]any{
		"Nonce": n, "Style": template.CSS(recording.PlayerStyle), "Markup": template.HTML(recording.PlayerMarkup),
		"Data": rec.Player("recording/"), "Script": template.JS(recording.PlayerScript),
	}); err != nil {
		w.log.Warn("recording view", "err", err)
		http.Error(rw, "recording view unavailable", http.StatusInternalServerError)
		return true
	}
	rw.Write(b.Bytes())
	return true
}
