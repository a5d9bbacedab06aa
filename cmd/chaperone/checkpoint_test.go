package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// approvalHost is an agent host's approval endpoint: it receives the
// server's webhook requests and answers each with the next decision a test
// queued, posting it back to the request's callback URL with the token.
type approvalHost struct {
	t         *testing.T
	token     string
	requests  chan approver.WebhookPayload
	decisions chan map[string]any
}

func newApprovalHost(t *testing.T, token string) (*approvalHost, string) {
	h := &approvalHost{t: t, token: token, requests: make(chan approver.WebhookPayload, 8), decisions: make(chan map[string]any, 8)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p approver.WebhookPayload
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		h.requests <- p
		go func() {
			d := <-h.decisions
			body, _ := json.Marshal(d)
			req, _ := http.NewRequest(http.MethodPost, p.CallbackURL, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+h.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("post the decision: %v", err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("post the decision: %s", resp.Status)
			}
		}()
	}))
	t.Cleanup(srv.Close)
	return h, srv.URL
}

// flowTo walks the demo flow from the account page to /finish.
func flowTo(t *testing.T, c *client.Client) *snapshot.Snapshot {
	t.Helper()
	s := getSnapshot(t, c)
	for _, step := range []struct{ role, name string }{
		{"button", "Cancel Membership"},
		{"button", "Continue to Cancel"},
		{"button", "Continue"},
	} {
		r, next := click(t, c, browsertest.Ref(t, s, step.role, step.name))
		if !r.Success {
			t.Fatalf("click %s: %v %s", step.name, r.Error, r.Message)
		}
		s = next
	}
	if !strings.HasSuffix(s.Page.URL, "/finish") {
		t.Fatalf("the flow is at %s, want /finish", s.Page.URL)
	}
	return s
}

type completion struct {
	Acknowledged bool   `json:"acknowledged"`
	Message      string `json:"message"`
}

func complete(t *testing.T, c *client.Client, status string) completion {
	t.Helper()
	_, text := call(t, c, toolapi.CompleteTask, map[string]any{"status": status, "reason": "test says " + status})
	var r completion
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCheckpointFlow drives the demo flow through the built server with the
// demo profile and a webhook approver: the checkpoint is evaluated on every
// snapshot, the final click waits for a human, a rejection stops it with the
// human's words, an approval lets it through, and complete_task is judged on
// the page. The audit log holds it all, and no password value.
func TestCheckpointFlow(t *testing.T) {
	t.Parallel()
	const token = "approval-token-0123456789"
	host, hookURL := newApprovalHost(t, token)
	audit := t.TempDir()
	c, _, _ := stdioClient(t, []string{"CHAPERONE_WEBHOOK_TOKEN=" + token},
		"serve", "--profile", "demo", "--approver", "webhook", "--webhook-url", hookURL, "--audit-dir", audit)

	getSnapshot(t, c)
	if r := complete(t, c, "success"); r.Acknowledged {
		t.Fatalf("success acknowledged on the account page: %s", r.Message)
	} else if !strings.Contains(strings.ToLower(r.Message), "cancelled") {
		t.Errorf("the refusal does not say what was expected: %q", r.Message)
	}
	flowTo(t, c)
	_, text := call(t, c, toolapi.GetSnapshot, nil)
	if !strings.Contains(text, "Checkpoint") {
		t.Errorf("the /finish snapshot does not say it is a checkpoint: %s", text)
	}
	if r := complete(t, c, "success"); r.Acknowledged {
		t.Fatalf("success acknowledged on /finish: %s", r.Message)
	}

	// Rejected with feedback: the click does not happen.
	s := getSnapshot(t, c)
	host.decisions <- map[string]any{"approved": false, "feedback": "not yet, ask me tomorrow"}
	r, after := click(t, c, browsertest.Ref(t, s, "button", "Finish Cancellation"))
	req := <-host.requests
	if !strings.Contains(req.Prompt, `The system wants to proceed with: click button "Finish Cancellation". Approve?`) {
		t.Errorf("the human was asked %q", req.Prompt)
	}
	if req.Screenshot == nil || len(req.Screenshot.Data) == 0 || !strings.HasSuffix(req.URL, "/finish") {
		t.Errorf("the request lacks the screenshot or the URL: %s", req.URL)
	}
	if r.Success || r.Error == nil || *r.Error != "human_rejected" || !strings.Contains(r.Message, "User feedback: not yet, ask me tomorrow") {
		t.Fatalf("rejected click: success %v error %v message %q", r.Success, r.Error, r.Message)
	}
	if !strings.HasSuffix(after.Page.URL, "/finish") {
		t.Fatalf("a rejected click moved the page to %s", after.Page.URL)
	}

	// Approved: the flow reaches the cancelled page, and success holds.
	host.decisions <- map[string]any{"approved": true}
	r, after = click(t, c, browsertest.Ref(t, after, "button", "Finish Cancellation"))
	<-host.requests
	if !r.Success || !strings.HasSuffix(after.Page.URL, "/cancelled") {
		t.Fatalf("approved click: %v %s at %s", r.Error, r.Message, after.Page.URL)
	}
	if r := complete(t, c, "success"); !r.Acknowledged {
		t.Fatalf("success not acknowledged on the cancelled page: %s", r.Message)
	}
	if r := complete(t, c, "failed"); !r.Acknowledged {
		t.Fatalf("failed not acknowledged: %s", r.Message)
	}

	// The audit log, written as things happen.
	var logText string
	deadline := time.Now().Add(5 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(audit, "*"))
		var all []string
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err == nil {
				all = append(all, string(data))
			}
		}
		logText = strings.Join(all, "")
		if strings.Count(logText, `"event":"completion"`) >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{`"tool":"` + toolapi.Click + `"`, `"event":"approval"`, `"event":"completion"`, "not yet, ask me tomorrow", `"result":"human_rejected"`} {
		if !strings.Contains(logText, want) {
			t.Errorf("the audit log lacks %s:\n%s", want, logText)
		}
	}
	if strings.Contains(logText, "hunter2") {
		t.Error("the audit log holds a password")
	}
	if n := strings.Count(logText, "\n"); n < 10 {
		t.Errorf("the audit log has %d lines, want every call", n)
	}
}

// TestDryRunNeverPerforms shows that with --dry-run the gated click is
// refused without asking anyone, and the page stays.
func TestDryRunNeverPerforms(t *testing.T) {
	t.Parallel()
	c, _, _ := stdioClient(t, nil, "serve", "--profile", "demo", "--dry-run")
	s := flowTo(t, c)
	r, after := click(t, c, browsertest.Ref(t, s, "button", "Finish Cancellation"))
	if r.Success || r.Error == nil || *r.Error != "human_rejected" || !strings.Contains(strings.ToLower(r.Message), "dry run") {
		t.Fatalf("dry-run click: success %v error %v message %q", r.Success, r.Error, r.Message)
	}
	if !strings.HasSuffix(after.Page.URL, "/finish") {
		t.Fatalf("a dry-run click moved the page to %s", after.Page.URL)
	}
}
