package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// takeoverLiveURL matches the live view's address serve prints on stderr
// when a session opens.
var takeoverLiveURL = regexp.MustCompile(`Live view \(watch the browser, take over, hand back\): (http://127\.0\.0\.1:\d+/([^/\s]+)/live)`)

// takeoverScreenshot is where the test saves the console with the live
// view, for the pull request's description.
const takeoverScreenshot = "/tmp/takeover-console.png"

// takeoverWaitFor polls cond until it holds, failing the test after a
// minute: the machine is shared, so the wait is for a condition, never a
// time.
func takeoverWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// takeoverEval evaluates expr in the person's console tab.
func takeoverEval(t *testing.T, tab *browser.Context, expr string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tab.Evaluate(ctx, expr, out); err != nil {
		t.Fatalf("console: %s: %v", expr, err)
	}
}

// takeoverClickAt clicks the live view's picture where the agent's page has
// the point x, y (its viewport's CSS pixels), with the person's real mouse.
func takeoverClickAt(t *testing.T, tab *browser.Context, x, y float64) {
	t.Helper()
	var at struct{ X, Y float64 }
	takeoverEval(t, tab, `(() => { const r = document.getElementById("screen").getBoundingClientRect();
		const w = document.getElementById("screen").naturalWidth, h = document.getElementById("screen").naturalHeight;
		return {X: r.left + `+jsNum(x)+` * r.width / w, Y: r.top + `+jsNum(y)+` * r.height / h}; })()`, &at)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tab.Click(ctx, at.X, at.Y); err != nil {
		t.Fatalf("click the live view at %v: %v", at, err)
	}
}

func jsNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// takeoverType types text with the person's real keyboard into the
// console tab, where the live view has the focus.
func takeoverType(t *testing.T, tab *browser.Context, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, r := range text {
		k, err := browser.ParseKey(string(r))
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Press(ctx, k); err != nil {
			t.Fatalf("type %q into the live view: %v", r, err)
		}
	}
}

// takeoverSettled waits until the live view has sent every input event
// of the person's, want in all (a click is three, a key two), and fails the
// test if any was refused.
func takeoverSettled(t *testing.T, tab *browser.Context, want int) {
	t.Helper()
	var st struct{ Sent, Done, Refused, State string }
	takeoverWaitFor(t, "the person's input to reach the page", func() bool {
		takeoverEval(t, tab, `({Sent: document.body.dataset.sent || "0", Done: document.body.dataset.done || "0",
			Refused: document.body.dataset.refused || "0", State: document.getElementById("state").textContent})`, &st)
		return st.Sent == st.Done
	})
	if st.Refused != "0" || st.Sent != strconv.Itoa(want) {
		t.Fatalf("the live view sent %s events, want %d; %s refused; it says %q", st.Sent, want, st.Refused, st.State)
	}
}

// takeoverValue is the value the snapshot shows of the element named name.
func takeoverValue(s *snapshot.Snapshot, name string) string {
	for _, e := range s.Elements {
		if e.Name == name && e.Value != nil {
			return *e.Value
		}
	}
	return ""
}

