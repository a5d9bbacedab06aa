package checkpoint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

var snapshotDialog = snapshot.Dialog{Type: "prompt", Message: "Your email?"}

// in places a at a document of url.
func in(a checkpoint.Action, url string) checkpoint.Action {
	a.Where = checkpoint.Where{Target: "T", Frame: "F", Document: "D", URL: url}
	return a
}

func withOrigin(a checkpoint.Action, origin string) checkpoint.Action {
	a.Origin = origin
	return a
}

// TestWritesOutside is the rule of issue 23's origin sets: every site
// outside the write set is read-only, so typing, selecting, uploading,
// dragging, submitting a form or keys into a field there is a write outside,
// judged by the document the action acts in; reads (plain clicks, keys to
// the page) are not.
func TestWritesOutside(t *testing.T) {
	t.Parallel()
	w, err := checkpoint.NewWriteSet("http://127.0.0.1:8080/start", "https://*.shop.example")
	if err != nil {
		t.Fatal(err)
	}
	const other = "http://localhost:8080/hostile/origins-form.html"
	field := checkpoint.Action{Verb: checkpoint.VerbFill, Node: 3, Role: "textbox", Name: "Email", Value: "a@b.c", Field: true}
	tests := []struct {
		name string
		a    checkpoint.Action
		site string // "" when not a write outside
	}{
		{"fill on another site", in(field, other), "http://localhost"},
		{"fill on the start site, other port", in(field, "http://127.0.0.1:9999/form"), ""},
		{"fill on a subdomain of an allowed origin", in(field, "https://pay.shop.example/x"), ""},
		{"fill in a cross-site frame", in(field, "http://localhost:8080/frame"), "http://localhost"},
		{"select on another site", in(checkpoint.Action{Verb: checkpoint.VerbSelect, Role: "combobox", Name: "Plan"}, other), "http://localhost"},
		{"upload on another site", in(checkpoint.Action{Verb: checkpoint.VerbUpload, Role: "button", Name: "File"}, other), "http://localhost"},
		{"drag on another site", in(checkpoint.Action{Verb: checkpoint.VerbDrag, Role: "listitem", Name: "A"}, other), "http://localhost"},
		{"submit click on another site", in(checkpoint.Action{Verb: checkpoint.VerbClick, Role: "button", Name: "Send", Submits: true}, other), "http://localhost"},
		{"plain click on another site", in(checkpoint.Action{Verb: checkpoint.VerbClick, Role: "link", Name: "Next"}, other), ""},
		{"plain button on another site", in(checkpoint.Action{Verb: checkpoint.VerbClick, Role: "button", Name: "Menu"}, other), ""},
		{"key into a field on another site", in(checkpoint.Action{Verb: checkpoint.VerbPress, Role: "textbox", Name: "Email", Value: "a", Field: true}, other), "http://localhost"},
		{"Enter that submits on another site", in(checkpoint.Action{Verb: checkpoint.VerbPress, Role: "button", Name: "Send", Value: "Enter", Submits: true}, other), "http://localhost"},
		{"key to the page on another site", in(checkpoint.Action{Verb: checkpoint.VerbPress, Value: "PageDown"}, other), ""},
		{"prompt answered with text on another site", in(checkpoint.Action{Verb: checkpoint.VerbClick, Role: "button", Name: "OK", Value: "secret", Dialog: &snapshotDialog}, other), "http://localhost"},
		{"fill in a srcdoc frame", in(field, "about:srcdoc"), "about:"},
		{"fill in a srcdoc frame of the start site", in(withOrigin(field, "http://127.0.0.1:8080"), "about:srcdoc"), ""},
		{"fill in a srcdoc frame of another site", in(withOrigin(field, "http://localhost:8080"), "about:srcdoc"), "http://localhost"},
		{"fill in a blank frame of an opaque origin", in(withOrigin(field, "null"), "about:blank"), "about:"},
		{"the URL's site wins over the origin", in(withOrigin(field, "http://127.0.0.1:8080"), other), "http://localhost"},
		{"fill in a data: document", in(field, "data:text/html,<input>"), "data:"},
		{"fill placed nowhere", field, "(a document with no URL)"},
		{"submit to another site from the start site", in(checkpoint.Action{Verb: checkpoint.VerbClick, Role: "button", Name: "Subscribe", Submits: true, SubmitsTo: other + "?x=1"}, "http://127.0.0.1:8080/"), "http://localhost"},
		{"submit to the start site", in(checkpoint.Action{Verb: checkpoint.VerbClick, Role: "button", Name: "Save", Submits: true, SubmitsTo: "http://127.0.0.1:8080/save"}, "http://127.0.0.1:8080/"), ""},
		{"submit to a script", in(checkpoint.Action{Verb: checkpoint.VerbClick, Role: "button", Name: "Save", Submits: true, SubmitsTo: "javascript:void(0)"}, "http://127.0.0.1:8080/"), ""},
		{"Enter in a start-site field sending elsewhere", in(checkpoint.Action{Verb: checkpoint.VerbPress, Role: "textbox", Name: "Email", Value: "Enter", Field: true, Submits: true, SubmitsTo: other}, "http://127.0.0.1:8080/"), "http://localhost"},
		{"a form's action without a submit", in(checkpoint.Action{Verb: checkpoint.VerbFill, Role: "textbox", Name: "Email", Field: true, SubmitsTo: other}, "http://127.0.0.1:8080/"), ""},
		{"navigation is not this rule's", in(checkpoint.Action{Verb: checkpoint.VerbNavigate, Value: other}, other), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, ok := w.WritesOutside(tt.a)
			if ok != (tt.site != "") || site != tt.site {
				t.Fatalf("WritesOutside = %q, %v; want %q", site, ok, tt.site)
			}
		})
	}
}

