package checkpoint

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

func testRequest(id string) Request {
	return Request{
		ID: id, Session: "sess-1", Kind: KindCheckpoint,
		Action: `click button "Finish Cancellation"`, Reason: `The page matches checkpoint "final cancellation step"`,
		URL: "http://127.0.0.1:9/finish", Title: "Finish Cancellation", SnapshotID: "s-1",
		Screenshot: &snapshot.Screenshot{MIMEType: "image/png", Width: 1, Height: 1, Data: onePixelPNG},
		Time:       time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC),
	}
}

// onePixelPNG is a valid 1×1 PNG.
var onePixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82")

type result struct {
	d   Decision
	err error
}

func approveAsync(ctx context.Context, a Approver, r Request) <-chan result {
	ch := make(chan result, 1)
	go func() {
		d, err := a.Approve(ctx, r)
		ch <- result{d, err}
	}()
	return ch
}

func startWeb(t *testing.T) (*Web, <-chan string) {
	t.Helper()
	urls := make(chan string, 10)
	w, err := NewWeb(WebOptions{OnPending: func(u string, r Request) { urls <- u }})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Listen(""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, urls
}

func get(t *testing.T, u string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestWebConsoleOverHTTP(t *testing.T) {
	w, urls := startWeb(t)
	if !strings.HasPrefix(w.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL = %s", w.URL())
	}
	if code, body, _ := get(t, w.URL()); code != 200 || !strings.Contains(body, "No approvals are waiting") {
		t.Fatalf("empty console: %d %s", code, body)
	}

	approve := approveAsync(t.Context(), w, testRequest("req-1"))
	if u := <-urls; u != w.URL() {
		t.Errorf("OnPending got %s", u)
	}
	reject := approveAsync(t.Context(), w, testRequest("req-2"))
	<-urls
	code, body, hdr := get(t, w.URL())
	if code != 200 || !strings.Contains(body, `The system wants to proceed with: click button &#34;Finish Cancellation&#34;. Approve?`) ||
		!strings.Contains(body, `src="api/approvals/req-1/screenshot"`) || !strings.Contains(body, "Reject") {
		t.Fatalf("console page: %d\n%s", code, body)
	}
	if hdr.Get("Referrer-Policy") != "same-origin" || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("headers: %v", hdr)
	}
	code, body, _ = get(t, w.URL()+"api/pending")
	var pending struct {
		Pending []struct {
			ID, Action, Prompt, Screenshot string
		}
	}
	if err := json.Unmarshal([]byte(body), &pending); code != 200 || err != nil || len(pending.Pending) != 2 || pending.Pending[0].ID != "req-1" {
		t.Fatalf("pending: %d %s %v", code, body, err)
	}
	code, img, hdr := get(t, w.URL()+"api/approvals/req-1/screenshot")
	if code != 200 || img != string(onePixelPNG) || hdr.Get("Content-Type") != "image/png" {
		t.Errorf("screenshot: %d %s", code, hdr.Get("Content-Type"))
	}

	// Approve one with JSON, reject the other with the page's form.
	resp, err := http.Post(w.URL()+"api/approvals/req-1", "application/json", strings.NewReader(`{"approved":true,"feedback":"ok"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("JSON decision: %v %v", resp, err)
	}
	if r := <-approve; r.err != nil || r.d != (Decision{Approved: true, Feedback: "ok", Channel: ChannelWeb}) {
		t.Errorf("approve: %+v", r)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noRedirect.PostForm(w.URL()+"api/approvals/req-2", url.Values{"decision": {"reject"}, "feedback": {"  wrong plan  "}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("form decision: %v %v", resp, err)
	}
	if r := <-reject; r.err != nil || r.d != (Decision{Feedback: "wrong plan", Channel: ChannelWeb}) {
		t.Errorf("reject: %+v", r)
	}
	// Decided means gone: a second decision finds nothing.
	resp, _ = http.Post(w.URL()+"api/approvals/req-1", "application/json", strings.NewReader(`{"approved":true}`))
	if resp.StatusCode != 404 {
		t.Errorf("second decision: %d", resp.StatusCode)
	}
}

func TestWebConsoleRefusals(t *testing.T) {
	w, urls := startWeb(t)
	pending := approveAsync(t.Context(), w, testRequest("req-1"))
	<-urls
	u, _ := url.Parse(w.URL())
	base := u.Scheme + "://" + u.Host
	token := strings.Trim(u.Path, "/")
	wrong := []string{
		base + "/",
		base + "/api/pending",
		base + "/" + token[:len(token)-1] + "/",
		base + "/" + token + "x/api/pending",
		base + "/x" + token + "/api/approvals/req-1/screenshot",
		base + "/" + strings.ToUpper(token) + "/api/pending",
	}
	for _, p := range wrong {
		code, body, _ := get(t, p)
		if code != 404 || body != "" {
			t.Errorf("GET %s: %d %q, want an empty 404", p, code, body)
		}
		resp, err := http.Post(strings.Replace(p, "/screenshot", "", 1)+"api/approvals/req-1", "application/json", strings.NewReader(`{"approved":true}`))
		if err != nil || resp.StatusCode != 404 {
			t.Errorf("POST under %s: %v %v", p, resp.StatusCode, err)
		}
	}
	// A page on another origin cannot decide, even knowing the URL.
	req, _ := http.NewRequest("POST", w.URL()+"api/approvals/req-1", strings.NewReader(`{"approved":true}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("cross-origin: %v %v", resp, err)
	}
	for _, body := range []string{`{}`, `{"feedback":"yes"}`, `not json`} {
		if resp, _ := http.Post(w.URL()+"api/approvals/req-1", "application/json", strings.NewReader(body)); resp.StatusCode != 400 {
			t.Errorf("body %s: %d", body, resp.StatusCode)
		}
	}
	select {
	case r := <-pending:
		t.Fatalf("decided by a refused request: %+v", r)
	default:
	}
	// The request is still waiting; a cancelled context withdraws it.
	ctx, cancel := context.WithCancel(t.Context())
	withdrawn := approveAsync(ctx, w, testRequest("req-2"))
	<-urls
	cancel()
	if r := <-withdrawn; !errors.Is(r.err, context.Canceled) || r.d.Approved {
		t.Errorf("withdrawn: %+v", r)
	}
	if _, body, _ := get(t, w.URL()+"api/pending"); strings.Contains(body, "req-2") || !strings.Contains(body, "req-1") {
		t.Errorf("after withdrawal: %s", body)
	}
}

// ttyHuman plays the person at the terminal through a pipe.
type ttyHuman struct {
	in  *io.PipeWriter
	out chan byte // everything the terminal printed, read as it comes
}

func newTTYPair(t *testing.T) (*TTY, *ttyHuman) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { inW.Close(); outW.Close() })
	h := &ttyHuman{in: inW, out: make(chan byte, 1<<16)}
	go func() {
		defer close(h.out)
		r := bufio.NewReader(outR)
		for {
			c, err := r.ReadByte()
			if err != nil {
				return
			}
			h.out <- c
		}
	}()
	return NewTTY(inR, outW), h
}