// A person takes the wheel, end to end with a real browser on both sides:
// serve over stdio with the web console; a second Chromium opens the
// session's live view (its address read on serve's stderr, never in an MCP
// message), sees frames arrive, takes over, types a user name into the
// agent's page and a code into its cross-site frame through the picture,
// and hands back with a note. Meanwhile the agent's calls answer at once
// that a person has the browser; afterwards its snapshot shows what the
// person typed and their note, and its earlier refs are dead.
func TestTakeoverPersonTakesTheWheel(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, stderr := stdioClient(t, nil, "serve", "--url", site.URL+"/hostile/takeover-login",
		"--approver", "web", "--open-approvals=false")
	defer c.Close()

	var live, capability string
	takeoverWaitFor(t, "the live view's address on stderr", func() bool {
		m := takeoverLiveURL.FindStringSubmatch(stderr.String())
		if m != nil {
			live, capability = m[1], m[2]
		}
		return m != nil
	})
	before := getSnapshot(t, c)
	var userRef string
	for _, e := range before.Elements {
		if e.Name == "User name" {
			userRef = e.Ref
		}
	}
	if userRef == "" {
		t.Fatalf("no user name field in the agent's snapshot:\n%s", before.Render())
	}

	// The person's own browser, not the agent's.
	person := browsertest.TabOf(t, browsertest.NewBrowser(t, browser.Options{}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := person.Navigate(ctx, live); err != nil {
		t.Fatalf("open the live view: %v", err)
	}
	frames := func() int {
		var n int
		takeoverEval(t, person, `Number(document.getElementById("screen").dataset.frames)`, &n)
		return n
	}
	takeoverWaitFor(t, "a frame of the agent's page in the live view", func() bool { return frames() > 0 })
	var src string
	takeoverEval(t, person, `document.getElementById("screen").src.slice(0, 23)`, &src)
	if src != "data:image/jpeg;base64," {
		t.Fatalf("the live view shows %q, want a JPEG frame", src)
	}

	takeoverEval(t, person, `document.getElementById("take").click(), true`, nil)
	takeoverWaitFor(t, "the console to say the person has the browser", func() bool {
		var taken bool
		takeoverEval(t, person, `document.body.classList.contains("taken")`, &taken)
		return taken
	})

	// The agent, meanwhile, is told at once; nothing it asks runs. A failed
	// get_snapshot is an error result, as any is (its output is a
	// snapshot): its text says why.
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.GetSnapshot
	if res, err := c.CallTool(ctx, req); err != nil {
		t.Fatalf("get_snapshot during the takeover: %v", err)
	} else if text := textOf(t, res); !strings.Contains(text, "error: action_failed\nA person has the browser") {
		t.Errorf("get_snapshot during the takeover: %s", text)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{toolapi.Fill, map[string]any{"ref": userRef, "value": "mallory"}},
		{toolapi.Navigate, map[string]any{"url": site.URL + "/account"}},
	} {
		// The answer shows nothing of the page the person acts on: no
		// screenshot, no URL, no text.
		res, text := call(t, c, tc.tool, tc.args)
		var r actionResult
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			t.Fatal(err)
		}
		validateSnapshot(t, r.Snapshot)
		if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "A person has the browser") {
			t.Errorf("%s during the takeover: success %v, error %v, %q; want action_failed, a person has the browser", tc.tool, r.Success, r.Error, r.Message)
		}
		for _, b := range res.Content {
			if _, ok := b.(mcp.ImageContent); ok {
				t.Errorf("%s during the takeover carries a screenshot of the person's page", tc.tool)
			}
		}
		var s snapshot.Snapshot
		if err := json.Unmarshal(r.Snapshot, &s); err != nil {
			t.Fatal(err)
		}
		if s.Page.URL != "" || s.Text != "" || len(s.Elements) > 0 {
			t.Errorf("%s during the takeover shows the person's page: %q %q, %d elements", tc.tool, s.Page.URL, s.Text, len(s.Elements))
		}
	}

	// The person clicks the user name field on the picture and types; then
	// the code field, inside the cross-site frame.
	// A person whose first click does not take clicks again: the first
	// input a fresh page gets can be lost while it draws under a loaded
	// machine (it was, once in four CI runs), so the field is clicked twice.
	takeoverClickAt(t, person, 240, 140)
	takeoverSettled(t, person, 3)
	takeoverClickAt(t, person, 240, 140)
	takeoverType(t, person, "ada")
	takeoverSettled(t, person, 12)
	takeoverClickAt(t, person, 210, 260)
	takeoverType(t, person, "424242")
	takeoverSettled(t, person, 27)
	// The picture follows what the person typed: the frames keep coming.
	seen := frames()
	takeoverClickAt(t, person, 240, 140)
	takeoverWaitFor(t, "a new frame after the person's input", func() bool { return frames() > seen })

	takeoverEval(t, person, `document.getElementById("note").value = "Signed in and entered the code for you", window.scrollTo(0, 0), true`, nil)
	takeoverWaitFor(t, "the newest frame drawn", func() bool {
		var done bool
		takeoverEval(t, person, `document.getElementById("screen").complete`, &done)
		return done
	})
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	shot, err := person.Screenshot(ctx2, browser.CaptureOptions{Format: "png"})
	if err != nil {
		t.Fatalf("screenshot of the console: %v", err)
	}
	if err := os.WriteFile(takeoverScreenshot, shot.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the console with the live view: %s", takeoverScreenshot)

	takeoverEval(t, person, `document.getElementById("handback").click(), true`, nil)
	takeoverWaitFor(t, "the console to say the agent has the browser again", func() bool {
		var taken bool
		takeoverEval(t, person, `document.body.classList.contains("taken")`, &taken)
		return !taken
	})

	// The agent's old ref is dead, and the answer says why.
	r, s := act(t, c, toolapi.Fill, map[string]any{"ref": userRef, "value": "mallory"})
	if r.Success || r.Error == nil || *r.Error != string(toolapi.RefInvalid) {
		t.Errorf("an old ref after the hand-back: success %v, error %v, %q; want ref_invalid", r.Success, r.Error, r.Message)
	}
	note := strings.Join(s.Notes, "\n")
	for _, want := range []string{"A person took the browser and handed it back: Signed in and entered the code for you.",
		`The page is now "Sign in - Takeover Bank"`, "earlier refs are invalid"} {
		if !strings.Contains(note, want) {
			t.Errorf("the first snapshot after the hand-back does not say %q:\n%s", want, note)
		}
	}
	if got := takeoverValue(s, "User name"); got != "ada" {
		t.Errorf("the user name field holds %q, want what the person typed, ada", got)
	}
	if got := takeoverValue(s, "Security code"); got != "424242" {
		t.Errorf("the code field of the cross-site frame holds %q, want what the person typed, 424242", got)
	}
	// The note is said once.
	if after := getSnapshot(t, c); strings.Contains(strings.Join(after.Notes, "\n"), "A person took the browser") {
		t.Errorf("the hand-back note is repeated: %q", after.Notes)
	}
	// The capability never reaches the agent.
	if strings.Contains(string(mustJSON(t, s)), capability) {
		t.Error("the live view's capability reached the agent")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The live view keeps the console's protections: another site cannot take
// the browser or send it input, a wrong capability sees nothing, input
// without a takeover and malformed input are refused with the session
// left usable, and the agent's browser cannot open the live view.
func TestTakeoverLiveViewRefusesStrangers(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, stderr := stdioClient(t, nil, "serve", "--url", site.URL+"/hostile/takeover-login",
		"--approver", "web", "--open-approvals=false")
	defer c.Close()
	var live string
	takeoverWaitFor(t, "the live view's address on stderr", func() bool {
		m := takeoverLiveURL.FindStringSubmatch(stderr.String())
		if m != nil {
			live = m[1]
		}
		return m != nil
	})
	base := strings.TrimSuffix(live, "live")
	wrong := regexp.MustCompile(`/[^/]+/live$`).ReplaceAllString(live, "/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/live")
	post := func(url, body string, hdr map[string]string) int {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	evil := map[string]string{"Origin": site.URL, "Sec-Fetch-Site": "cross-site"}
	click := `{"type":"mousePressed","x":240,"y":140,"button":"left","clickCount":1}`
	for _, tc := range []struct {
		name, url, body string
		hdr             map[string]string
		want            int
	}{
		{"another site takes over", base + "live/take", `{}`, evil, http.StatusForbidden},
		{"another site sends input", base + "live/input", click, evil, http.StatusForbidden},
		{"a wrong capability", wrong + "/take", `{}`, nil, http.StatusNotFound},
		{"input before a takeover", base + "live/input", click, nil, http.StatusConflict},
		{"an unknown event", base + "live/input", `{"type":"dispatchEvil","x":1,"y":1}`, nil, http.StatusBadRequest},
		{"a coordinate out of range", base + "live/input", `{"type":"mouseMoved","x":-5,"y":1e12}`, nil, http.StatusBadRequest},
		{"an unknown field", base + "live/input", `{"type":"keyDown","key":"a","expression":"alert(1)"}`, nil, http.StatusBadRequest},
		{"a form, not JSON", base + "live/take", `{}`, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
	} {
		if got := post(tc.url, tc.body, tc.hdr); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	// None of it took the browser from the agent.
	s := getSnapshot(t, c)
	if strings.Contains(strings.Join(s.Notes, "\n"), "A person") {
		t.Errorf("a stranger's request reached the session: %q", s.Notes)
	}
	// The agent's browser never opens the console.
	r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": live})
	if r.Success {
		t.Errorf("the agent's browser opened the live view: %q", r.Message)
	}
}

// takeoverServe starts serve over stdio with the web console at the
// takeover fixture, and returns the client and the session's live view
// address, read on stderr.
func takeoverServe(t *testing.T) (*client.Client, string) {
	t.Helper()
	return takeoverServeAt(t, "/hostile/takeover-login")
}

// takeoverServeAt is takeoverServe at another page of the fixture site,
// with more of serve's flags.
func takeoverServeAt(t *testing.T, path string, args ...string) (*client.Client, string) {
	t.Helper()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	c, _, stderr := stdioClient(t, nil, append([]string{"serve", "--url", site.URL + path,
		"--approver", "web", "--open-approvals=false"}, args...)...)
	t.Cleanup(func() { c.Close() })
	var live string
	takeoverWaitFor(t, "the live view's address on stderr", func() bool {
		m := takeoverLiveURL.FindStringSubmatch(stderr.String())
		if m != nil {
			live = m[1]
		}
		return m != nil
	})
	return c, live
}

// takeoverPerson opens the live view in a Chromium of the person's own,
// once a frame of the agent's page shows.
func takeoverPerson(t *testing.T, live string) *browser.Context {
	t.Helper()
	person := browsertest.TabOf(t, browsertest.NewBrowser(t, browser.Options{}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := person.Navigate(ctx, live); err != nil {
		t.Fatalf("open the live view: %v", err)
	}
	takeoverWaitFor(t, "a frame of the agent's page in the live view", func() bool {
		var n int
		takeoverEval(t, person, `Number(document.getElementById("screen").dataset.frames)`, &n)
		return n > 0
	})
	return person
}

// takeoverSetTaken clicks Take over or Hand back and waits for the console
// to show it.
func takeoverSetTaken(t *testing.T, person *browser.Context, take bool) {
	t.Helper()
	button := "handback"
	if take {
		button = "take"
	}
	takeoverEval(t, person, `document.getElementById("`+button+`").click(), true`, nil)
	takeoverWaitFor(t, "the console to show who has the browser", func() bool {
		var taken bool
		takeoverEval(t, person, `document.body.classList.contains("taken")`, &taken)
		return taken == take
	})
}

// The agent asks for a person (a login) through request_human_approval in
// its own words; the person takes over from the live view, signs in, and
// hands back with a note: the hand-back is the answer the agent's call
// gets, and the next snapshot shows what the person typed.
func TestTakeoverAgentAsksForIt(t *testing.T) {
	t.Parallel()
	c, live := takeoverServe(t)
	getSnapshot(t, c)
	answer := make(chan *mcp.CallToolResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name = toolapi.RequestApproval
		req.Params.Arguments = map[string]any{"action": "Sign in for me", "reason": "The site asks for a login and a code I do not have"}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			res = mcp.NewToolResultError(err.Error())
		}
		answer <- res
	}()
	person := takeoverPerson(t, live)
	takeoverSetTaken(t, person, true)
	takeoverClickAt(t, person, 240, 140)
	takeoverType(t, person, "ada")
	takeoverSettled(t, person, 9)
	takeoverEval(t, person, `document.getElementById("note").value = "Signed in", true`, nil)
	takeoverSetTaken(t, person, false)
	var res *mcp.CallToolResult
	select {
	case res = <-answer:
	case <-time.After(2 * time.Minute):
		t.Fatal("the agent's request was not answered by the hand-back")
	}
	if res.IsError {
		t.Fatalf("request_human_approval: %v", res.Content)
	}
	var a approval
	if err := json.Unmarshal(mustJSON(t, res.StructuredContent), &a); err != nil {
		t.Fatal(err)
	}
	if !a.Approved || !strings.Contains(a.Message, "A person took the browser and handed it back: Signed in") {
		t.Errorf("the agent's answer: %+v", a)
	}
	s := getSnapshot(t, c)
	if got := takeoverValue(s, "User name"); got != "ada" {
		t.Errorf("the user name field holds %q, want ada", got)
	}
	if !strings.Contains(strings.Join(s.Notes, "\n"), "handed it back: Signed in.") {
		t.Errorf("no hand-back note: %q", s.Notes)
	}
}

// takeoverPassword is what the person types into the page's password field
// in the live view (issue 27's fourth reproduction), and takeoverPIN what
// they type into the two-character PIN field of its cross-site frame.
const (
	takeoverPassword = "Person-Secret-42!"
	takeoverPIN      = "73"
)

// takeoverPasswordForms are, lower-cased, the password as the page echoes
// it (plainly, reversed, base64, spaced out) and pieces of it.
var takeoverPasswordForms = []string{
	"person-secret-42!", "secret-42", "!24-terces-nosrep", "ugvyc29ulvnly3jldc00mie", "p e r s o n - s e c r e t",
}

// takeoverPasswordLeak fails the test for every form of the person's
// password in text, and for their PIN shown as a token, named what.
func takeoverPasswordLeak(t *testing.T, what, text string) {
	t.Helper()
	low := strings.ToLower(text)
	for _, f := range takeoverPasswordForms {
		if i := strings.Index(low, f); i >= 0 {
			t.Errorf("%s shows the person's password as %q: …%s…", what, f, text[max(0, i-80):min(len(text), i+len(f)+40)])
		}
	}
	for _, f := range []string{"PIN " + takeoverPIN, `"value":"` + takeoverPIN + `"`, `value="` + takeoverPIN + `"`, `"` + takeoverPIN + `"`} {
		if i := strings.Index(text, f); i >= 0 {
			t.Errorf("%s shows the person's PIN as %q: …%s…", what, f, text[max(0, i-80):min(len(text), i+len(f)+40)])
		}
	}
}

// takeoverDone waits until the live view has sent every input event of the
// person's, and fails the test if any was refused.
func takeoverDone(t *testing.T, person *browser.Context) {
	t.Helper()
	var st struct{ Sent, Done, Refused, State string }
	takeoverWaitFor(t, "the person's input to reach the page", func() bool {
		takeoverEval(t, person, `({Sent: document.body.dataset.sent || "0", Done: document.body.dataset.done || "0",
			Refused: document.body.dataset.refused || "0", State: document.getElementById("state").textContent})`, &st)
		return st.Sent == st.Done
	})
	if st.Refused != "0" {
		t.Fatalf("the live view had %s events refused; it says %q", st.Refused, st.State)
	}
}

// TestAttackTakeoverPersonPasswordHidden reverses issue 27's fourth
// reproduction through the built binary: a person takes over in the live
// view, types a user name, a password and, in a cross-site frame, a
// two-character PIN; presses the page's "Show password" (the frame turns
// its PIN field into a text field on its own), and hands back. The page
// echoes the password plainly, reversed, in base64, spaced out and in CSS
// content. The agent's snapshot, its results, the audit log and the debug
// log hold neither the password nor the PIN in any of these forms; the
// fields read ********; the user name, never a password, still reads as
// typed.
func TestAttackTakeoverPersonPasswordHidden(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, cmd, stderr := stdioClient(t, nil, "serve", "--url", site.URL+"/hostile/takeover-password",
		"--approver", "web", "--open-approvals=false", "--audit-dir", auditDir, "--log-level", "debug")
	defer c.Close()
	var live string
	takeoverWaitFor(t, "the live view's address on stderr", func() bool {
		m := takeoverLiveURL.FindStringSubmatch(stderr.String())
		if m != nil {
			live = m[1]
		}
		return m != nil
	})
	var seen []string
	secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)

	person := takeoverPerson(t, live)
	takeoverSetTaken(t, person, true)
	// A person whose first click on a fresh page does not take clicks
	// again (TestTakeoverPersonTakesTheWheel).
	takeoverClickAt(t, person, 240, 78)
	takeoverDone(t, person)
	takeoverClickAt(t, person, 240, 78)
	takeoverType(t, person, "ada")
	takeoverClickAt(t, person, 240, 138)
	takeoverType(t, person, takeoverPassword)
	takeoverDone(t, person)
	takeoverClickAt(t, person, 540, 138) // Show password
	takeoverClickAt(t, person, 160, 318) // the frame's PIN
	takeoverType(t, person, takeoverPIN)
	takeoverDone(t, person)
	takeoverEval(t, person, `document.getElementById("note").value = "Signed in", true`, nil)
	takeoverSetTaken(t, person, false)

	_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	if got := takeoverValue(s, "User name"); got != "ada" {
		t.Errorf("the user name field holds %q, want what the person typed, ada", got)
	}
	for _, name := range []string{"Password", "PIN"} {
		if got := takeoverValue(s, name); got != "********" {
			t.Errorf("the %s field, shown as text, holds %q, want ********", name, got)
		}
	}
	// The frame says the PIN once it turned its field to text: wait for
	// its words, masked.
	for i := 0; !strings.Contains(s.Text, "PIN ********"); i++ {
		if i == 50 {
			t.Errorf("the frame's echo of the PIN is not masked:\n%s", s.Text)
			break
		}
		_, s = secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	}
	if !strings.Contains(s.Text, "You typed ********") {
		t.Errorf("the page's echo of the password is not masked:\n%s", s.Text)
	}
	for i, text := range seen {
		takeoverPasswordLeak(t, fmt.Sprintf("result %d", i+1), text)
	}
	c.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit with its client")
	}
	files := 0
	filepath.WalkDir(auditDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		takeoverPasswordLeak(t, path, string(data))
		return nil
	})
	if files == 0 {
		t.Error("no audit log was written")
	}
	takeoverPasswordLeak(t, "stderr (debug)", stderr.String())
}

// takeoverPost posts JSON to the live view's take or handback, as the
// console's own page does, and fails the test unless it answers 200.
func takeoverPost(t *testing.T, live, what, body string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, live+"/"+what, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", what, res.Status)
	}
}

// takeoverRecord is the fixture's own record of the input that reached it.
var takeoverRecord = regexp.MustCompile(`Photo clicks: (\d+) · Orders placed: (\d+) · Keys: (\d+) · Typed: (\d+) · Hovers: (\d+)`)

// callAsync calls a tool in the background; its result arrives on the
// channel.
func callAsync(c *client.Client, name string, args map[string]any) <-chan actionResult {
	done := make(chan actionResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
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

// A person's takeover stops the agent: a call admitted before the person
// took the browser, and waiting for its pace (--max-actions-per-minute) or
// for an approval, must not act once they have it. Before, the call waited
// out its pace and clicked, typed or hovered seconds after the person took
// over, and an approval given in the console during the takeover let the
// click through. The page's own record says what reached it.
func TestAttackTakeoverStopsTheCallInFlight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// paced says the call comes right after an action, so that it
		// waits for the session's pace; otherwise it waits for an
		// approval.
		paced bool
		tool  string
		// role and name are the element the call acts on; args are its
		// other arguments.
		role, elem string
		args       map[string]any
	}{
		{"a click waiting for its pace", true, toolapi.Click, "button", "Next photo", nil},
		{"a key waiting for its pace", true, toolapi.PressKey, "textbox", "Note", map[string]any{"key": "a"}},
		{"typing waiting for its pace", true, toolapi.Fill, "textbox", "Note", map[string]any{"value": "hello"}},
		{"a hover waiting for its pace", true, toolapi.Hover, "button", "Menu", nil},
		{"a click waiting for an approval", false, toolapi.Click, "button", "Place order", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// One action every 15 s: the call after the first waits.
			c, live := takeoverServeAt(t, "/hostile/takeover-pace", "--max-actions-per-minute", "4", "--caps", "hover")
			console := strings.TrimSuffix(live, "live")
			s := getSnapshot(t, c)
			want := []string{"1", "0", "0", "0", "0"}
			if tc.paced {
				r, next := click(t, c, browsertest.Ref(t, s, "button", "Next photo"))
				if !r.Success {
					t.Fatalf("the first click: %v %s", r.Error, r.Message)
				}
				s = next
			} else {
				want[0] = "0"
			}
			args := map[string]any{"ref": browsertest.Ref(t, s, tc.role, tc.elem)}
			for k, v := range tc.args {
				args[k] = v
			}
			done := callAsync(c, tc.tool, args)
			if tc.paced {
				// tools/list needs no session: its answer means the
				// server has read the call sent before it, which now
				// waits for its pace.
				if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
					t.Fatal(err)
				}
			} else {
				takeoverWaitFor(t, "the click to wait for an approval", func() bool { return len(pending(t, console)) == 1 })
			}
			takeoverPost(t, live, "take", `{}`)
			// A person who holds the browser and approves what waits in
			// the console approves it for after the hand-back, never for
			// now.
			for _, p := range pending(t, console) {
				resp, err := http.Post(console+"api/approvals/"+p.ID, "application/json", strings.NewReader(`{"approved":true}`))
				if err == nil {
					resp.Body.Close()
				}
			}
			var r actionResult
			select {
			case r = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the call did not answer")
			}
			// What reached the page while the person had the browser is
			// what the page recorded until now: read it at the hand-back.
			takeoverPost(t, live, "handback", `{"note":""}`)
			after := getSnapshot(t, c)
			m := takeoverRecord.FindStringSubmatch(after.Text)
			if m == nil {
				t.Fatalf("no record on the page:\n%s", after.Text)
			}
			if got := m[1:]; !slices.Equal(got, want) {
				t.Errorf("the page recorded photo clicks, orders, keys, typed, hovers = %v; want %v: the agent acted while a person had the browser", got, want)
			}
			if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "A person has the browser") {
				t.Errorf("the call in flight answered success %v, error %v, %q; want action_failed: a person has the browser", r.Success, r.Error, r.Message)
			}
		})
	}
}

