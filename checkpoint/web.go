package checkpoint

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ChannelWeb names decisions made in the web console.
const ChannelWeb = "web"

// WebOptions configures the approval console.
type WebOptions struct {
	// OnPending is called, outside any lock, each time a request starts
	// waiting, with the console's URL: the command prints it to stderr and
	// the server sends it to the client as a log message.
	OnPending func(url string, r Request)
	// Logger receives the console's log; nil discards it.
	Logger *slog.Logger
}

// Web is the local approval console: a page listing the pending approvals
// with their screenshot, action and reason, Approve and Reject buttons and a
// feedback box, and the JSON endpoints it uses. Everything lives under a
// random per-process token in the URL path; any other path gets an empty 404.
// Approve blocks until someone decides in the console or ctx ends.
type Web struct {
	token string
	opts  WebOptions
	page  *template.Template
	log   *slog.Logger

	mu      sync.Mutex
	pending map[string]*webPending
	order   []string
	base    string // http://127.0.0.1:port, once listening
	srv     *http.Server
}

type webPending struct {
	req    Request
	answer chan Decision // buffered; receives at most one decision
}

// NewWeb returns a console with a fresh random token. Serve it with Listen,
// or mount Handler yourself.
func NewWeb(opts WebOptions) (*Web, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("web console token: %w", err)
	}
	page, err := template.New("console").Parse(consoleHTML)
	if err != nil {
		return nil, fmt.Errorf("web console page: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Web{
		page:    page,
		token:   base64.RawURLEncoding.EncodeToString(b[:]),
		opts:    opts,
		log:     log,
		pending: map[string]*webPending{},
	}, nil
}

// Listen serves the console on addr ("" means 127.0.0.1 on a random port)
// until Close.
func (w *Web) Listen(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("web console: %w", err)
	}
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second}
	w.mu.Lock()
	w.base = "http://" + ln.Addr().String()
	w.srv = srv
	w.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			w.log.Error("web console stopped", "err", err)
		}
	}()
	return nil
}

// URL is the console's address, token included; before Listen it is the
// path alone.
func (w *Web) URL() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.base + "/" + w.token + "/"
}

// Close stops the server Listen started. Pending requests keep waiting for
// their contexts.
func (w *Web) Close() error {
	w.mu.Lock()
	srv := w.srv
	w.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// Approve lists r in the console and waits for a decision there, or for ctx
// to end, which withdraws r.
func (w *Web) Approve(ctx context.Context, r Request) (Decision, error) {
	p := &webPending{req: r, answer: make(chan Decision, 1)}
	w.mu.Lock()
	w.pending[r.ID] = p
	w.order = append(w.order, r.ID)
	w.mu.Unlock()
	defer w.remove(r.ID)

	w.log.Info("approval waiting in the web console", "id", r.ID, "action", r.Action, "url", w.URL())
	if w.opts.OnPending != nil {
		w.opts.OnPending(w.URL(), r)
	}
	select {
	case d := <-p.answer:
		return d, nil
	case <-ctx.Done():
		return Decision{}, fmt.Errorf("web console: %w", context.Cause(ctx))
	}
}

func (w *Web) remove(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.pending, id)
	for i, o := range w.order {
		if o == id {
			w.order = append(w.order[:i], w.order[i+1:]...)
			break
		}
	}
}

// decide delivers a decision to a pending request; false if there is none
// (unknown, withdrawn or already decided).
func (w *Web) decide(id string, d Decision) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.pending[id]
	if !ok {
		return false
	}
	delete(w.pending, id)
	for i, o := range w.order {
		if o == id {
			w.order = append(w.order[:i], w.order[i+1:]...)
			break
		}
	}
	p.answer <- d
	return true
}

func (w *Web) snapshotPending() []Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Request, 0, len(w.order))
	for _, id := range w.order {
		out = append(out, w.pending[id].req)
	}
	return out
}

func (w *Web) lookup(id string) (Request, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.pending[id]
	if !ok {
		return Request{}, false
	}
	return p.req, true
}

