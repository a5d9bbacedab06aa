package main

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/tools"
)

// webhookToken is the token the approval host posts decisions with.
const webhookToken = "approval-token-0123456789"

// webhookServe runs "chaperone serve" on stdio with the webhook approver
// pointed at a fresh approval host, and args after.
func webhookServe(t *testing.T, args ...string) (*client.Client, *approvalHost, *syncBuffer) {
	t.Helper()
	host, hookURL := newApprovalHost(t, webhookToken)
	c, _, stderr := stdioClient(t, []string{"CHAPERONE_WEBHOOK_TOKEN=" + webhookToken},
		append([]string{"serve", "--approver", "webhook", "--webhook-url", hookURL}, args...)...)
	return c, host, stderr
}

// asked waits for the approval host's next request.
func (h *approvalHost) asked(t *testing.T) approver.WebhookPayload {
	t.Helper()
	select {
	case p := <-h.requests:
		t.Logf("the person is asked:\n  %s\n  %s", p.Prompt, strings.Join(p.Lines, "\n  "))
		return p
	case <-time.After(30 * time.Second):
		t.Fatal("nobody was asked")
	}
	return approver.WebhookPayload{}
}

// notAsked fails the test if the approval host received a request.
func (h *approvalHost) notAsked(t *testing.T) {
	t.Helper()
	select {
	case p := <-h.requests:
		t.Fatalf("the person was asked again: %s", p.Prompt)
	default:
	}
}

// approval is request_human_approval's result.
type approval struct {
	Approved bool   `json:"approved"`
	Message  string `json:"message"`
}

func requestApproval(t *testing.T, c *client.Client, args map[string]any) approval {
	t.Helper()
	_, text := call(t, c, tools.RequestApproval, args)
	var a approval
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestApprovalCoversOnlyWhatWasShown reverses the first scenario of issue
// 10: on the demo's last page the person approves "Go back", which the agent
// named; the agent's next call clicks "Finish Cancellation", and the person
// is asked again. An approval of the very click lets that click, and only
// it, through without asking twice, and the audit log says which approval
// covered it.
func TestApprovalCoversOnlyWhatWasShown(t *testing.T) {
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, host, _ := webhookServe(t, "--profile", "demo", "--audit-dir", auditDir)
	s := flowTo(t, c)

	host.decisions <- map[string]any{"approved": true}
	a := requestApproval(t, c, map[string]any{"action": "go back to the survey", "reason": "to change my answer",
		"ref": ref(t, s, "button", "Go back"), "verb": "click"})
	shown := host.asked(t)
	if !a.Approved || shown.Concrete == nil || shown.Concrete.Name != "Go back" || shown.Concrete.Verb != "click" {
		t.Fatalf("approval of Go back: %+v; the person was shown %+v", a, shown.Concrete)
	}

	// The agent clicks something else: the person is asked, and says no.
	s = getSnapshot(t, c)
	host.decisions <- map[string]any{"approved": false, "feedback": "I approved going back, not finishing"}
	r, after := click(t, c, ref(t, s, "button", "Finish Cancellation"))
	again := host.asked(t)
	if again.Concrete == nil || again.Concrete.Name != "Finish Cancellation" || again.ID == shown.ID {
		t.Errorf("the second question: %+v", again.Concrete)
	}
	if r.Success || r.Error == nil || *r.Error != string(tools.HumanRejected) {
		t.Fatalf("the click the person did not approve: success %v error %v %q", r.Success, r.Error, r.Message)
	}
	if !strings.HasSuffix(after.Page.URL, "/finish") {
		t.Fatalf("the rejected click moved the page to %s", after.Page.URL)
	}

	// Approving the very click covers it: asked once, not twice.
	host.decisions <- map[string]any{"approved": true}
	a = requestApproval(t, c, map[string]any{"action": "finish the cancellation", "reason": "the user asked for it",
		"ref": ref(t, after, "button", "Finish Cancellation")})
	covering := host.asked(t)
	if !a.Approved {
		t.Fatalf("approval of the click: %+v", a)
	}
	s = getSnapshot(t, c)
	r, after = click(t, c, ref(t, s, "button", "Finish Cancellation"))
	if !r.Success || !strings.HasSuffix(after.Page.URL, "/cancelled") {
		t.Fatalf("the approved click: %v %q at %s", r.Error, r.Message, after.Page.URL)
	}
	host.notAsked(t)

	// The audit log ties the performed click to the approval that covered it.
	var found bool
	deadline := time.Now().Add(10 * time.Second)
	for !found && time.Now().Before(deadline) {
		for _, ev := range auditEvents(t, auditDir) {
			found = found || (ev["tool"] == tools.Click && ev["result"] == "ok" && ev["approval_id"] == covering.ID)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !found {
		t.Errorf("no tool_call of the performed click names approval %s:\n%v", covering.ID, auditEvents(t, auditDir))
	}
}

// auditEvents reads every event of every audit log in dir.
func auditEvents(t *testing.T, dir string) []map[string]any {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var out []map[string]any
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				out = append(out, ev)
			}
		}
	}
	return out
}