// takeoverPadPIN is the PIN /hostile/takeover-pad's digits make, as a
// whole token.
var takeoverPadPIN = regexp.MustCompile(`(^|[^0-9])7291([^0-9]|$)`)

// TestAttackTakeoverPINPadSent: a person takes over and clicks a PIN pad's
// digits in the live view; the click of the last digit sends the PIN at
// once (on the button's release), in the next page's URL, which echoes it.
// After the hand-back, no result the agent gets shows the PIN.
func TestAttackTakeoverPINPadSent(t *testing.T) {
	t.Parallel()
	c, live := takeoverServeAt(t, "/hostile/takeover-pad")
	var seen []string
	secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
	person := takeoverPerson(t, live)
	takeoverSetTaken(t, person, true)
	// A person whose first click on a fresh page does not take clicks
	// again (TestTakeoverPersonTakesTheWheel).
	takeoverClickAt(t, person, 400, 300)
	takeoverDone(t, person)
	for _, x := range []float64{50, 120, 190, 260} {
		takeoverClickAt(t, person, x, 120)
		takeoverDone(t, person)
	}
	takeoverSetTaken(t, person, false)
	for i := 0; ; i++ {
		_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
		if strings.Contains(s.Text, "Your PIN is") {
			break
		}
		if i == 50 {
			t.Fatalf("the pad never sent the PIN: %s\n%s", s.Page.URL, s.Text)
		}
	}
	for i, text := range seen {
		if m := takeoverPadPIN.FindStringIndex(text); m != nil {
			t.Errorf("result %d shows the person's PIN: …%s…", i+1, text[max(0, m[0]-80):min(len(text), m[1]+40)])
		}
	}
}

