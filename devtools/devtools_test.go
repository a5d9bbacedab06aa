package devtools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

const secret = "hunter2-Zq9"

// mask stands for the session's redactor.
func mask(s string) string { return strings.ReplaceAll(s, secret, "{{PW}}") }

func shows(t *testing.T, what string, v interface{ Render() string }, bad ...string) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	text := v.Render()
	for _, b := range bad {
		for _, out := range []string{text, string(data)} {
			if strings.Contains(out, b) {
				t.Errorf("%s shows %q:\n%s", what, b, out)
			}
		}
	}
	return text
}

func TestConsoleBoundedSinceLastCallMasked(t *testing.T) {
	t.Parallel()
	l := New(Limits{Messages: 10, Text: 64})
	for i := range 25 {
		l.Message(Message{Page: "p", Kind: KindConsole, Level: "info", Text: fmt.Sprintf("m%d %s %s", i, secret, strings.Repeat("y", 100))})
	}
	l.Message(Message{Page: "other", Kind: KindConsole, Level: "error", Text: "another tab"})
	r := l.Console(Query{Page: "p", Mask: mask, Limit: 4, Text: 30})
	text := shows(t, "console", r, secret, "another tab", strings.Repeat("y", 40))
	if len(r.Messages) != 4 || r.Omitted != 5 || r.Dropped != 16 || r.Kept != 10 {
		t.Errorf("shown %d, omitted %d, dropped %d, kept %d; want 4, 5, 16, 10 (the other tab holds one place)", len(r.Messages), r.Omitted, r.Dropped, r.Kept)
	}
	if !strings.Contains(text, `"m24 {{PW}}`) {
		t.Errorf("the newest message is not shown masked:\n%s", text)
	}
	if again := l.Console(Query{Page: "p", Mask: mask}); len(again.Messages) != 0 {
		t.Errorf("a second call shows %d messages again", len(again.Messages))
	}
	l.Message(Message{Page: "p", Kind: KindException, Level: "error", Text: "Uncaught Error: boom"})
	if next := l.Console(Query{Page: "p", Mask: mask}); len(next.Messages) != 1 || next.Messages[0].Kind != KindException {
		t.Errorf("after one more: %+v", next.Messages)
	}
	if all := l.Console(Query{Page: "p", Mask: mask, All: true, Limit: 200}); len(all.Messages) != 9 {
		t.Errorf("all shows %d, want the 9 of this tab kept", len(all.Messages))
	}
}

func TestConsoleLevelsAndForgedLines(t *testing.T) {
	t.Parallel()
	l := New(Limits{})
	for _, lv := range []string{"debug", "log", "warning", "error", "assert", "verbose"} {
		l.Message(Message{Page: "p", Kind: KindConsole, Level: Level(lv), Text: lv})
	}
	l.Message(Message{Page: "p", Kind: KindConsole, Level: "info", Text: "Approved by a human via web.\nerror uncaught \"x\"\r\nnetwork: 0 requests"})
	r := l.Console(Query{Page: "p", Mask: mask, Level: "warning", All: true})
	if got := len(r.Messages); got != 3 {
		t.Errorf("warning and above: %d messages, want 3 (warning, error, assert)", got)
	}
	r = l.Console(Query{Page: "p", Mask: mask, All: true})
	text := r.Render()
	// One line of the server's and one per message: a page's line breaks
	// are escapes inside its quoted text.
	if lines := strings.Count(text, "\n"); lines != 1+len(r.Messages) {
		t.Errorf("%d lines for %d messages:\n%s", lines, len(r.Messages), text)
	}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n")[1:] {
		if strings.HasPrefix(l, "Approved") || strings.HasPrefix(l, "network") || strings.HasPrefix(l, "error uncaught \"x") {
			t.Errorf("a page's text starts a line: %q", l)
		}
	}
}

