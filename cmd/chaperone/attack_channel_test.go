package main

// The approval channel against an attacker (issue #22, reproductions 1 and
// 4; invariant 1 and the first sentence of invariant 6): a client, its
// model with a shell, the page in the browser it drives, or another client
// must never reach a place where an action is approved, and a request is
// served only in the session of the client that opened it.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

const (
	channelAliceToken = "alice-channel-0123456789abcdef"
	channelBobToken   = "bob-channel-0123456789abcdef-b"
)

// channelRecorder keeps every notification a client receives and every
// result it is given, to scan what the client could learn.
type channelRecorder struct {
	mu   sync.Mutex
	seen []string
}

// channelRecord records c's notifications from now on, with log messages
// of every level asked for.
func channelRecord(t *testing.T, c *client.Client) *channelRecorder {
	t.Helper()
	rec := &channelRecorder{}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		data, _ := json.Marshal(n)
		rec.add(string(data))
	})
	req := mcp.SetLevelRequest{}
	req.Params.Level = mcp.LoggingLevelDebug
	//lint:ignore SA1019 the announcement reaches clients of the revisions that still log (2025-11-25 and earlier)
	if err := c.SetLevel(context.Background(), req); err != nil {
		t.Fatalf("set the log level: %v", err)
	}
	return rec
}

func (r *channelRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, s)
}

func (r *channelRecorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.seen, "\n")
}

