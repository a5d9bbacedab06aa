package approver

import (
	"context"
	"errors"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// PersonTab is one of the person's own tabs, as the tab picker lists it.
type PersonTab struct {
	ID, Title, URL string
}

// Handover is a session's browser as the tab picker reaches it, when it is
// the person's own: a Wheel (Attach) that also implements it gets a tabs
// page, /{capability}/tabs, behind the session's capability like every
// page of the console. The list of the person's tabs goes to the person
// only, never to the agent.
type Handover interface {
	// PersonTabs lists the person's own tabs.
	PersonTabs(ctx context.Context) ([]PersonTab, error)
	// HandOver gives the tab id to the session's agent.
	HandOver(ctx context.Context, id string) error
}

// handoverTimeout bounds listing the tabs or handing one over.
const handoverTimeout = 30 * time.Second

var tabsTemplate = template.Must(template.New("tabs").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Chaperone: hand a tab to the agent</title>
<style nonce="{{.Nonce}}">body{font:15px/1.4 system-ui,sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem}
li{margin:.5rem 0;overflow-wrap:anywhere}.url{font-family:ui-monospace,monospace;font-size:.9rem;color:#444}</style></head>
<body><h1>Your tabs</h1>
<p>Hand one to the agent: it becomes the agent's current page, with your cookies there; the agent sees no other tab. When the agent is done the tab stays open, yours again.</p>
{{if .Message}}<p id="message">{{.Message}}</p>{{end}}
{{if .Error}}<p id="error">{{.Error}}</p>{{else if not .Tabs}}<p id="none">No tab of yours is open.</p>{{end}}
<ul>{{range .Tabs}}<li><form method="post" action="tabs/handover"><input type="hidden" name="id" value="{{.ID}}">
<b>{{.Title}}</b><br><span class="url">{{.URL}}</span><br><button type="submit">Hand to the agent</button></form></li>{{end}}</ul>
<p><a href="./">Back to the approvals</a></p></body></html>`))

// serveTabs serves the tab picker: GET tabs lists the person's tabs,
// escaped, hosts in punycode; POST tabs/handover (a form, id=) hands one
// over. It reports whether sub was one of these.
func (w *Web) serveTabs(rw http.ResponseWriter, r *http.Request, session, sub string) bool {
	if sub != "tabs" && sub != "tabs/handover" {
		return false
	}
	wh, _ := w.wheel(session)
	h, ok := wh.(Handover)
	if !ok {
		http.Error(rw, "this session has no tabs of yours to hand over (it is not in your own browser)", http.StatusNotFound)
		return true
	}
	ctx, cancel := context.WithTimeout(r.Context(), handoverTimeout)
	defer cancel()
	data := map[string]any{}
	switch {
	case sub == "tabs" && r.Method == http.MethodGet:
	case sub == "tabs/handover" && r.Method == http.MethodPost:
		r.Body = http.MaxBytesReader(rw, r.Body, 4<<10)
		if err := r.ParseForm(); err != nil || r.PostForm.Get("id") == "" {
			http.Error(rw, "want a form with the tab's id", http.StatusBadRequest)
			return true
		}
		if err := w.handOver(ctx, h, r.PostForm.Get("id")); err != nil {
			data["Message"] = "Not handed over: " + checkpoint.OneLine(err.Error())
		} else {
			w.log.Info("a person handed a tab of theirs to the agent from the console")
			data["Message"] = "Handed over: the tab is now the agent's current page."
		}
	default:
		http.NotFound(rw, r)
		return true
	}
	tabs, err := w.personTabs(ctx, h)
	if err != nil {
		data["Error"] = "Your tabs cannot be listed: " + checkpoint.OneLine(err.Error())
	}
	shown := make([]PersonTab, len(tabs))
	for i, t := range tabs {
		shown[i] = PersonTab{ID: t.ID, Title: checkpoint.OneLine(t.Title), URL: checkpoint.OneLine(t.URL)}
	}
	data["Tabs"] = shown
	data["Nonce"] = startPage(rw, "'none'", "'self'")
	if err := tabsTemplate.Execute(rw, data); err != nil {
		w.log.Warn("tab picker page", "err", err)
	}
	return true
}

// errConsoleTab refuses handing over a page of the console itself.
var errConsoleTab = errors.New("that tab is this approval console, which stays yours: the agent is never given it")

// personTabs are h's tabs of the person less the console's own pages: the
// console open in the person's browser is a tab of theirs, but its URL is
// the session's capability, and handed over it would be the agent's page,
// where the agent could read the capability and press Approve.
func (w *Web) personTabs(ctx context.Context, h Handover) ([]PersonTab, error) {
	tabs, err := h.PersonTabs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PersonTab, 0, len(tabs))
	for _, t := range tabs {
		if !w.consolePage(t.URL) {
			out = append(out, t)
		}
	}
	return out, nil
}

// handOver hands the tab id over unless it is one of the console's pages.
func (w *Web) handOver(ctx context.Context, h Handover, id string) error {
	tabs, err := h.PersonTabs(ctx)
	if err != nil {
		return err
	}
	for _, t := range tabs {
		if t.ID == id && w.consolePage(t.URL) {
			return errConsoleTab
		}
	}
	return h.HandOver(ctx, id)
}

// consolePage reports whether rawURL is one of the console's pages (or
// shows one, as view-source: does): on the console's host in any spelling
// the console answers to, or with a capability of the console in its path.
func (w *Web) consolePage(rawURL string) bool {
	u, err := url.Parse(strings.TrimPrefix(strings.TrimSpace(rawURL), "view-source:"))
	if err != nil {
		// A URL that cannot be read cannot be shown to be no console's.
		return true
	}
	w.mu.Lock()
	addr := w.addr
	w.mu.Unlock()
	if addr != "" && consoleHost(u.Host, addr) {
		return true
	}
	if _, port, err := net.SplitHostPort(addr); err == nil && u.Port() == port && (u.Hostname() == "" || isLoopbackName(u.Hostname())) {
		return true
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if _, known := w.view(seg); seg != "" && known {
			return true
		}
	}
	return false
}

// isLoopbackName reports whether host names this machine's loopback.
func isLoopbackName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}
