package approver

import (
	"context"
	"html/template"
	"net/http"
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
		if err := h.HandOver(ctx, r.PostForm.Get("id")); err != nil {
			data["Message"] = "Not handed over: " + checkpoint.OneLine(err.Error())
		} else {
			w.log.Info("a person handed a tab of theirs to the agent from the console")
			data["Message"] = "Handed over: the tab is now the agent's current page."
		}
	default:
		http.NotFound(rw, r)
		return true
	}
	tabs, err := h.PersonTabs(ctx)
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
