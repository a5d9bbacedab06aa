package approver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

func TestWebhook(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef-token"
	received := make(chan WebhookPayload, 4)
	status := http.StatusAccepted
	var mu sync.Mutex
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Error("the token was sent to the receiver")
		}
		var p WebhookPayload
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			t.Error(err)
		}
		mu.Lock()
		defer mu.Unlock()
		w.WriteHeader(status)
		if status/100 == 2 {
			received <- p
		}
	}))
	defer receiver.Close()

	var hook *Webhook
	mux := http.NewServeMux()
	callback := httptest.NewServer(mux)
	defer callback.Close()
	hook, err := NewWebhook(WebhookOptions{URL: receiver.URL + "/hook", Token: token, CallbackURL: callback.URL + "/approvals/"})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/approvals/", hook.Handler())

	post := func(u, auth, body string) int {
		req, _ := http.NewRequest("POST", u, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	res := approveAsync(t.Context(), hook, testRequest("w-1"))
	p := <-received
	if p.ID != "w-1" || p.Action != `click button "Finish Cancellation"` || p.CallbackURL != callback.URL+"/approvals/w-1" ||
		p.Screenshot == nil || string(p.Screenshot.Data) != string(onePixelPNG) || !strings.HasPrefix(p.Prompt, "The system wants to proceed with:") ||
		p.Concrete == nil || p.Concrete.Verb != checkpoint.VerbClick || p.Concrete.Name != "Finish Cancellation" ||
		!slices.Contains(p.Lines, `Element: button "Finish Cancellation"`) {
		t.Errorf("payload: %+v", p)
	}
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", token, "Basic " + token} {
		if code := post(p.CallbackURL, auth, `{"approved":true}`); code != 401 {
			t.Errorf("auth %q: %d", auth, code)
		}
	}
	if code := post(callback.URL+"/approvals/nope", "Bearer "+token, `{"approved":true}`); code != 404 {
		t.Errorf("unknown id: %d", code)
	}
	// A page that learnt the callback and the token still cannot decide:
	// the browser says the request is a page's.
	for _, h := range []map[string]string{
		{"Origin": "http://127.0.0.1:1"},
		{"Sec-Fetch-Site": "same-site"},
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-origin", "Origin": callback.URL},
	} {
		req, _ := http.NewRequest("POST", p.CallbackURL, strings.NewReader(`{"approved":true}`))
		req.Header.Set("Authorization", "Bearer "+token)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a decision with %v: %d, want 403", h, resp.StatusCode)
		}
	}
	if code := post(p.CallbackURL, "Bearer "+token, `{"feedback":"x"}`); code != 400 {
		t.Errorf("no decision: %d", code)
	}
	if code := post(p.CallbackURL, "Bearer "+token, `{"approved":false,"feedback":"not now"}`); code != 200 {
		t.Errorf("decision: %d", code)
	}
	if r := <-res; r.err != nil || r.d != (checkpoint.Decision{Feedback: "not now", Channel: checkpoint.ChannelWebhook}) {
		t.Errorf("decision: %+v", r)
	}

	// What a person reads of a hostile request is escaped; the raw fields
	// are for programs.
	res = approveAsync(t.Context(), hook, hostileRequest("w-h"))
	p = <-received
	if readsRaw(p.Prompt) || readsRaw(strings.Join(p.Lines, "\n")) || !strings.Contains(strings.Join(p.Lines, "\n"), "approves nothing by itself") {
		t.Errorf("hostile payload: prompt %q, lines %q", p.Prompt, p.Lines)
	}
	post(p.CallbackURL, "Bearer "+token, `{"approved":false}`)
	<-res

	// A receiver that refuses the request: an error, so the gate rejects.
	mu.Lock()
	status = http.StatusInternalServerError
	mu.Unlock()
	if _, err := hook.Approve(t.Context(), testRequest("w-2")); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("refused delivery: %v", err)
	}
	// Cancelled while waiting: withdrawn, and a late callback finds nothing.
	mu.Lock()
	status = http.StatusAccepted
	mu.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	res = approveAsync(ctx, hook, testRequest("w-3"))
	p = <-received
	cancel()
	if r := <-res; !errors.Is(r.err, context.Canceled) {
		t.Errorf("withdrawn: %+v", r)
	}
	if code := post(p.CallbackURL, "Bearer "+token, `{"approved":true}`); code != 404 {
		t.Errorf("late callback: %d", code)
	}
	if _, err := NewWebhook(WebhookOptions{URL: "ftp://x", Token: token}); err == nil {
		t.Error("accepted an ftp URL")
	}
	if _, err := NewWebhook(WebhookOptions{URL: receiver.URL, Token: "short"}); err == nil {
		t.Error("accepted a short token")
	}
}