// TestAttackTakeoverAgentPeeks: while a person types their password in the
// live view (the page echoes it), the agent's calls, refused, show nothing
// of the page: not the echo, not the field, not a screenshot; the hand-back
// then hides the password as ever.
func TestAttackTakeoverAgentPeeks(t *testing.T) {
	t.Parallel()
	c, live := takeoverServeAt(t, "/hostile/takeover-password")
	var seen []string
	_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
	user := browsertest.Ref(t, s, "textbox", "User name")
	person := takeoverPerson(t, live)
	takeoverSetTaken(t, person, true)
	takeoverClickAt(t, person, 240, 78)
	takeoverDone(t, person)
	takeoverClickAt(t, person, 240, 138)
	takeoverType(t, person, takeoverPassword)
	takeoverDone(t, person)
	takeoverClickAt(t, person, 540, 138) // Show password
	takeoverDone(t, person)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{toolapi.GetSnapshot, map[string]any{"viewport_only": false}},
		{toolapi.Click, map[string]any{"ref": user}},
		{toolapi.Extract, map[string]any{}},
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tc.tool, tc.args
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := c.CallTool(ctx, req)
		cancel()
		if err != nil {
			t.Fatalf("%s while the person types: %v", tc.tool, err)
		}
		if res.StructuredContent != nil {
			data, _ := json.Marshal(res.StructuredContent)
			seen = append(seen, string(data))
		}
		for _, b := range res.Content {
			switch b := b.(type) {
			case mcp.TextContent:
				seen = append(seen, b.Text)
			case mcp.ImageContent:
				t.Errorf("%s while the person types carries a screenshot of their page", tc.tool)
			}
		}
	}
	for i, text := range seen {
		takeoverPasswordLeak(t, fmt.Sprintf("result %d", i+1), text)
	}
}