// readUntil reads the terminal's output up to and including s.
func (h *ttyHuman) readUntil(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	timeout := time.After(10 * time.Second)
	for !strings.HasSuffix(b.String(), s) {
		select {
		case c, ok := <-h.out:
			if !ok {
				t.Fatalf("terminal output ended after %q", b.String())
			}
			b.WriteByte(c)
		case <-timeout:
			t.Fatalf("terminal never printed %q; printed %q", s, b.String())
		}
	}
	return b.String()
}

func (h *ttyHuman) say(line string) { io.WriteString(h.in, line+"\n") }

func TestTTY(t *testing.T) {
	cases := []struct {
		name    string
		answers []string
		want    Decision
	}{
		{"yes", []string{"y"}, Decision{Approved: true, Channel: ChannelTTY}},
		{"YES", []string{" YES "}, Decision{Approved: true, Channel: ChannelTTY}},
		{"no with feedback", []string{"n", "use the other plan"}, Decision{Feedback: "use the other plan", Channel: ChannelTTY}},
		{"enter means no", []string{"", ""}, Decision{Channel: ChannelTTY}},
		{"anything else means no", []string{"approve", ""}, Decision{Channel: ChannelTTY}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tty, person := newTTYPair(t)
			tty.ScreenshotDir = t.TempDir()
			res := approveAsync(t.Context(), tty, testRequest("r-1"))
			screen := person.readUntil(t, "Approve? [y/N]: ")
			for _, want := range []string{`The system wants to proceed with: click button "Finish Cancellation". Approve?`,
				"Reason: The page matches", "http://127.0.0.1:9/finish", "Screenshot: 1x1 image/png, saved to " + tty.ScreenshotDir} {
				if !strings.Contains(screen, want) {
					t.Errorf("screen lacks %q:\n%s", want, screen)
				}
			}
			person.say(c.answers[0])
			if len(c.answers) > 1 {
				person.readUntil(t, "Enter to skip): ")
				person.say(c.answers[1])
			}
			if r := <-res; r.err != nil || r.d != c.want {
				t.Errorf("got %+v, want %+v", r, c.want)
			}
		})
	}
}

