// Package approver holds the ways to reach a person for an approval besides
// the MCP client itself: the local web console (Web), an agent host's webhook
// (Webhook) and the terminal (TTY). Each is a checkpoint.Approver; the gate in
// package checkpoint decides when to ask.
package approver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
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
	"net/netip"
	"net/url"
	"strconv"
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
	// waiting, with the URL of the console's view of the request's session:
	// the command prints it on stderr and may open it in the person's
	// browser. The URL is a capability: whoever holds it can decide that
	// session's requests, so it must never reach the agent or its client.
	OnPending func(url string, r checkpoint.Request)
	// Logger receives the console's log; nil discards it.
	Logger *slog.Logger
}

// Web is the local approval console: a page listing the pending approvals
// with their screenshot, action and reason, Approve and Reject buttons and a
// feedback box, and the JSON endpoints it uses.
//
// Each agent session has its own view, under a random capability in the URL
// path that only that session's requests are listed, shown and decided
// under: one client's person never sees, nor can decide, another's. There is
// no view of every session. Any other path gets an empty 404. Requests a
// browser makes from another origin (a page that learnt a capability) are
// refused, and so are requests whose Host is not the console's (DNS
// rebinding). Approve blocks until someone decides in the console or ctx
// ends.
type Web struct {
	opts WebOptions
	page *template.Template
	log  *slog.Logger

	mu      sync.Mutex
	pending map[string]*webPending
	order   []string
	// views maps the SHA-256 of a capability to its session, and caps a
	// session to its capability. Keyed by hash, so that the map's lookup
	// time says nothing about a capability's bytes.
	views map[[sha256.Size]byte]string
	caps  map[string]string
	addr  string // host:port, once listening
	srv   *http.Server
	// wheels are the sessions' browsers the live view reaches (takeover.go).
	wheels map[string]Wheel
	// recordings are the sessions' recordings' directories (recording.go).
	recordings map[string]string
	turns      map[string]uint64
	// approvedPlans are the plans last approved here, by request id, as
	// the person left them: the page they land on after approving shows
	// the plan back, so they see what their approval covers.
	approvedPlans map[string]approvedPlan
	planOrder     []string
	// turning serialises take-overs and hand-backs outside mu: a take-over
	// waits for the agent's call in flight, which may need mu to withdraw
	// its approval request.
	turning sync.Mutex
}

// approvedPlan is a plan a person approved in session's console: its
// sites as the gate applies them (checkpoint.Plan.Narrowed).
type approvedPlan struct {
	session string
	plan    checkpoint.Plan
}

// maxApprovedPlans bounds the approved plans the console keeps to show.
const maxApprovedPlans = 16

type webPending struct {
	req    checkpoint.Request
	answer chan checkpoint.Decision // buffered; receives at most one decision
}

// NewWeb returns a console with no views yet: a session's view is made
// when its first request waits, or by URL. Serve it with Listen, or mount
// Handler yourself.
func NewWeb(opts WebOptions) (*Web, error) {
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
		opts:    opts,
		log:     log,
		pending: map[string]*webPending{},
		views:   map[[sha256.Size]byte]string{},
		caps:    map[string]string{},
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
	w.addr = ln.Addr().String()
	w.srv = srv
	w.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			w.log.Error("web console stopped", "err", err)
		}
	}()
	return nil
}

// Addr is the host:port the console listens on, "" before Listen. The
// browser the agent drives must never load it (urlpolicy.Policy.Reserved).
func (w *Web) Addr() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.addr
}

// URL is the address of the console's view of session, capability
// included, made on first use; before Listen it is the path alone.
func (w *Web) URL(session string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.caps[session]
	if !ok {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("web console capability: %w", err)
		}
		c = base64.RawURLEncoding.EncodeToString(b[:])
		w.caps[session] = c
		w.views[sha256.Sum256([]byte(c))] = session
	}
	base := ""
	if w.addr != "" {
		base = "http://" + w.addr
	}
	return base + "/" + c + "/", nil
}