// Handler serves the console. Paths are /{token}/ (the page),
// /{token}/api/pending (GET: the pending requests as JSON),
// /{token}/api/approvals/{id}/screenshot (GET: the image) and
// /{token}/api/approvals/{id} (POST: a decision, as JSON
// {"approved":bool,"feedback":string} or as the page's form). A wrong token
// gets an empty 404.
func (w *Web) Handler() http.Handler {
	return http.HandlerFunc(w.serve)
}

func (w *Web) serve(rw http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/")
	token, sub, _ := strings.Cut(rest, "/")
	if !ok || subtle.ConstantTimeCompare([]byte(token), []byte(w.token)) != 1 {
		rw.WriteHeader(http.StatusNotFound)
		return
	}
	h := rw.Header()
	h.Set("Cache-Control", "no-store")
	// same-origin, not no-referrer: the token in the URL never leaves the
	// origin, and the console's own form POSTs keep their real Origin
	// (no-referrer makes Chromium send "Origin: null").
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")

	switch {
	case sub == "" && r.Method == http.MethodGet:
		w.servePage(rw)
	case sub == "" && rest == token:
		http.Redirect(rw, r, "/"+token+"/", http.StatusMovedPermanently)
	case sub == "api/pending" && r.Method == http.MethodGet:
		w.servePending(rw)
	case strings.HasPrefix(sub, "api/approvals/"):
		id, what, _ := strings.Cut(strings.TrimPrefix(sub, "api/approvals/"), "/")
		switch {
		case what == "screenshot" && r.Method == http.MethodGet:
			w.serveScreenshot(rw, id)
		case what == "" && r.Method == http.MethodPost:
			w.serveDecision(rw, r, id)
		default:
			http.NotFound(rw, r)
		}
	default:
		http.NotFound(rw, r)
	}
}

type webItem struct {
	Request
	Prompt     string `json:"prompt"`
	Screenshot string `json:"screenshot,omitempty"`
}

func (w *Web) items() []webItem {
	reqs := w.snapshotPending()
	out := make([]webItem, len(reqs))
	for i, r := range reqs {
		out[i] = webItem{Request: r, Prompt: r.Prompt()}
		if r.Screenshot != nil && len(r.Screenshot.Data) > 0 {
			out[i].Screenshot = "api/approvals/" + r.ID + "/screenshot"
		}
	}
	return out
}

func (w *Web) servePending(rw http.ResponseWriter) {
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(map[string]any{"pending": w.items()})
}

func (w *Web) serveScreenshot(rw http.ResponseWriter, id string) {
	r, ok := w.lookup(id)
	if !ok || r.Screenshot == nil || len(r.Screenshot.Data) == 0 {
		http.Error(rw, "no such screenshot", http.StatusNotFound)
		return
	}
	ct := r.Screenshot.MIMEType
	if t, _, err := mime.ParseMediaType(ct); err != nil || !strings.HasPrefix(t, "image/") {
		ct = "image/png"
	}
	rw.Header().Set("Content-Type", ct)
	rw.Write(r.Screenshot.Data)
}

