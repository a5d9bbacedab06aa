package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// announcements collects the MCP log messages a client receives.
type announcements chan string

// listen subscribes to a client's log messages at level info, as a client
// that shows server logs does; on protocol 2026-07-28 a server sends them
// only to requests that ask.
func listen(t *testing.T, c *client.Client) announcements {
	t.Helper()
	req := mcp.SetLevelRequest{}
	req.Params.Level = mcp.LoggingLevelInfo
	//lint:ignore SA1019 the announcement reaches clients of the revisions that still log (2025-11-25 and earlier)
	if err := c.SetLevel(context.Background(), req); err != nil {
		t.Fatalf("set the log level: %v", err)
	}
	a := make(announcements, 16)
	// Start wires the transport's notifications to OnNotification; the
	// stdio constructor started only the transport.
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/message" {
			return
		}
		data, _ := json.Marshal(n.Params.AdditionalFields["data"])
		var s string
		json.Unmarshal(data, &s)
		a <- s
	})
	return a
}

var consoleURL = regexp.MustCompile(`Approval console: (http://127\.0\.0\.1:\d+/[^/\s]+/)`)

// next waits for an announcement and returns it with the console URL the
// person reads on the server's stderr: the announcement names none.
func (a announcements) next(t *testing.T, stderr *syncBuffer) (text, url string) {
	t.Helper()
	select {
	case text = <-a:
	case <-time.After(30 * time.Second):
		t.Fatal("no MCP log message announced the waiting approval")
	}
	if strings.Contains(text, "http") {
		t.Errorf("the announcement names an address: %q", text)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := consoleURL.FindStringSubmatch(stderr.String()); m != nil {
			return text, m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no console URL on stderr:\n%s", stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pending lists the pending approvals of a console view, failing the test
// unless the view answers 200.
func pending(t *testing.T, console string) []struct {
	ID     string `json:"id"`
	Action string `json:"action"`
} {
	t.Helper()
	resp, err := http.Get(console + "api/pending")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Pending []struct {
			ID     string `json:"id"`
			Action string `json:"action"`
		} `json:"pending"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("GET %sapi/pending: %s %v", console, resp.Status, err)
	}
	return out.Pending
}

// clickAsync clicks ref in the background; the result arrives on the
// channel.
func clickAsync(ctx context.Context, c *client.Client, ref string) <-chan actionResult {
	done := make(chan actionResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = toolapi.Click
		req.Params.Arguments = map[string]any{"ref": ref}
		res, err := c.CallTool(ctx, req)
		var r actionResult
		if err != nil {
			r.Message = "call error: " + err.Error()
		} else if data, err := json.Marshal(res.StructuredContent); err == nil {
			json.Unmarshal(data, &r)
		}
		done <- r
	}()
	return done
}

// TestWebConsoleFallback: a client without elicitation (as Claude Desktop's
// own client) is told over MCP where the approval waits, a person decides
// in the web console, and the click goes through.
func TestWebConsoleFallback(t *testing.T) {
	t.Parallel()
	c, _, stderr := stdioClient(t, nil, "serve", "--profile", "demo")
	news := listen(t, c)
	s := flowTo(t, c)
	done := clickAsync(context.Background(), c, browsertest.Ref(t, s, "button", "Finish Cancellation"))
	text, console := news.next(t, stderr)
	if !strings.Contains(text, `The system wants to proceed with: click button "Finish Cancellation". Approve?`) {
		t.Errorf("the announcement does not say what waits: %q", text)
	}
	waiting := pending(t, console)
	if len(waiting) != 1 {
		t.Fatalf("the console lists %d pending approvals, want 1", len(waiting))
	}
	resp, err := http.Post(console+"api/approvals/"+waiting[0].ID, "application/json", strings.NewReader(`{"approved":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("approve in the console: %s", resp.Status)
	}
	r := <-done
	var after snapshot.Snapshot
	json.Unmarshal(r.Snapshot, &after)
	if !r.Success || !strings.HasSuffix(after.Page.URL, "/cancelled") {
		t.Fatalf("approved click: success %v, %q, at %s", r.Success, r.Message, after.Page.URL)
	}
}

// TestCancelledCallWithdrawsApproval: a client that gives up on a call
// waiting for approval withdraws the question; nothing is performed later,
// and the session goes on.
func TestCancelledCallWithdrawsApproval(t *testing.T) {
	t.Parallel()
	c, _, stderr := stdioClient(t, nil, "serve", "--profile", "demo")
	news := listen(t, c)
	s := flowTo(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	done := clickAsync(ctx, c, browsertest.Ref(t, s, "button", "Finish Cancellation"))
	_, console := news.next(t, stderr)
	cancel()
	<-done
	deadline := time.Now().Add(10 * time.Second)
	for len(pending(t, console)) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled call's approval is still pending")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := getSnapshot(t, c); !strings.HasSuffix(s.Page.URL, "/finish") {
		t.Fatalf("after the withdrawn approval the page is %s, want /finish", s.Page.URL)
	}
}

// user is a person answering elicitation requests in the client.
type user struct {
	answer mcp.ElicitationResponse
	asked  chan string
}

func (u *user) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	u.asked <- req.Params.Message
	return &mcp.ElicitationResult{ElicitationResponse: u.answer}, nil
}

// elicitingClient runs "chaperone args..." on stdio for a client that
// declares elicitation and answers as u does.
func elicitingClient(t *testing.T, u *user, args ...string) *client.Client {
	t.Helper()
	stderr := &syncBuffer{}
	tr := transport.NewStdioWithOptions(bin, withBrowser(t, nil, args), args, transport.WithCommandStderrWriter(stderr))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithElicitationHandler(u))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	servertest.Initialize(t, c)
	return c
}

// TestElicitation: with --approver elicitation, a client that declares
// elicitation is asked in its own UI; accept-and-approve lets the click
// through, a decline stops it with the human's answer, a cancel too.
func TestElicitation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answer  mcp.ElicitationResponse
		success bool
		page    string
	}{
		{"accept and approve", mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": true}}, true, "/cancelled"},
		{"accept and reject with feedback", mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"approve": false, "feedback": "keep it one more month"}}, false, "/finish"},
		{"decline", mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}, false, "/finish"},
		{"cancel", mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}, false, "/finish"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := &user{answer: tc.answer, asked: make(chan string, 4)}
			c := elicitingClient(t, u, "serve", "--profile", "demo", "--approver", "elicitation")
			s := flowTo(t, c)
			r, after := click(t, c, browsertest.Ref(t, s, "button", "Finish Cancellation"))
			select {
			case q := <-u.asked:
				t.Logf("the client's person is asked:\n%s", q)
				if !strings.Contains(q, `click button "Finish Cancellation"`) || !strings.Contains(q, "Element: button \"Finish Cancellation\"") {
					t.Errorf("the person was asked %q", q)
				}
			default:
				t.Fatal("the client's person was never asked")
			}
			if r.Success != tc.success || !strings.HasSuffix(after.Page.URL, tc.page) {
				t.Fatalf("success %v (%v %q) at %s; want %v at %s", r.Success, r.Error, r.Message, after.Page.URL, tc.success, tc.page)
			}
			if !tc.success && (r.Error == nil || *r.Error != "human_rejected") {
				t.Errorf("error %v, want human_rejected", r.Error)
			}
			content, _ := tc.answer.Content.(map[string]any)
			if fb, _ := content["feedback"].(string); fb != "" && !strings.Contains(r.Message, "User feedback: "+fb) {
				t.Errorf("the feedback is not in the result: %q", r.Message)
			}
		})
	}
}

// TestOpenApprovals: with --open-approvals the console opens in the
// user's browser when an approval waits (here a stand-in xdg-open that
// records its argument).
func TestOpenApprovals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opened := filepath.Join(dir, "opened")
	script := "#!/bin/sh\necho \"$1\" >> " + opened + "\n"
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal(err)
	}
	c, _, stderr := stdioClient(t, []string{"PATH=" + dir + ":" + os.Getenv("PATH")},
		"serve", "--profile", "demo", "--approver", "web", "--open-approvals")
	news := listen(t, c)
	s := flowTo(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := clickAsync(ctx, c, browsertest.Ref(t, s, "button", "Finish Cancellation"))
	_, console := news.next(t, stderr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(opened)
		if bytes.Contains(data, []byte(console)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the console %s was not opened; opener saw %q", console, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-done
}
