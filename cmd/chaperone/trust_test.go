package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
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
	_, text := call(t, c, toolapi.RequestApproval, args)
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
	t.Parallel()
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, host, _ := webhookServe(t, "--profile", "demo", "--audit-dir", auditDir)
	s := flowTo(t, c)

	host.decisions <- map[string]any{"approved": true}
	a := requestApproval(t, c, map[string]any{"action": "go back to the survey", "reason": "to change my answer",
		"ref": browsertest.Ref(t, s, "button", "Go back"), "verb": "click"})
	shown := host.asked(t)
	if !a.Approved || shown.Concrete == nil || shown.Concrete.Name != "Go back" || shown.Concrete.Verb != "click" {
		t.Fatalf("approval of Go back: %+v; the person was shown %+v", a, shown.Concrete)
	}

	// The agent clicks something else: the person is asked, and says no.
	s = getSnapshot(t, c)
	host.decisions <- map[string]any{"approved": false, "feedback": "I approved going back, not finishing"}
	r, after := click(t, c, browsertest.Ref(t, s, "button", "Finish Cancellation"))
	again := host.asked(t)
	if again.Concrete == nil || again.Concrete.Name != "Finish Cancellation" || again.ID == shown.ID {
		t.Errorf("the second question: %+v", again.Concrete)
	}
	if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
		t.Fatalf("the click the person did not approve: success %v error %v %q", r.Success, r.Error, r.Message)
	}
	if !strings.HasSuffix(after.Page.URL, "/finish") {
		t.Fatalf("the rejected click moved the page to %s", after.Page.URL)
	}

	// Approving the very click covers it: asked once, not twice.
	host.decisions <- map[string]any{"approved": true}
	a = requestApproval(t, c, map[string]any{"action": "finish the cancellation", "reason": "the user asked for it",
		"ref": browsertest.Ref(t, after, "button", "Finish Cancellation")})
	covering := host.asked(t)
	if !a.Approved {
		t.Fatalf("approval of the click: %+v", a)
	}
	// The next call is the click itself: any other call, a snapshot too,
	// would use the approval up (issue 22).
	r, after = click(t, c, browsertest.Ref(t, after, "button", "Finish Cancellation"))
	if !r.Success || !strings.HasSuffix(after.Page.URL, "/cancelled") {
		t.Fatalf("the approved click: %v %q at %s", r.Error, r.Message, after.Page.URL)
	}
	host.notAsked(t)

	// The audit log ties the performed click to the approval that covered it.
	var found bool
	deadline := time.Now().Add(10 * time.Second)
	for !found && time.Now().Before(deadline) {
		for _, ev := range auditEvents(t, auditDir) {
			found = found || (ev["tool"] == toolapi.Click && ev["result"] == "ok" && ev["approval_id"] == covering.ID)
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
	t.Parallel()
	t.Run("failure page that says cancelled", func(t *testing.T) {
		t.Parallel()
		c, _, _ := stdioClient(t, nil, "serve", "--profile", demoProfileAt(t, "/variants/not-cancelled"))
		r := complete(t, c, "success")
		t.Logf("complete_task(success): %+v", r)
		if r.Acknowledged || !strings.Contains(r.Message, "failure indicator") || !strings.Contains(r.Message, "could not") {
			t.Errorf("success on the failure page: %+v; want refused, naming the failure indicator", r)
		}
	})
	t.Run("success below the fold", func(t *testing.T) {
		t.Parallel()
		c, _, _ := stdioClient(t, nil, "serve", "--profile", demoProfileAt(t, "/variants/cancelled-below"))
		if r := complete(t, c, "success"); !r.Acknowledged {
			t.Errorf("success below the fold refused: %+v", r)
		}
	})
	t.Run("another origin", func(t *testing.T) {
		t.Parallel()
		other := httptest.NewServer(fixtures.Site())
		defer other.Close()
		// The profile's allowed_origins are also the browse policy:
		// browsing there takes the flag, while the verdict keeps to
		// the profile's origins.
		c, _, _ := stdioClient(t, nil, "serve", "--profile", "demo", "--url", other.URL+"/cancelled", "--allowed-origins-browse", other.URL)
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
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	checkout := site.URL + "/variants/checkout"

	t.Run("default policy", func(t *testing.T) {
		t.Parallel()
		c, host, _ := webhookServe(t, "--url", checkout)
		s := wholePage(t, c)
		host.decisions <- map[string]any{"approved": false, "feedback": "not this order"}
		r, after := click(t, c, browsertest.Ref(t, s, "button", "Place order"))
		p := host.asked(t)
		if p.Concrete == nil || p.Concrete.Name != "Place order — $129" || !strings.Contains(p.Reason, "default") {
			t.Errorf("the person was shown %+v, reason %q", p.Concrete, p.Reason)
		}
		if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) || !strings.Contains(r.Message, "not this order") {
			t.Fatalf("rejected order: success %v error %v %q", r.Success, r.Error, r.Message)
		}
		if after.Page.URL != checkout {
			t.Fatalf("the rejected order moved the page to %s", after.Page.URL)
		}
	})
	t.Run("profile none", func(t *testing.T) {
		t.Parallel()
		c, _, stderr := stdioClient(t, nil, "serve", "--profile", "none", "--url", checkout)
		s := wholePage(t, c)
		r, after := click(t, c, browsertest.Ref(t, s, "button", "Place order"))
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
	_, text := call(t, c, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
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

// hostilePage is a shop page whose title and heading carry what a page may
// send to repaint a person's terminal or reorder what they read: an ANSI
// clear-screen and a right-to-left override.
//
// Chromium drops control characters from a title, but not from an
// element's name.
const hostilePage = "<!doctype html><title>\x1b[2J\u202eInvoice</title><h1>Pay</h1>" +
	"<button id=buy onclick=\"document.title='Bought'\">Buy now</button>" +
	`<script>document.getElementById("buy").textContent = "Buy now \u001b[2J\u202e"</script>`

// readsRaw reports whether s shows a person hostile text unescaped.
func readsRaw(s string) bool { return strings.ContainsAny(s, "\x1b\u202e") }

// consoleHTML fetches the approval console's page.
func consoleHTML(t *testing.T, console string) string {
	t.Helper()
	resp, err := http.Get(console)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestHostileTextReachesNoPersonRaw: a page title and the agent's words
// that carry an ANSI escape and a U+202E reach the person escaped, in the
// web console and in the lines the command prints on stderr.
func TestHostileTextReachesNoPersonRaw(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, hostilePage)
	}))
	defer site.Close()
	c, _, stderr := stdioClient(t, nil, "serve", "--url", site.URL+"/", "--approver", "web")
	// The session's console is named on stderr once it first needs a person.
	consoleRE := regexp.MustCompile(`Approval console: (\S+)`)
	console := ""
	waitPending := func() string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			if m := consoleRE.FindStringSubmatch(stderr.String()); console == "" && m != nil {
				console = m[1]
			}
			if console != "" {
				if p := pending(t, console); len(p) == 1 {
					return p[0].ID
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("nothing waits in the console")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	decide := func(id string, approved bool) {
		t.Helper()
		body := `{"approved":false}`
		if approved {
			body = `{"approved":true}`
		}
		resp, err := http.Post(console+"api/approvals/"+id, "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("decide: %v %v", resp, err)
		}
		resp.Body.Close()
	}

	// The page's title, in a checkpoint request for "Buy now".
	s := getSnapshot(t, c)
	done := clickAsync(context.Background(), c, browsertest.Ref(t, s, "button", "Buy now"))
	id := waitPending()
	page := consoleHTML(t, console)
	if readsRaw(page) || !strings.Contains(page, `\u202eInvoice`) || !strings.Contains(page, `Buy now \x1b[2J\u202e`) {
		t.Errorf("the console shows the title or the button's name raw, or not at all:\n%s", page)
	}
	decide(id, true)
	if r := <-done; !r.Success {
		t.Fatalf("the approved click: %v %q", r.Error, r.Message)
	}

	// The agent's words, in its own request.
	asked := make(chan approval, 1)
	go func() {
		asked <- requestApproval(t, c, map[string]any{"action": "pay \x1b[2J now \u202e", "reason": "the page said \x1b]0;owned\x07"})
	}()
	id = waitPending()
	page = consoleHTML(t, console)
	if readsRaw(page) || strings.Contains(page, "\x07") || !strings.Contains(page, `pay \x1b[2J now \u202e`) || !strings.Contains(page, "approves nothing by itself") {
		t.Errorf("the console shows the agent's words raw, or not at all:\n%s", page)
	}
	decide(id, false)
	<-asked

	out := stderr.String()
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Approval needed: ") {
			lines = append(lines, l)
		}
	}
	t.Logf("stderr says:\n%s", strings.Join(lines, "\n"))
	if len(lines) != 2 {
		t.Errorf("%d Approval needed lines on stderr, want 2:\n%s", len(lines), out)
	}
	if readsRaw(out) || strings.Contains(out, "\x07") {
		t.Errorf("stderr carries hostile text raw:\n%q", out)
	}
}