// demoProfileAt writes the demo profile, starting at path on the demo site
// instead, to a file, and returns its name: there is no tool to navigate, so
// a session reaches a variant page by starting there.
func demoProfileAt(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "checkpoint", "profiles", "demo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	p["start_url"] = "demo:" + path
	data, _ = json.Marshal(p)
	file := filepath.Join(t.TempDir(), "demo-at.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestVerdictOnThePage reverses the second scenario of issue 10:
// complete_task(success) is refused on a page that says the membership could
// not be cancelled, even though it says "cancelled"; accepted when the
// success heading is below the fold; and refused on a page of another
// origin that says it all.
func TestVerdictOnThePage(t *testing.T) {
	t.Run("failure page that says cancelled", func(t *testing.T) {
		c, _, _ := stdioClient(t, nil, "serve", "--profile", demoProfileAt(t, "/variants/not-cancelled"))
		r := complete(t, c, "success")
		t.Logf("complete_task(success): %+v", r)
		if r.Acknowledged || !strings.Contains(r.Message, "failure indicator") || !strings.Contains(r.Message, "could not") {
			t.Errorf("success on the failure page: %+v; want refused, naming the failure indicator", r)
		}
	})
	t.Run("success below the fold", func(t *testing.T) {
		c, _, _ := stdioClient(t, nil, "serve", "--profile", demoProfileAt(t, "/variants/cancelled-below"))
		if r := complete(t, c, "success"); !r.Acknowledged {
			t.Errorf("success below the fold refused: %+v", r)
		}
	})
	t.Run("another origin", func(t *testing.T) {
		other := httptest.NewServer(fixtures.Site())
		defer other.Close()
		c, _, _ := stdioClient(t, nil, "serve", "--profile", "demo", "--url", other.URL+"/cancelled")
		s := getSnapshot(t, c)
		if !strings.Contains(strings.ToLower(s.Page.Title), "cancelled") {
			t.Fatalf("the other origin's page is %q", s.Page.Title)
		}
		r := complete(t, c, "success")
		t.Logf("complete_task(success): %+v", r)
		if r.Acknowledged || !strings.Contains(r.Message, other.URL) {
			t.Errorf("success on %s: %+v; want refused, naming the origin", other.URL, r)
		}
	})
}

// TestSafeByDefault reverses the third scenario of issue 10: with no
// --profile, clicking "Place order — $129" waits for a person, and a
// rejection leaves the page where it was; --profile none turns that off and
// says so at start.
func TestSafeByDefault(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	checkout := site.URL + "/variants/checkout"

	t.Run("default policy", func(t *testing.T) {
		c, host, _ := webhookServe(t, "--url", checkout)
		s := wholePage(t, c)
		host.decisions <- map[string]any{"approved": false, "feedback": "not this order"}
		r, after := click(t, c, ref(t, s, "button", "Place order"))
		p := host.asked(t)
		if p.Concrete == nil || p.Concrete.Name != "Place order — $129" || !strings.Contains(p.Reason, "default") {
			t.Errorf("the person was shown %+v, reason %q", p.Concrete, p.Reason)
		}
		if r.Success || r.Error == nil || *r.Error != string(tools.HumanRejected) || !strings.Contains(r.Message, "not this order") {
			t.Fatalf("rejected order: success %v error %v %q", r.Success, r.Error, r.Message)
		}
		if after.Page.URL != checkout {
			t.Fatalf("the rejected order moved the page to %s", after.Page.URL)
		}
	})
	t.Run("profile none", func(t *testing.T) {
		c, _, stderr := stdioClient(t, nil, "serve", "--profile", "none", "--url", checkout)
		s := wholePage(t, c)
		r, after := click(t, c, ref(t, s, "button", "Place order"))
		if !r.Success || !strings.HasSuffix(after.Page.URL, "/variants/order-placed") {
			t.Fatalf("with --profile none: %v %q at %s", r.Error, r.Message, after.Page.URL)
		}
		if !strings.Contains(stderr.String(), checkpointsOff) {
			t.Errorf("stderr does not say checkpoints are off:\n%s", stderr)
		}
	})
}

// wholePage takes a snapshot of the whole page, not the viewport only.
func wholePage(t *testing.T, c *client.Client) *snapshot.Snapshot {
	t.Helper()
	_, text := call(t, c, tools.GetSnapshot, map[string]any{"viewport_only": false})
	validateSnapshot(t, []byte(text))
	var s snapshot.Snapshot
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// snapshotOf decodes an action result's snapshot.
func snapshotOf(t *testing.T, text string) *snapshot.Snapshot {
	t.Helper()
	var r actionResult
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	var s snapshot.Snapshot
	if err := json.Unmarshal(r.Snapshot, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