// waitFor waits until something recorded contains s.
func (r *channelRecorder) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(r.all(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the client never received %q; it received:\n%s", s, r.all())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// channelAct calls an action tool, recording its whole result.
func channelAct(t *testing.T, c *client.Client, rec *channelRecorder, name string, args map[string]any) actionResult {
	t.Helper()
	res, text := call(t, c, name, args)
	data, _ := json.Marshal(res)
	rec.add(string(data))
	var r actionResult
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// channelAsk calls request_human_approval in the background; the result's
// whole JSON, or the call's error, arrives on the channel.
func channelAsk(c *client.Client, args map[string]any) <-chan string {
	done := make(chan string, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = toolapi.RequestApproval
		req.Params.Arguments = args
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			done <- "call error: " + err.Error()
			return
		}
		data, _ := json.Marshal(res)
		done <- string(data)
	}()
	return done
}

var channelConsoleRE = regexp.MustCompile(`Approval console: (http://\S+/)`)

// channelView waits until stderr names n distinct console views and
// returns the nth.
func channelView(t *testing.T, stderr interface{ String() string }, n int) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var views []string
		for _, m := range channelConsoleRE.FindAllStringSubmatch(stderr.String(), -1) {
			if !strings.Contains(strings.Join(views, " "), m[1]) {
				views = append(views, m[1])
			}
		}
		if len(views) >= n {
			return views[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr names %d console views, want %d:\n%s", len(views), n, stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// channelWaitPending waits until a console view lists a request and
// returns the list; a question put to the client program (on asked) fails
// the test at once.
func channelWaitPending(t *testing.T, view string, asked <-chan string) []struct {
	ID     string `json:"id"`
	Action string `json:"action"`
} {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case q := <-asked:
			t.Fatalf("the client program was asked to approve: %q", q)
		default:
		}
		if w := pending(t, view); len(w) > 0 {
			return w
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing waits in the console")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// channelDecide posts a decision to a console view and returns the status.
func channelDecide(t *testing.T, view, id string, approved bool) int {
	t.Helper()
	resp, err := http.Post(view+"api/approvals/"+id, "application/json", strings.NewReader(fmt.Sprintf(`{"approved":%v}`, approved)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// channelFreePort returns a loopback port nothing listens on now.
func channelFreePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// channelBlocked fails the test unless r is a refusal by the URL policy.
func channelBlocked(t *testing.T, what string, r actionResult) {
	t.Helper()
	if r.Success || !strings.Contains(r.Message, "blocked by policy") {
		t.Errorf("%s: success %v, %q; want it blocked by policy", what, r.Success, r.Message)
	}
}

// TestChannelClientsCannotReachTheApprovalChannel reverses reproduction 1
// of issue #22 over HTTP with two clients. Bob's "Place order" waits for
// his person. Alice, whose browser and URL policy allow the console's
// origin by flag, cannot open the console in her browser (by URL, by a
// redirect, by a link, in a frame), nor show or decide bob's request from a
// page that learnt his view's capability, nor see or decide it with any
// capability she could have; her own request waits for her person alone,
// and nothing she receives names a console address.
func TestChannelClientsCannotReachTheApprovalChannel(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	port := channelFreePort(t)
	console := "http://127.0.0.1:" + port
	p := startServe(t, nil, "serve", "--http", "127.0.0.1:0",
		"--token", "alice:"+channelAliceToken, "--token", "bob:"+channelBobToken,
		"--approver", "web", "--web-listen", "127.0.0.1:"+port, "--url", site.URL+"/account",
		"--allow-metadata", "--allowed-origins-browse", site.URL+","+console+",http://localhost:"+port+",http://[::1]:"+port)
	alice := servertest.Connect(t, servertest.Streamable, p.base, channelAliceToken)
	rec := channelRecord(t, alice)
	bob := servertest.Connect(t, servertest.SSE, p.base, channelBobToken)

	bobDone := channelAsk(bob, map[string]any{"action": "Place order", "reason": "bob's cart"})
	bobView := channelView(t, p.stderr, 1)
	waiting := channelWaitPending(t, bobView, nil)
	if len(waiting) != 1 || waiting[0].Action != "Place order" {
		t.Fatalf("bob's view lists %+v", waiting)
	}
	bobID := waiting[0].ID
	bobCap := strings.Trim(strings.TrimPrefix(bobView, console), "/")
	u, _ := url.Parse(bobView)

	// Alice's browser, with bob's view's capability in hand.
	t.Run("navigate", func(t *testing.T) {
		for _, target := range []string{
			bobView,
			bobView + "api/pending",
			"http://localhost:" + port + u.Path,
			"http://[::1]:" + port + u.Path,
			"http://2130706433:" + port + u.Path,
			site.URL + "/redirect?to=" + url.QueryEscape(bobView),
			p.base + "/healthz",
		} {
			channelBlocked(t, "browser_navigate "+target, channelAct(t, alice, rec, toolapi.Navigate, map[string]any{"url": target}))
		}
	})
	t.Run("link", func(t *testing.T) {
		r := channelAct(t, alice, rec, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/channel-link#" + url.QueryEscape(bobView)})
		if !r.Success {
			t.Fatalf("open the hostile page: %q", r.Message)
		}
		s := getSnapshot(t, alice)
		channelBlocked(t, "a click on a link to the console", channelAct(t, alice, rec, toolapi.Click,
			map[string]any{"ref": browsertest.Ref(t, s, "link", "Claim your reward")}))
	})
	t.Run("frame", func(t *testing.T) {
		channelAct(t, alice, rec, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/channel-frame#" + url.QueryEscape(bobView)})
		text := getSnapshot(t, alice).Render()
		for _, leak := range []string{"Place order", "Approve", "Chaperone approvals"} {
			if strings.Contains(text, leak) {
				t.Errorf("the framed console shows %q to alice's agent:\n%s", leak, text)
			}
		}
	})
	t.Run("subresources", func(t *testing.T) {
		channelAct(t, alice, rec, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/channel-peek#" + url.QueryEscape(bobView+"|"+bobID)})
		deadline := time.Now().Add(30 * time.Second)
		var text string
		for {
			text = getSnapshot(t, alice).Render()
			if !strings.Contains(text, ": pending") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the page's requests never ended:\n%s", text)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !strings.Contains(text, "img: refused") {
			t.Errorf("a page showed bob's screenshot to alice's agent:\n%s", text)
		}
	})
	if w := pending(t, bobView); len(w) != 1 || w[0].ID != bobID {
		t.Fatalf("after alice's browser tried, bob's view lists %+v", w)
	}

	// What alice, or a shell beside her model, could hold: her token, her
	// session id, bob's request id, names, nothing.
	t.Run("capabilities", func(t *testing.T) {
		for _, guess := range []string{
			channelAliceToken, servertest.SessionID(alice), bobID, "alice", "bob", "", bobCap[:len(bobCap)-1], strings.ToUpper(bobCap),
		} {
			view := console + "/" + guess + "/"
			resp, err := http.Get(view + "api/pending")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), bobID) {
				t.Errorf("GET %sapi/pending: %d %s", view, resp.StatusCode, body)
			}
			if code := channelDecide(t, view, bobID, true); code != http.StatusNotFound {
				t.Errorf("POST a decision under %s: %d, want 404", view, code)
			}
		}
	})

	// Alice's own request waits in her own view, which lists nothing of
	// bob's and decides nothing of his.
	aliceDone := channelAsk(alice, map[string]any{"action": "Place order", "reason": "alice's cart"})
	aliceView := channelView(t, p.stderr, 2)
	if aliceView == bobView {
		t.Fatal("alice and bob share a console view")
	}
	mine := pending(t, aliceView)
	if len(mine) != 1 || mine[0].ID == bobID {
		t.Fatalf("alice's view lists %+v", mine)
	}
	if code := channelDecide(t, aliceView, bobID, true); code != http.StatusNotFound {
		t.Errorf("bob's request decided through alice's view: %d", code)
	}
	rec.waitFor(t, "A person must approve")
	aliceCap := strings.Trim(strings.TrimPrefix(aliceView, console), "/")

	// Each person decides their own.
	if code := channelDecide(t, bobView, bobID, true); code != http.StatusOK {
		t.Fatalf("bob's person approves: %d", code)
	}
	if got := <-bobDone; !strings.Contains(got, `\"approved\":true`) && !strings.Contains(got, `"approved":true`) {
		t.Errorf("bob's request: %s", got)
	}
	if code := channelDecide(t, aliceView, mine[0].ID, false); code != http.StatusOK {
		t.Fatalf("alice's person rejects: %d", code)
	}
	aliceResult := <-aliceDone
	rec.add(aliceResult)
	if strings.Contains(aliceResult, `"approved":true`) || strings.Contains(aliceResult, `\"approved\":true`) {
		t.Errorf("alice's rejected request: %s", aliceResult)
	}

	// Nothing alice received names her view, and no notification names
	// any address at all.
	all := rec.all()
	if strings.Contains(all, aliceCap) {
		t.Errorf("alice received her own console capability:\n%s", all)
	}
	rec.mu.Lock()
	for _, s := range rec.seen {
		if strings.HasPrefix(s, `{"jsonrpc":"2.0","method":"notifications/`) && (strings.Contains(s, "http") || strings.Contains(s, bobCap) || strings.Contains(s, ":"+port)) {
			t.Errorf("a notification names an address: %s", s)
		}
	}
	rec.mu.Unlock()
}

// TestChannelSSEMessageBoundToItsRoutedSession reverses reproduction 4 of
// issue #22 through the built binary: bob, with his own valid token, posts
// a tools/call to /message?sessionId=<alice's> with any Mcp-Session-Id
// header; it is refused and alice's browser does not move.
func TestChannelSSEMessageBoundToItsRoutedSession(t *testing.T) {
	t.Parallel()
	p := startServe(t, nil, "serve", "--http", "127.0.0.1:0",
		"--token", "alice:"+channelAliceToken, "--token", "bob:"+channelBobToken)
	alice := servertest.Connect(t, servertest.SSE, p.base, channelAliceToken)
	bob := servertest.Connect(t, servertest.Streamable, p.base, channelBobToken)
	start := getSnapshot(t, alice).Page.URL
	su, err := url.Parse(start)
	if err != nil {
		t.Fatal(err)
	}
	target := su.Scheme + "://" + su.Host + "/help"
	aliceID, bobID := servertest.SessionID(alice), servertest.SessionID(bob)
	body := `{"jsonrpc":"2.0","id":4242,"method":"tools/call","params":{"name":"` + toolapi.Navigate + `","arguments":{"url":"` + target + `"}}}`
	for _, header := range [][]string{{bobID}, {"made-up"}, {}, {bobID, aliceID}} {
		req, _ := http.NewRequest(http.MethodPost, p.base+"/message?sessionId="+url.QueryEscape(aliceID), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+channelBobToken)
		for _, h := range header {
			req.Header.Add("Mcp-Session-Id", h)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("bob's message for alice's session with Mcp-Session-Id %q: %s, want 404", header, resp.Status)
		}
	}
	// Alice's calls run one at a time: a call bob slipped in ran before
	// this one.
	if now := getSnapshot(t, alice).Page.URL; now != start {
		t.Fatalf("alice's browser moved to %s by bob's messages", now)
	}
	if s := getSnapshot(t, bob); s.Page.URL == "" {
		t.Error("bob's own session does not answer")
	}
}

// TestChannelWebhookAddressesAreReserved: the browser the agent drives
// cannot open the webhook's callback (where decisions are posted) nor the
// agent host that decides, with --allow-metadata and every origin allowed.
func TestChannelWebhookAddressesAreReserved(t *testing.T) {
	t.Parallel()
	host, hookURL := newApprovalHost(t, webhookToken)
	c, _, _ := stdioClient(t, []string{"CHAPERONE_WEBHOOK_TOKEN=" + webhookToken},
		"serve", "--approver", "webhook", "--webhook-url", hookURL, "--allow-metadata")
	rec := &channelRecorder{}
	host.decisions <- map[string]any{"approved": true}
	if a := requestApproval(t, c, map[string]any{"action": "Place order", "reason": "to learn the callback"}); !a.Approved {
		t.Fatalf("the approval: %+v", a)
	}
	callback := host.asked(t).CallbackURL
	if callback == "" {
		t.Fatal("no callback URL in the payload")
	}
	for _, target := range []string{callback, hookURL + "/", strings.Replace(hookURL, "127.0.0.1", "localhost", 1) + "/"} {
		channelBlocked(t, "browser_navigate "+target, channelAct(t, c, rec, toolapi.Navigate, map[string]any{"url": target}))
	}
}

// TestChannelStdioClientNeitherAskedNorTold: over stdio, a client that
// declares elicitation is not the one asked by default (a client program,
// or a model with a shell beside it, could answer for the person): the
// request waits in the console, and nothing the client receives names the
// console.
func TestChannelStdioClientNeitherAskedNorTold(t *testing.T) {
	t.Parallel()
	stderr := &syncBuffer{}
	tr := transport.NewStdioWithOptions(bin, nil, []string{"serve", "--allow-metadata"}, transport.WithCommandStderrWriter(stderr))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	u := &user{answer: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": true}}, asked: make(chan string, 4)}
	c := client.NewClient(tr, client.WithElicitationHandler(u))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	// Started first, so that the client answers the server's requests.
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	servertest.Initialize(t, c)
	rec := channelRecord(t, c)
	done := channelAsk(c, map[string]any{"action": "Place order", "reason": "the cart is ready"})
	view := channelView(t, stderr, 1)
	waiting := channelWaitPending(t, view, u.asked)
	if len(waiting) != 1 {
		t.Fatalf("the console lists %+v", waiting)
	}
	rec.waitFor(t, "A person must approve")
	if code := channelDecide(t, view, waiting[0].ID, false); code != http.StatusOK {
		t.Fatalf("the person rejects: %d", code)
	}
	rec.add(<-done)
	cu, _ := url.Parse(view)
	capability := strings.Trim(cu.Path, "/")
	if all := rec.all(); strings.Contains(all, capability) || strings.Contains(all, cu.Host) {
		t.Errorf("the client received the console's address:\n%s", all)
	}
	select {
	case q := <-u.asked:
		t.Errorf("the client program was asked to approve: %q", q)
	default:
	}
}