// TestGateWriteSet: the gate asks a person before a write outside the write
// set, even when the profile gates nothing else, naming the site; a
// rejection stops it; "Allow on <site> for this task" widens the write set
// for the session (the next write there is not asked about) and is recorded
// as a decision of its own; an answer that names another site widens
// nothing; without a profile (--profile none) nothing is asked.
func TestGateWriteSet(t *testing.T) {
	t.Parallel()
	w, err := checkpoint.NewWriteSet("http://127.0.0.1:8080/")
	if err != nil {
		t.Fatal(err)
	}
	empty := &checkpoint.Profile{Name: "empty"}
	fill := in(checkpoint.Action{Verb: checkpoint.VerbFill, Node: 3, Role: "textbox", Name: "Email", Value: "a@b.c", Field: true}, "http://localhost:8080/form")
	tests := []struct {
		name     string
		profile  *checkpoint.Profile
		answer   checkpoint.Decision
		approved bool
		asked    int // over two fills
		widened  bool
	}{
		{"rejected", empty, checkpoint.Decision{Channel: checkpoint.ChannelWebhook, Feedback: "no"}, false, 2, false},
		{"approved once", empty, checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWebhook}, true, 2, false},
		{"allowed for the task", empty, checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWebhook, WidenSite: "http://localhost"}, true, 1, true},
		{"allowed for another site", empty, checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWebhook, WidenSite: "http://evil.example"}, true, 2, false},
		{"widen in a rejection", empty, checkpoint.Decision{Channel: checkpoint.ChannelWebhook, WidenSite: "http://localhost"}, false, 2, false},
		{"widen with no channel", empty, checkpoint.Decision{Approved: true, WidenSite: "http://localhost"}, false, 2, false},
		{"profile none", nil, checkpoint.Decision{}, true, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &checkpointtest.Person{Answer: tt.answer}
			rec := &widenRecorder{}
			g := checkpoint.NewGate(tt.profile, p, checkpoint.Options{Audit: rec})
			for range 2 {
				if _, ok := g.GatedIn(nil, fill, w); ok != (len(p.Requests()) < tt.asked) {
					t.Errorf("GatedIn = %v before request %d", ok, len(p.Requests())+1)
				}
				d, err := g.AuthorizeIn(context.Background(), nil, fill, w)
				if err != nil || d.Approved != tt.approved {
					t.Fatalf("decision = %+v, %v", d, err)
				}
			}
			if got := len(p.Requests()); got != tt.asked {
				t.Fatalf("asked %d times, want %d", got, tt.asked)
			}
			if tt.asked > 0 {
				r := p.Requests()[0]
				text := r.Prompt() + "\n" + strings.Join(r.Lines(), "\n")
				for _, want := range []string{"typing on http://localhost, a site outside this task's write set", "which writes to http://localhost, a site outside this task's write set. Approve?"} {
					if !strings.Contains(text, want) {
						t.Errorf("the person is not shown %q:\n%s", want, text)
					}
				}
				if r.Site != "http://localhost" {
					t.Errorf("request's Site = %q", r.Site)
				}
			}
			if got := len(rec.widened); (got == 1) != tt.widened || got > 1 {
				t.Fatalf("%d widenings recorded, want widened=%v", got, tt.widened)
			}
			if tt.widened {
				if !g.Widen(w).Contains("http://localhost:1/x") {
					t.Error("Widen does not hold the allowed site")
				}
				if _, ok := g.GatedIn(nil, fill, w); ok {
					t.Error("GatedIn still gates a write on the allowed site")
				}
			}
		})
	}
}

type widenRecorder struct {
	sendRecorder
	widened []string
}

func (r *widenRecorder) Widened(_ checkpoint.Request, d checkpoint.Decision) error {
	r.widened = append(r.widened, d.WidenSite)
	return nil
}
