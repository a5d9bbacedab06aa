// Package approver holds the ways to reach a person for an approval besides
// the MCP client itself: the local web console (Web), an agent host's webhook
// (Webhook) and the terminal (TTY). Each is a checkpoint.Approver; the gate in
// package checkpoint decides when to ask.
package approver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
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

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// consoleHTML is the console page's template.
//
//go:embed web.html
var consoleHTML string

// WebOptions configures the approval console.
type WebOptions struct {
	// OnPending is called, outside any lock, each time a request starts
	// waiting, with the console's URL: the command prints it to stderr and
	// the server sends it to the client as a log message.
	OnPending func(url string, r checkpoint.Request)
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
	req    checkpoint.Request
	answer chan checkpoint.Decision // buffered; receives at most one decision
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
func (w *Web) Approve(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	return w.Register(r)(ctx)
}

// Register lists r in the console and returns the wait for the person's
// decision, which ends, and takes r off the list, when ctx ends. The
// caller must call the wait.
func (w *Web) Register(r checkpoint.Request) func(ctx context.Context) (checkpoint.Decision, error) {
	p := &webPending{req: r, answer: make(chan checkpoint.Decision, 1)}
	w.mu.Lock()
	w.pending[r.ID] = p
	w.order = append(w.order, r.ID)
	w.mu.Unlock()
	return func(ctx context.Context) (checkpoint.Decision, error) {
		defer w.remove(r.ID)
		w.log.Info("approval waiting in the web console", "id", r.ID, "action", checkpoint.OneLine(r.Action), "url", w.URL())
		if w.opts.OnPending != nil {
			w.opts.OnPending(w.URL(), r)
		}
		select {
		case d := <-p.answer:
			return d, nil
		case <-ctx.Done():
			return checkpoint.Decision{}, fmt.Errorf("web console: %w", context.Cause(ctx))
		}
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
func (w *Web) decide(id string, d checkpoint.Decision) bool {
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

func (w *Web) snapshotPending() []checkpoint.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]checkpoint.Request, 0, len(w.order))
	for _, id := range w.order {
		out = append(out, w.pending[id].req)
	}
	return out
}

func (w *Web) lookup(id string) (checkpoint.Request, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.pending[id]
	if !ok {
		return checkpoint.Request{}, false
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

// webItem is a pending request as the console shows it. The page renders
// Prompt and Lines, already escaped (checkpoint.OneLine), and none of the
// request's raw text: html/template keeps markup out, not control characters
// or bidi overrides.
type webItem struct {
	checkpoint.Request
	Prompt     string   `json:"prompt"`
	Lines      []string `json:"lines"`
	Screenshot string   `json:"screenshot,omitempty"`
	// Outlined says that the screenshot has the element's box drawn on it.
	Outlined bool `json:"outlined,omitempty"`
}

func (w *Web) items() []webItem {
	reqs := w.snapshotPending()
	out := make([]webItem, len(reqs))
	for i, r := range reqs {
		out[i] = webItem{Request: r, Prompt: r.Prompt(), Lines: r.Lines(), Outlined: r.Concrete != nil && r.Concrete.Box != nil}
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
	var d checkpoint.Decision
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
		d = checkpoint.Decision{Approved: *in.Approved, Feedback: in.Feedback}
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
	d.Channel = checkpoint.ChannelWeb
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