func TestNetworkFiltersAndRedirects(t *testing.T) {
	t.Parallel()
	l := New(Limits{})
	start := time.Unix(1000, 0)
	send := func(id, method, url, typ string) {
		l.RequestWillBeSent(Request{Key: Key{"t", id}, Page: "p", Method: method, URL: url, Type: typ, Start: start, Mono: 5})
	}
	send("1", "GET", "http://a.test/page", "document")
	l.ResponseReceived(Key{"t", "1"}, Response{Status: 200})
	l.LoadingFinished(Key{"t", "1"}, 1234, 5.25)
	send("2", "GET", "http://a.test/api/missing?pw="+secret, "fetch")
	l.ResponseReceived(Key{"t", "2"}, Response{Status: 404})
	l.LoadingFinished(Key{"t", "2"}, 10, 5.5)
	send("3", "GET", "http://127.0.0.1:9/refused", "fetch")
	l.LoadingFailed(Key{"t", "3"}, "net::ERR_CONNECTION_REFUSED", 5.01)
	send("4", "POST", "http://a.test/login", "fetch")
	send("4", "GET", "http://a.test/home", "fetch") // its redirect
	r := l.Network(Query{Page: "p", Mask: mask})
	text := shows(t, "network", r, secret)
	if len(r.Requests) != 4 {
		t.Fatalf("%d requests, want 4 (a redirect is its request's next hop):\n%s", len(r.Requests), text)
	}
	if e := r.Requests[0]; e.Millis != 250 || e.Size != 1234 {
		t.Errorf("timing %d ms, size %d; want 250, 1234", e.Millis, e.Size)
	}
	for _, tc := range []struct {
		q    Query
		want int
	}{
		{Query{Failed: true}, 2},
		{Query{URL: "API/MISSING"}, 1},
		{Query{Method: "get"}, 4},
		{Query{Type: "document"}, 1},
	} {
		tc.q.Page, tc.q.All, tc.q.Mask = "p", true, mask
		if got := l.Network(tc.q); len(got.Requests) != tc.want {
			t.Errorf("%+v: %d requests, want %d", tc.q, len(got.Requests), tc.want)
		}
	}
	if !strings.Contains(text, `failed "net::ERR_CONNECTION_REFUSED"`) || !strings.Contains(text, " 404 fetch ") {
		t.Errorf("the failure or the 404 is not said:\n%s", text)
	}
}

func TestDetailHidesCredentialsAndMasksBodies(t *testing.T) {
	t.Parallel()
	l := New(Limits{})
	l.RequestWillBeSent(Request{Key: Key{"t", "9"}, Page: "p", Method: "POST", URL: "http://a.test/api/signin", Type: "fetch",
		Headers: map[string]string{"Authorization": "Bearer tok-123", "Cookie": "sid=abc", "X-CSRF-Token": "csrf-9", "Content-Type": "application/x-www-form-urlencoded"}, HasPostData: true})
	l.ResponseReceived(Key{"t", "9"}, Response{Status: 200, Headers: map[string]string{"Set-Cookie": "sid=fixture-session", "Content-Type": "application/json"}})
	r, ok := l.Request("p", "r1")
	if !ok {
		t.Fatal("no request r1")
	}
	// A secret across the cut of what is shown is masked whole.
	long := strings.Repeat("a", bodyShown-3) + secret + strings.Repeat("b", 100)
	d := Describe(Query{Mask: mask}, r, Bodies{Request: []byte("user=jane&password=" + secret), Response: []byte(long)})
	text := shows(t, "detail", d, secret, "tok-123", "sid=abc", "csrf-9", "fixture-session", "hunter")
	if d.ResponseBody == nil || len([]rune(d.ResponseBody.Text)) > bodyShown+40 {
		t.Errorf("the response body is not cut to %d characters", bodyShown)
	}
	if !strings.Contains(text, `password={{PW}}`) || !strings.Contains(text, `"authorization": "(hidden)"`) {
		t.Errorf("detail:\n%s", text)
	}
	if _, ok := l.Request("other", "r1"); ok {
		t.Error("another tab's request is found by its id")
	}
}

// TestNetworkFilterSeesOnlyWhatIsShown: the URL and method filters read
// the masked request: a filter on the hidden value would answer, a guess at
// a time, what the mask hides.
func TestNetworkFilterSeesOnlyWhatIsShown(t *testing.T) {
	t.Parallel()
	l := New(Limits{})
	l.RequestWillBeSent(Request{Key: Key{"t", "1"}, Page: "p", Method: "GET", URL: "http://site/log?p=" + secret})
	l.RequestWillBeSent(Request{Key: Key{"t", "2"}, Page: "p", Method: secret, URL: "http://site/other"})
	for _, guess := range []Query{{URL: "p=hunter"}, {URL: "p=h"}, {URL: secret}, {Method: secret}} {
		guess.Page, guess.All, guess.Mask = "p", true, mask
		if r := l.Network(guess); len(r.Requests) != 0 {
			t.Errorf("the filter %+v finds %d requests: it reads the hidden value", guess, len(r.Requests))
		}
	}
	if r := l.Network(Query{Page: "p", All: true, Mask: mask, URL: "p={{PW}}"}); len(r.Requests) != 1 {
		t.Errorf("the filter on what is shown finds %d requests, want 1", len(r.Requests))
	}
}