// view returns the session whose capability c is.
func (w *Web) view(c string) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.views[sha256.Sum256([]byte(c))]
	return s, ok
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
		// The URL is a capability: it goes to the person (OnPending), never
		// to the log, which the client may read.
		w.log.Info("approval waiting in the web console", "id", r.ID, "action", checkpoint.OneLine(r.Action))
		u, err := w.URL(r.Session)
		if err != nil {
			return checkpoint.Decision{}, err
		}
		if w.opts.OnPending != nil {
			w.opts.OnPending(u, r)
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

// decide delivers a decision to a pending request of session; false if
// there is none (unknown, withdrawn, already decided, or another
// session's).
//
// With allow, the person chose "Allow on <site> for this task": the
// decision widens the write set by the site the request names, which the
// console, not the answer, supplies.
func (w *Web) decide(session, id string, d checkpoint.Decision, allow bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.pending[id]
	if !ok || p.req.Session != session {
		return false
	}
	if allow {
		d.WidenSite = p.req.Site
	}
	if d.Approved && p.req.Plan != nil {
		w.keepApprovedPlan(id, approvedPlan{session: session, plan: p.req.Plan.Narrowed(d.Plan)})
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

// keepApprovedPlan keeps ap to show back, dropping the oldest past
// maxApprovedPlans. w.mu is held.
func (w *Web) keepApprovedPlan(id string, ap approvedPlan) {
	if w.approvedPlans == nil {
		w.approvedPlans = map[string]approvedPlan{}
	}
	w.approvedPlans[id] = ap
	w.planOrder = append(w.planOrder, id)
	if len(w.planOrder) > maxApprovedPlans {
		delete(w.approvedPlans, w.planOrder[0])
		w.planOrder = w.planOrder[1:]
	}
}

// approvedPlanLines are the sites of the plan approved as request id in
// session, a line each as the person reads them; nil when there is none.
func (w *Web) approvedPlanLines(session, id string) []string {
	w.mu.Lock()
	ap, ok := w.approvedPlans[id]
	w.mu.Unlock()
	if !ok || ap.session != session {
		return nil
	}
	out := []string{}
	for _, ps := range ap.plan.Sites {
		how := "read only"
		if ps.Write {
			how = "WRITE without asking"
		}
		out = append(out, checkpoint.OneLine(ps.Site)+": "+how)
	}
	if len(out) == 0 {
		out = append(out, "(no site)")
	}
	return out
}

// snapshotPending lists session's pending requests, oldest first.
func (w *Web) snapshotPending(session string) []checkpoint.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []checkpoint.Request
	for _, id := range w.order {
		if r := w.pending[id].req; r.Session == session {
			out = append(out, r)
		}
	}
	return out
}

// lookup returns session's pending request id.
func (w *Web) lookup(session, id string) (checkpoint.Request, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.pending[id]
	if !ok || p.req.Session != session {
		return checkpoint.Request{}, false
	}
	return p.req, true
}

// Handler serves the console. Paths are /{capability}/ (the page),
// /{capability}/api/pending (GET: the session's pending requests as JSON),
// /{capability}/api/approvals/{id}/screenshot (GET: the image) and
// /{capability}/api/approvals/{id} (POST: a decision, as JSON
// {"approved":bool,"feedback":string,"allow_site":bool} or as the page's
// form, whose decision is approve, allow or reject). A wrong
// capability, or a request of another session, gets an empty 404; a request
// from another origin or to another Host, a 403.
func (w *Web) Handler() http.Handler {
	return http.HandlerFunc(w.serve)
}

func (w *Web) serve(rw http.ResponseWriter, r *http.Request) {
	if why := w.foreign(r); why != "" {
		w.log.Warn("web console refused a request", "why", why, "path_len", len(r.URL.Path))
		http.Error(rw, "403 forbidden: "+why, http.StatusForbidden)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/")
	token, sub, _ := strings.Cut(rest, "/")
	session, known := w.view(token)
	if !ok || !known {
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
		w.servePage(rw, session, r.URL.Query().Get("decided"))
	case sub == "" && rest == token:
		http.Redirect(rw, r, "/"+token+"/", http.StatusMovedPermanently)
	case sub == "api/pending" && r.Method == http.MethodGet:
		w.servePending(rw, session)
	case strings.HasPrefix(sub, "api/approvals/"):
		id, what, _ := strings.Cut(strings.TrimPrefix(sub, "api/approvals/"), "/")
		switch {
		case what == "screenshot" && r.Method == http.MethodGet:
			w.serveScreenshot(rw, session, id)
		case what == "" && r.Method == http.MethodPost:
			w.serveDecision(rw, r, session, token, id)
		default:
			http.NotFound(rw, r)
		}
	case strings.HasPrefix(sub, "live") && w.serveLive(rw, r, session, sub): // takeover.go
	case strings.HasPrefix(sub, "tabs") && w.serveTabs(rw, r, session, sub): // handover.go
	case strings.HasPrefix(sub, "recording") && w.serveRecording(rw, r, session, sub): // recording.go
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
	// PlanSites are a plan's sites as the person edits them (KindPlan),
	// each escaped.
	PlanSites []webPlanSite `json:"plan_sites,omitempty"`
}

// webPlanSite is one site of a plan in the console's editor: the form
// field site-{Index} says what the person left it as (write, read or
// remove).
type webPlanSite struct {
	Index int    `json:"index"`
	Site  string `json:"site"`
	Write bool   `json:"write"`
}

func (w *Web) items(session string) []webItem {
	reqs := w.snapshotPending(session)
	out := make([]webItem, len(reqs))
	for i, r := range reqs {
		out[i] = webItem{Request: r, Prompt: r.Prompt(), Lines: r.Lines(), Outlined: r.Concrete != nil && r.Concrete.Box != nil}
		if r.Plan != nil {
			for j, ps := range r.Plan.Sites {
				out[i].PlanSites = append(out[i].PlanSites, webPlanSite{Index: j, Site: checkpoint.OneLine(ps.Site), Write: ps.Write})
			}
		}
		if r.Screenshot != nil && len(r.Screenshot.Data) > 0 {
			out[i].Screenshot = "api/approvals/" + r.ID + "/screenshot"
		}
	}
	return out
}

func (w *Web) servePending(rw http.ResponseWriter, session string) {
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(map[string]any{"pending": w.items(session)})
}

func (w *Web) serveScreenshot(rw http.ResponseWriter, session, id string) {
	r, ok := w.lookup(session, id)
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

func (w *Web) serveDecision(rw http.ResponseWriter, r *http.Request, session, token, id string) {
	r.Body = http.MaxBytesReader(rw, r.Body, 64<<10)
	var d checkpoint.Decision
	isForm, allow := false, false
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var in struct {
			Approved *bool                 `json:"approved"`
			Feedback string                `json:"feedback"`
			Allow    bool                  `json:"allow_site"`
			Sites    []checkpoint.PlanSite `json:"sites"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Approved == nil {
			http.Error(rw, `want {"approved": true|false, "feedback": "...", "allow_site": false|true, "sites": [{"site": "...", "write": true|false}] (a plan's, as the person left them)}`, http.StatusBadRequest)
			return
		}
		d = checkpoint.Decision{Approved: *in.Approved, Feedback: in.Feedback}
		allow = in.Allow && *in.Approved
		if in.Sites != nil {
			d.Plan = &checkpoint.Plan{Sites: in.Sites}
		}
	case "application/x-www-form-urlencoded", "multipart/form-data":
		isForm = true
		if err := r.ParseForm(); err != nil {
			http.Error(rw, "bad form", http.StatusBadRequest)
			return
		}
		switch r.PostForm.Get("decision") {
		case "approve":
			d.Approved = true
		case "allow":
			d.Approved, allow = true, true
		case "reject":
		default:
			http.Error(rw, "decision must be approve, allow or reject", http.StatusBadRequest)
			return
		}
		d.Feedback = r.PostForm.Get("feedback")
		if req, ok := w.lookup(session, id); ok && req.Plan != nil {
			edited, err := editedPlan(*req.Plan, r.PostForm)
			if err != nil {
				http.Error(rw, err.Error(), http.StatusBadRequest)
				return
			}
			d.Plan = edited
		}
	default:
		http.Error(rw, "send JSON or a form", http.StatusUnsupportedMediaType)
		return
	}
	d.Feedback = strings.TrimSpace(d.Feedback)
	d.Channel = checkpoint.ChannelWeb
	if !w.decide(session, id, d, allow) {
		http.Error(rw, "no such pending approval (decided, withdrawn, or unknown)", http.StatusNotFound)
		return
	}
	w.log.Info("decided in the web console", "id", id, "approved", d.Approved)
	if isForm {
		http.Redirect(rw, r, "/"+token+"/?decided="+url.QueryEscape(id), http.StatusSeeOther)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(map[string]any{"ok": true, "approved": d.Approved})
}

// editedPlan is plan as the person left it in the console's form: each
// site's field site-{index} is write, read or remove; a site whose field
// is missing stays as proposed. The gate narrows the request's plan by it
// (checkpoint.Plan.Narrowed): nothing here can widen it.
func editedPlan(plan checkpoint.Plan, form url.Values) (*checkpoint.Plan, error) {
	out := &checkpoint.Plan{Steps: plan.Steps}
	for i, ps := range plan.Sites {
		switch v := form.Get("site-" + strconv.Itoa(i)); v {
		case "":
			out.Sites = append(out.Sites, ps)
		case "write":
			out.Sites = append(out.Sites, checkpoint.PlanSite{Site: ps.Site, Write: ps.Write})
		case "read":
			out.Sites = append(out.Sites, checkpoint.PlanSite{Site: ps.Site})
		case "remove":
		default:
			return nil, fmt.Errorf("site-%d must be write, read or remove", i)
		}
	}
	return out, nil
}

// startPage sets the headers of a console page and returns the nonce its
// own style and script carry: nothing else may run or load, so a page's
// words shown in it cannot act. imgSrc and formAction are the page's only
// differences.
func startPage(rw http.ResponseWriter, imgSrc, formAction string) string {
	var nonce [12]byte
	rand.Read(nonce[:])
	n := base64.RawStdEncoding.EncodeToString(nonce[:])
	rw.Header().Set("Content-Security-Policy",
		"default-src 'none'; img-src "+imgSrc+"; style-src 'nonce-"+n+"'; script-src 'nonce-"+n+"'; connect-src 'self'; form-action "+formAction+"; base-uri 'none'; frame-ancestors 'none'")
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	return n
}

func (w *Web) servePage(rw http.ResponseWriter, session, decided string) {
	n := startPage(rw, "'self'", "'self'")
	items := w.items(session)
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	if err := w.page.Execute(rw, map[string]any{"Items": items, "Nonce": n, "IDs": strings.Join(ids, ","), "Decided": w.approvedPlanLines(session, decided)}); err != nil {
		w.log.Warn("web console page", "err", err)
	}
}

// foreign says why r does not come from the person's own use of the
// console, or "". A browser names the origin a request comes from: only
// the console's own pages may fetch, show an image or post a decision
// (Sec-Fetch-Site same-origin, or none for what the person opens
// themselves); another site may only send the person to the page, never
// read or decide. A name that is not the console's in Host is a page that
// rebound its own name to this address. Programs that send none of these
// headers (curl) are judged by the capability alone.
func (w *Web) foreign(r *http.Request) string {
	w.mu.Lock()
	addr := w.addr
	w.mu.Unlock()
	if addr != "" && !consoleHost(r.Host, addr) {
		return "Host " + strconv.Quote(r.Host) + " is not the console's"
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return "cross-origin request refused"
	}
	navigation := r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate" &&
		r.Header.Get("Sec-Fetch-Dest") == "document"
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		if !navigation {
			return "request from another site (" + site + ") refused"
		}
	}
	return ""
}

// consoleHost reports whether the Host header host names the console
// listening on addr: its own host, or a loopback name with its port.
func consoleHost(host, addr string) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return false
	}
	lh, lport, err := net.SplitHostPort(addr)
	if err != nil || port != lport {
		return false
	}
	if strings.EqualFold(h, lh) {
		return true
	}
	lip, err := netip.ParseAddr(lh)
	if err != nil || !(lip.IsLoopback() || lip.IsUnspecified()) {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	// Listening on every address, any address of this machine may be
	// named; a name other than localhost may not.
	return err == nil && (ip.IsLoopback() || lip.IsUnspecified())
}