func TestTTYWithdrawAndClosedInput(t *testing.T) {
	tty, person := newTTYPair(t)
	ctx, cancel := context.WithCancel(t.Context())
	res := approveAsync(ctx, tty, testRequest("r-1"))
	person.readUntil(t, "[y/N]: ")
	cancel()
	person.readUntil(t, "(withdrawn: the request was cancelled)\n")
	if r := <-res; !errors.Is(r.err, context.Canceled) {
		t.Errorf("withdrawn: %+v", r)
	}
	// A late "y" to the withdrawn question approves nothing later.
	person.say("y")
	time.Sleep(20 * time.Millisecond)
	res = approveAsync(t.Context(), tty, testRequest("r-2"))
	person.readUntil(t, "[y/N]: ")
	person.say("n")
	person.readUntil(t, "skip): ")
	person.say("")
	if r := <-res; r.d.Approved {
		t.Errorf("a stale answer approved: %+v", r)
	}
	person.in.Close()
	if _, err := tty.Approve(t.Context(), testRequest("r-3")); !errors.Is(err, ErrNoApprover) {
		t.Errorf("closed terminal: %v", err)
	}
}

func TestWebhook(t *testing.T) {
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
		p.Screenshot == nil || string(p.Screenshot.Data) != string(onePixelPNG) || !strings.HasPrefix(p.Prompt, "The system wants to proceed with:") {
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
	if code := post(p.CallbackURL, "Bearer "+token, `{"feedback":"x"}`); code != 400 {
		t.Errorf("no decision: %d", code)
	}
	if code := post(p.CallbackURL, "Bearer "+token, `{"approved":false,"feedback":"not now"}`); code != 200 {
		t.Errorf("decision: %d", code)
	}
	if r := <-res; r.err != nil || r.d != (Decision{Feedback: "not now", Channel: ChannelWebhook}) {
		t.Errorf("decision: %+v", r)
	}

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

func TestFirst(t *testing.T) {
	unavailable := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Decision{}, errors.New("elicitation: " + ErrNoApprover.Error())
	})
	none := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Decision{}, ErrNoApprover
	})
	web := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Decision{Approved: true, Channel: ChannelWeb}, nil
	})
	broken := ApproverFunc(func(context.Context, Request) (Decision, error) { return Decision{}, errors.New("boom") })

	if d, err := (First{none, web}).Approve(t.Context(), testRequest("x")); err != nil || d.Channel != ChannelWeb {
		t.Errorf("falls through: %+v %v", d, err)
	}
	if _, err := (First{broken, web}).Approve(t.Context(), testRequest("x")); err == nil || err.Error() != "boom" {
		t.Errorf("a real failure does not fall through: %v", err)
	}
	if _, err := (First{none, none}).Approve(t.Context(), testRequest("x")); !errors.Is(err, ErrNoApprover) {
		t.Errorf("none: %v", err)
	}
	// An error that merely says the words is not ErrNoApprover.
	if _, err := (First{unavailable, web}).Approve(t.Context(), testRequest("x")); errors.Is(err, ErrNoApprover) || err == nil {
		t.Errorf("lookalike: %v", err)
	}
}

func ExampleFirst() {
	// --approver auto: the client's elicitation when it can, else the console.
	elicitation := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Decision{}, fmt.Errorf("elicitation: %w: the MCP client did not declare elicitation", ErrNoApprover)
	})
	console := ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		fmt.Println("console asks:", r.Prompt())
		return Decision{Approved: true, Channel: ChannelWeb}, nil
	})
	d, err := First{elicitation, console}.Approve(context.Background(), Request{Action: `click button "Pay"`})
	fmt.Println(d.Approved, d.Channel, err)
	// Output:
	// console asks: The system wants to proceed with: click button "Pay". Approve?
	// true web <nil>
}
