package approver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

func startWeb(t *testing.T) (*Web, <-chan string) {
	t.Helper()
	urls := make(chan string, 10)
	w, err := NewWeb(WebOptions{OnPending: func(u string, r checkpoint.Request) { urls <- u }})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Listen(""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, urls
}

// viewURL is the console's view of session.
func viewURL(t *testing.T, w *Web, session string) string {
	t.Helper()
	u, err := w.URL(session)
	if err != nil {
		t.Fatal(err)
	}
	return u
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
	t.Parallel()
	w, urls := startWeb(t)
	if !strings.HasPrefix(viewURL(t, w, "sess-1"), "http://127.0.0.1:") {
		t.Fatalf("URL = %s", viewURL(t, w, "sess-1"))
	}
	if code, body, _ := get(t, viewURL(t, w, "sess-1")); code != 200 || !strings.Contains(body, "No approvals are waiting") {
		t.Fatalf("empty console: %d %s", code, body)
	}

	approve := approveAsync(t.Context(), w, testRequest("req-1"))
	if u := <-urls; u != viewURL(t, w, "sess-1") {
		t.Errorf("OnPending got %s", u)
	}
	reject := approveAsync(t.Context(), w, testRequest("req-2"))
	<-urls
	code, body, hdr := get(t, viewURL(t, w, "sess-1"))
	if code != 200 || !strings.Contains(body, `The system wants to proceed with: click button &#34;Finish Cancellation&#34;. Approve?`) ||
		!strings.Contains(body, `<li>Element: button &#34;Finish Cancellation&#34;</li>`) || !strings.Contains(body, `<li>URL: http://127.0.0.1:9/finish</li>`) ||
		!strings.Contains(body, `src="api/approvals/req-1/screenshot"`) || !strings.Contains(body, "element the action targets outlined") ||
		!strings.Contains(body, "Reject") {
		t.Fatalf("console page: %d\n%s", code, body)
	}
	if hdr.Get("Referrer-Policy") != "same-origin" || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("headers: %v", hdr)
	}
	code, body, _ = get(t, viewURL(t, w, "sess-1")+"api/pending")
	var pending struct {
		Pending []struct {
			ID, Action, Prompt, Screenshot string
			Lines                          []string
			Concrete                       *checkpoint.Action
		}
	}
	if err := json.Unmarshal([]byte(body), &pending); code != 200 || err != nil || len(pending.Pending) != 2 || pending.Pending[0].ID != "req-1" ||
		len(pending.Pending[0].Lines) == 0 || pending.Pending[0].Concrete == nil || pending.Pending[0].Concrete.Node != 4 {
		t.Fatalf("pending: %d %s %v", code, body, err)
	}
	code, img, hdr := get(t, viewURL(t, w, "sess-1")+"api/approvals/req-1/screenshot")
	if code != 200 || img != string(onePixelPNG) || hdr.Get("Content-Type") != "image/png" {
		t.Errorf("screenshot: %d %s", code, hdr.Get("Content-Type"))
	}

	// Approve one with JSON, reject the other with the page's form.
	resp, err := http.Post(viewURL(t, w, "sess-1")+"api/approvals/req-1", "application/json", strings.NewReader(`{"approved":true,"feedback":"ok"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("JSON decision: %v %v", resp, err)
	}
	if r := <-approve; r.err != nil || r.d != (checkpoint.Decision{Approved: true, Feedback: "ok", Channel: checkpoint.ChannelWeb}) {
		t.Errorf("approve: %+v", r)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noRedirect.PostForm(viewURL(t, w, "sess-1")+"api/approvals/req-2", url.Values{"decision": {"reject"}, "feedback": {"  wrong plan  "}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("form decision: %v %v", resp, err)
	}
	if r := <-reject; r.err != nil || r.d != (checkpoint.Decision{Feedback: "wrong plan", Channel: checkpoint.ChannelWeb}) {
		t.Errorf("reject: %+v", r)
	}
	// Decided means gone: a second decision finds nothing.
	resp, _ = http.Post(viewURL(t, w, "sess-1")+"api/approvals/req-1", "application/json", strings.NewReader(`{"approved":true}`))
	if resp.StatusCode != 404 {
		t.Errorf("second decision: %d", resp.StatusCode)
	}
}

func TestWebConsoleRefusals(t *testing.T) {
	t.Parallel()
	w, urls := startWeb(t)
	pending := approveAsync(t.Context(), w, testRequest("req-1"))
	<-urls
	u, _ := url.Parse(viewURL(t, w, "sess-1"))
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
	req, _ := http.NewRequest("POST", viewURL(t, w, "sess-1")+"api/approvals/req-1", strings.NewReader(`{"approved":true}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("cross-origin: %v %v", resp, err)
	}
	for _, body := range []string{`{}`, `{"feedback":"yes"}`, `not json`} {
		if resp, _ := http.Post(viewURL(t, w, "sess-1")+"api/approvals/req-1", "application/json", strings.NewReader(body)); resp.StatusCode != 400 {
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
	if _, body, _ := get(t, viewURL(t, w, "sess-1")+"api/pending"); strings.Contains(body, "req-2") || !strings.Contains(body, "req-1") {
		t.Errorf("after withdrawal: %s", body)
	}
}

// TestWebConsoleEscapesHostileText: what a page or a model wrote is shown
// escaped in the console page, never as a raw control character or bidi
// override, and a request in words alone says it approves nothing.
func TestWebConsoleEscapesHostileText(t *testing.T) {
	t.Parallel()
	w, urls := startWeb(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	approveAsync(ctx, w, hostileRequest("req-h"))
	<-urls
	_, body, _ := get(t, viewURL(t, w, "sess-1"))
	if readsRaw(body) {
		t.Errorf("raw escape or override in the console page:\n%s", body)
	}
	for _, want := range []string{`\x1b[2J\u202e`, "Requested by the agent (its own words)", "approves nothing by itself"} {
		if !strings.Contains(body, want) {
			t.Errorf("the console page lacks %q:\n%s", want, body)
		}
	}
}