func (w *Web) serveDecision(rw http.ResponseWriter, r *http.Request, id string) {
	// Another page in the same browser must not be able to decide: a
	// cross-origin POST carries its Origin.
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		http.Error(rw, "cross-origin decision refused", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(rw, r.Body, 64<<10)
	var d Decision
	isForm := false
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var in struct {
			Approved *bool  `json:"approved"`
			Feedback string `json:"feedback"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Approved == nil {
			http.Error(rw, `want {"approved": true|false, "feedback": "..."}`, http.StatusBadRequest)
			return
		}
		d = Decision{Approved: *in.Approved, Feedback: in.Feedback}
	case "application/x-www-form-urlencoded", "multipart/form-data":
		isForm = true
		if err := r.ParseForm(); err != nil {
			http.Error(rw, "bad form", http.StatusBadRequest)
			return
		}
		switch r.PostForm.Get("decision") {
		case "approve":
			d.Approved = true
		case "reject":
		default:
			http.Error(rw, "decision must be approve or reject", http.StatusBadRequest)
			return
		}
		d.Feedback = r.PostForm.Get("feedback")
	default:
		http.Error(rw, "send JSON or a form", http.StatusUnsupportedMediaType)
		return
	}
	d.Feedback = strings.TrimSpace(d.Feedback)
	d.Channel = ChannelWeb
	if !w.decide(id, d) {
		http.Error(rw, "no such pending approval (decided, withdrawn, or unknown)", http.StatusNotFound)
		return
	}
	w.log.Info("decided in the web console", "id", id, "approved", d.Approved)
	if isForm {
		http.Redirect(rw, r, "/"+w.token+"/?decided="+id, http.StatusSeeOther)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(map[string]any{"ok": true, "approved": d.Approved})
}

func (w *Web) servePage(rw http.ResponseWriter) {
	var nonce [12]byte
	rand.Read(nonce[:])
	n := base64.RawStdEncoding.EncodeToString(nonce[:])
	rw.Header().Set("Content-Security-Policy",
		"default-src 'none'; img-src 'self'; style-src 'nonce-"+n+"'; script-src 'nonce-"+n+"'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	items := w.items()
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	if err := w.page.Execute(rw, map[string]any{"Items": items, "Nonce": n, "IDs": strings.Join(ids, ",")}); err != nil {
		w.log.Warn("web console page", "err", err)
	}
}

// consoleHTML is the console page's template.
const consoleHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Chaperone approvals ({{len .Items}} waiting)</title>
<style nonce="{{.Nonce}}">
body{font:15px/1.4 system-ui,sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem;color:#222}
.approval{border:2px solid #c60;border-radius:8px;padding:1rem;margin:1rem 0}
.agent{border-color:#669}.prompt{font-size:1.2rem;font-weight:600}
.who{font-size:.85rem;text-transform:uppercase;color:#666}
dt{font-weight:600}dd{margin:0 0 .4rem 0;overflow-wrap:anywhere}
img{display:block;max-width:100%;max-height:70vh;margin-top:1rem;border:1px solid #aaa}textarea{width:100%;min-height:4rem}
button{font-size:1rem;padding:.4rem 1.2rem;margin:.5rem .5rem 0 0}
</style></head>
<body data-pending="{{.IDs}}">
<h1>Chaperone approvals</h1>
{{if not .Items}}<p id="empty">No approvals are waiting.</p>{{end}}
{{range .Items}}
<section class="approval{{if eq .Kind "agent_request"}} agent{{end}}" id="approval-{{.ID}}" data-id="{{.ID}}">
<p class="who">{{if eq .Kind "agent_request"}}Requested by the agent (its own words){{else}}Checkpoint reached{{end}}</p>
<p class="prompt">{{.Prompt}}</p>
<dl>
<dt>Action</dt><dd class="action">{{.Action}}</dd>
{{if .Reason}}<dt>Reason</dt><dd class="reason">{{.Reason}}</dd>{{end}}
<dt>Page</dt><dd class="page">{{.Title}} — {{.URL}}</dd>
{{if .Session}}<dt>Session</dt><dd>{{.Session}}</dd>{{end}}
<dt>Asked</dt><dd>{{.Time.Format "15:04:05"}}</dd>
</dl>
<form method="post" action="api/approvals/{{.ID}}">
<label>Message to the agent (optional)<br><textarea name="feedback"></textarea></label><br>
<button type="submit" name="decision" value="approve" class="approve">Approve</button>
<button type="submit" name="decision" value="reject" class="reject">Reject</button>
</form>
{{if .Screenshot}}<img class="screenshot" src="{{.Screenshot}}" alt="Screenshot of the page the action would run on">{{end}}
</section>
{{end}}
<script nonce="{{.Nonce}}">
// Reload when the list changes, unless a message is being written.
setInterval(async () => {
  const busy = [...document.querySelectorAll("textarea")].some(t => t.value || t === document.activeElement);
  if (busy) return;
  try {
    const r = await fetch("api/pending", {cache: "no-store"});
    const ids = (await r.json()).pending.map(p => p.id).join(",");
    if (ids !== document.body.dataset.pending) location.replace(location.pathname);
  } catch (e) {}
}, 1000);
</script>
</body></html>
`
