package approver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// widenRequest is a request about a write on a site outside the write set.
func widenRequest(id string) checkpoint.Request {
	r := testRequest(id)
	r.Site = "http://localhost"
	return r
}

// TestTTYAllowOnSite: a request naming a site outside the write set offers
// "a" to allow it for the task, which the decision carries; a request that
// names none takes "a" as no.
func TestTTYAllowOnSite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		req    checkpoint.Request
		prompt string
		want   checkpoint.Decision
	}{
		{"site named", widenRequest("r-1"), "Approve? [y/N, or a to allow on http://localhost for this task]: ",
			checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY, WidenSite: "http://localhost"}},
		{"no site", testRequest("r-2"), "Approve? [y/N]: ", checkpoint.Decision{Channel: checkpoint.ChannelTTY}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tty, person := newTTYPair(t)
			res := approveAsync(t.Context(), tty, tc.req)
			screen := person.readUntil(t, tc.prompt)
			if tc.req.Site != "" && !strings.Contains(screen, "which writes to http://localhost, a site outside this task's write set. Approve?") {
				t.Errorf("the prompt does not name the site:\n%s", screen)
			}
			person.say("a")
			if !tc.want.Approved {
				person.readUntil(t, "Enter to skip): ")
				person.say("")
			}
			if r := <-res; r.err != nil || r.d != tc.want {
				t.Errorf("got %+v, want %+v", r, tc.want)
			}
		})
	}
}

// TestWebAllowOnSite: the console shows "Allow on <site> for this task" only
// for a request that names a site, and that answer widens by the site the
// request names, whatever the answer says; JSON can say allow_site.
func TestWebAllowOnSite(t *testing.T) {
	t.Parallel()
	w, urls := startWeb(t)
	allow := approveAsync(t.Context(), w, widenRequest("req-1"))
	<-urls
	plain := approveAsync(t.Context(), w, testRequest("req-2"))
	<-urls
	_, body, _ := get(t, viewURL(t, w, "sess-1"))
	if n := strings.Count(body, `value="allow"`); n != 1 || !strings.Contains(body, "Allow on http://localhost for this task") {
		t.Fatalf("the console offers %d allow buttons:\n%s", n, body)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(viewURL(t, w, "sess-1")+"api/approvals/req-1", url.Values{"decision": {"allow"}, "widen_site": {"http://evil.example"}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("allow: %v %v", resp, err)
	}
	if r := <-allow; r.err != nil || r.d != (checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWeb, WidenSite: "http://localhost"}) {
		t.Errorf("allow: %+v", r)
	}
	// A request with no site widens nothing, whatever the answer says.
	resp, err = http.Post(viewURL(t, w, "sess-1")+"api/approvals/req-2", "application/json", strings.NewReader(`{"approved":true,"allow_site":true}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("JSON allow: %v %v", resp, err)
	}
	if r := <-plain; r.err != nil || r.d != (checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWeb}) {
		t.Errorf("allow without a site: %+v", r)
	}
}

// TestWebhookWidenSite: the agent host's decision may carry widen_site,
// which reaches the gate as it came (the gate checks it against the
// request's site).
func TestWebhookWidenSite(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef-token"
	received := make(chan WebhookPayload, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p WebhookPayload
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			t.Error(err)
		}
		w.WriteHeader(http.StatusAccepted)
		received <- p
	}))
	defer receiver.Close()
	mux := http.NewServeMux()
	callback := httptest.NewServer(mux)
	defer callback.Close()
	hook, err := NewWebhook(WebhookOptions{URL: receiver.URL, Token: token, CallbackURL: callback.URL + "/approvals/"})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/approvals/", hook.Handler())
	res := approveAsync(t.Context(), hook, widenRequest("w-1"))
	p := <-received
	if p.Site != "http://localhost" || !strings.Contains(p.Prompt, "http://localhost, a site outside this task's write set") {
		t.Errorf("payload: site %q, prompt %q", p.Site, p.Prompt)
	}
	req, _ := http.NewRequest(http.MethodPost, p.CallbackURL, strings.NewReader(`{"approved":true,"widen_site":" http://localhost "}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("decision: %v %v", resp, err)
	}
	resp.Body.Close()
	if r := <-res; r.err != nil || r.d != (checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWebhook, WidenSite: "http://localhost"}) {
		t.Errorf("decision: %+v", r)
	}
}
