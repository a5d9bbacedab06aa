package approver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// WebhookOptions configures the webhook approver.
type WebhookOptions struct {
	// URL receives each request as a JSON POST.
	URL string
	// Token authenticates decisions posted back: the callback must carry
	// "Authorization: Bearer <Token>". It is never sent to URL.
	Token string
	// CallbackURL is where the receiver posts its decision, without the
	// request id, e.g. "http://127.0.0.1:8080/approvals/"; it is sent along
	// with each request (as callback_url, id appended).
	CallbackURL string
	// Client sends the POST; nil means a client with a 30 s timeout (for the
	// delivery, not for the decision, which has none).
	Client *http.Client
	// Logger receives the approver's log; nil discards it.
	Logger *slog.Logger
}

// Webhook asks an agent host over HTTP: it POSTs each request as JSON to a
// configured URL and waits for the decision to come back on its Handler,
// POST /approvals/{id} with the bearer token.
type Webhook struct {
	opts WebhookOptions
	log  *slog.Logger

	mu      sync.Mutex
	pending map[string]chan checkpoint.Decision
}

// WebhookPayload is the JSON body POSTed to the webhook URL. The request's
// fields come as they are (action, title, url, reason, words, and concrete:
// the action itself, with verb, role, name, value, option and dialog), for a
// program to read, except that a URL's host written in Unicode is written
// as the ASCII host the browser connects to. What a person reads is Prompt and Lines, which are
// escaped: show those, not the raw fields, which hold a page's and a model's
// text as it came, control characters included.
type WebhookPayload struct {
	checkpoint.Request
	// Prompt is the question for the human.
	Prompt string `json:"prompt"`
	// Lines say what is being approved, one fact a line (Request.Lines).
	Lines []string `json:"lines"`
	// Screenshot is the page when the request was made, with the element
	// the action targets outlined when it has a box; Data is base64 in
	// JSON.
	Screenshot *WebhookScreenshot `json:"screenshot,omitempty"`
	// CallbackURL is where to POST the decision:
	// {"approved": bool, "feedback": "..."} with the bearer token. When the
	// request names a Site (an action outside the write set), a person who
	// chooses "Allow on <site> for this task" is posted as
	// {"approved": true, "widen_site": "<site>"}. For a plan (kind "plan",
	// its steps and sites in plan), the sites as the person left them may
	// come back as "sites": [{"site": "...", "write": bool}]: a site left
	// out is removed; they can only narrow the plan.
	CallbackURL string `json:"callback_url,omitempty"`
}

// WebhookScreenshot is a screenshot inside a WebhookPayload.
type WebhookScreenshot struct {
	MIMEType string `json:"mime_type"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Data     []byte `json:"data"`
}

// NewWebhook checks opts and returns the approver.
func NewWebhook(opts WebhookOptions) (*Webhook, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("webhook: URL %q is not an absolute http(s) URL", opts.URL)
	}
	if len(opts.Token) < 16 {
		return nil, errors.New("webhook: the callback token must be at least 16 characters")
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 30 * time.Second}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Webhook{opts: opts, log: log, pending: map[string]chan checkpoint.Decision{}}, nil
}

// Approve POSTs r to the webhook URL and waits for the decision or for ctx
// to end, which withdraws r. A failed delivery is an error (the gate turns
// it into a rejection that says so).
func (h *Webhook) Approve(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	answer := make(chan checkpoint.Decision, 1)
	h.mu.Lock()
	h.pending[r.ID] = answer
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.pending, r.ID)
		h.mu.Unlock()
	}()

	p := WebhookPayload{Request: r, Prompt: r.Prompt(), Lines: r.Lines()}
	if h.opts.CallbackURL != "" {
		p.CallbackURL = strings.TrimSuffix(h.opts.CallbackURL, "/") + "/" + url.PathEscape(r.ID)
	}
	if s := r.Screenshot; s != nil && len(s.Data) > 0 {
		p.Screenshot = &WebhookScreenshot{MIMEType: s.MIMEType, Width: s.Width, Height: s.Height, Data: s.Data}
	}
	body, err := json.Marshal(p)
	if err != nil {
		return checkpoint.Decision{}, fmt.Errorf("webhook: %w", err)
	}
	// Whoever reads the payload, a person or a program that shows it,
	// reads the real host of every URL in it, raw fields included.
	body = checkpoint.ASCIIHostsJSON(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.opts.URL, bytes.NewReader(body))
	if err != nil {
		return checkpoint.Decision{}, fmt.Errorf("webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		return checkpoint.Decision{}, fmt.Errorf("webhook: deliver request: %w", err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return checkpoint.Decision{}, fmt.Errorf("webhook: receiver answered %s", resp.Status)
	}
	h.log.Info("approval sent to webhook", "id", r.ID, "status", resp.StatusCode)

	select {
	case d := <-answer:
		return d, nil
	case <-ctx.Done():
		return checkpoint.Decision{}, fmt.Errorf("webhook: %w", context.Cause(ctx))
	}
}

// Handler takes decisions: POST …/approvals/{id} (only the last path
// segment is read, so mount it where you like, e.g. at "/approvals/") with
// "Authorization: Bearer <token>" and {"approved": bool, "feedback": "...",
// "widen_site": "...", "sites": [...]} (widen_site only to allow the
// request's site for the rest of the task; sites only for a plan, as the
// person left them). It answers 401 to a wrong token, 404 to an id that is not waiting, 400 to
// a bad body, and 403 to a request a browser made for a web page.
func (h *Webhook) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST a decision", http.StatusMethodNotAllowed)
			return
		}
		// The agent host is a program; a request a browser makes for a
		// page (it names the page's Origin, or a site) is a page trying to
		// decide, maybe the very page the agent is on.
		if site := r.Header.Get("Sec-Fetch-Site"); r.Header.Get("Origin") != "" || (site != "" && site != "none") {
			http.Error(w, "a decision from a web page is refused", http.StatusForbidden)
			return
		}
		auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(auth), []byte(h.opts.Token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="chaperone approvals"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		path := strings.TrimSuffix(r.URL.Path, "/")
		id := path[strings.LastIndex(path, "/")+1:]
		if unescaped, err := url.PathUnescape(id); err == nil {
			id = unescaped
		}
		var in struct {
			Approved  *bool                 `json:"approved"`
			Feedback  string                `json:"feedback"`
			WidenSite string                `json:"widen_site"`
			Sites     []checkpoint.PlanSite `json:"sites"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil || in.Approved == nil {
			http.Error(w, `want {"approved": true|false, "feedback": "..."}`, http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		answer, ok := h.pending[id]
		if ok {
			delete(h.pending, id)
		}
		h.mu.Unlock()
		if !ok {
			http.Error(w, "no such pending approval (decided, withdrawn, or unknown)", http.StatusNotFound)
			return
		}
		d := checkpoint.Decision{Approved: *in.Approved, Feedback: strings.TrimSpace(in.Feedback), Channel: checkpoint.ChannelWebhook, WidenSite: strings.TrimSpace(in.WidenSite)}
		if in.Sites != nil {
			d.Plan = &checkpoint.Plan{Sites: in.Sites}
		}
		answer <- d
		h.log.Info("decided through the webhook", "id", id, "approved", *in.Approved)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`+"\n")
	})
}
