package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// The values of issue 22's fifth reproduction: a --secret and a password
// typed in the open whose characters URL-encode every way (@, a space, /
// and ?, whose hex has letters), sent by a sign-in form with GET, so that
// they land in the next page's URL, which echoes them.
const (
	secretsVar = "PW"
	secretsPW  = "p@ss w0rd/Zq?9"
	secretsPIN = "Pin@ 42/Xy?"
)

// secretsFragments are, lower-cased, pieces of the two values in each form
// an encoder or a page gives them: raw, query- and form-encoded (+ or %20),
// path-encoded, encoded twice, JSON-escaped (\/ and \u0040) and
// HTML-escaped. Any of them in an output is a leak; text is lower-cased
// before the search, so upper- and lower-case hex both count.
var secretsFragments = []string{
	"p@ss w0rd", "w0rd/zq", "p%40ss", "p@ss+w0rd", "p@ss%20w0rd", "w0rd%2fzq", "w0rd%252fzq", "p%2540ss",
	`w0rd\/zq`, `p\u0040ss`, "p&#64;ss", "w0rd&#47;zq", "p&commat;ss",
	"pin@ 42", "42/xy", "pin%40", "pin@+42", "pin@%2042", "42%2fxy", "42%252fxy", `42\/xy`, `pin\u0040`, "pin&#64;", "42&#47;xy",
}

// secretsLeak fails the test for every form of the two values in text,
// named what.
func secretsLeak(t *testing.T, what, text string) {
	t.Helper()
	low := strings.ToLower(text)
	for _, f := range secretsFragments {
		if i := strings.Index(low, f); i >= 0 {
			t.Errorf("%s shows %q: …%s…", what, f, text[max(0, i-100):min(len(text), i+len(f)+60)])
		}
	}
}

// secretsPair is an echo of /hostile/secrets-results and, beside it, the
// same text the page itself draws as discs, in viewport CSS pixels (the
// screenshots of these tests are at scale 1).
type secretsPair struct {
	name             string
	x, y, refY, w, h int
}

var (
	// secretsHeading is the page's "Results for …" line.
	secretsHeading = secretsPair{"the heading", 20, 260, 300, 380, 32}
	// secretsShownPIN is the PIN's row of /hostile/secrets-signin, whose
	// reference holds the PIN in a password field.
	secretsShownPIN = secretsPair{"the PIN shown as text", 20, 200, 240, 380, 28}
	// secretsField is the results page's search field, which holds the password; its
	// reference is a password field holding it too.
	secretsField = secretsPair{"the search field", 20, 70, 110, 300, 28}
	// secretsSplit is its "You searched …" line, the password split
	// across two elements.
	secretsSplit = secretsPair{"the echo split across elements", 20, 150, 190, 380, 32}
	// secretsPINLine is its "PIN …" line.
	secretsPINLine = secretsPair{"the PIN line", 20, 340, 380, 380, 32}
	// secretsFrameLine is the "Welcome …" line of the cross-site frame at
	// 420,60.
	secretsFrameLine = secretsPair{"the cross-site frame's greeting", 430, 80, 130, 340, 32}
)

// secretsMasked fails the test for each pair whose echo the PNG data shows
// otherwise than the page's own discs, or not at all.
func secretsMasked(t *testing.T, what string, data []byte, pairs ...secretsPair) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: the screenshot is not a PNG: %v", what, err)
	}
	grey := func(x, y int) uint32 {
		r, g, b, _ := img.At(img.Bounds().Min.X+x, img.Bounds().Min.Y+y).RGBA()
		return (r + g + b) / 3 >> 8
	}
	for _, p := range pairs {
		differ, ink := 0, 0
		for dy := range p.h {
			for dx := range p.w {
				a, b := grey(p.x+dx, p.y+dy), grey(p.x+dx, p.refY+dy)
				if a != b {
					differ++
				}
				if a < 128 {
					ink++
				}
			}
		}
		switch {
		case ink == 0:
			t.Errorf("%s: nothing is drawn where %s should be", what, p.name)
		case differ > 0:
			t.Errorf("%s: %s shows the password (%d pixels differ from the discs)", what, p.name, differ)
		}
	}
}

// secretsImage returns the PNG of a result's image block.
func secretsImage(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	for _, c := range res.Content {
		if img, ok := c.(mcp.ImageContent); ok {
			return decodeBase64(t, img.Data)
		}
	}
	t.Fatal("the result has no screenshot")
	return nil
}

func decodeBase64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("the screenshot is not base64: %v", err)
	}
	return b
}

// secretsCall calls a tool, adds its text and structured content to seen,
// and returns the result and its snapshot (nil for a result without one).
func secretsCall(t *testing.T, c *client.Client, seen *[]string, name string, args map[string]any) (*mcp.CallToolResult, *snapshot.Snapshot) {
	t.Helper()
	res, data := call(t, c, name, args)
	for _, b := range res.Content {
		if tc, ok := b.(mcp.TextContent); ok {
			*seen = append(*seen, tc.Text)
		}
	}
	*seen = append(*seen, data)
	var r struct {
		Success  *bool              `json:"success"`
		Snapshot *snapshot.Snapshot `json:"snapshot"`
		Message  string             `json:"message"`
	}
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		t.Fatal(err)
	}
	if r.Success != nil && !*r.Success {
		t.Fatalf("%s %v failed: %s", name, args, r.Message)
	}
	if name == toolapi.GetSnapshot {
		var s snapshot.Snapshot
		if err := json.Unmarshal([]byte(data), &s); err != nil {
			t.Fatal(err)
		}
		return res, &s
	}
	return res, r.Snapshot
}

// TestAttackSecretsEncodedServe reverses issue 22's fifth reproduction
// through the built binary over stdio: a --secret and a password typed in
// the open, sent by a GET form into the next page's URL and echoed by that
// page (title, text, a field, an element id, its own URL) and by a
// cross-site frame in it, show in no form in any result's text or
// structured content, the approval request sent to a person, the audit log
// or the debug log; and every screenshot (the agent's, the person's) draws
// the echoes as discs.
func TestAttackSecretsEncodedServe(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	auditDir := filepath.Join(t.TempDir(), "audit")
	host, hookURL := newApprovalHost(t, webhookToken)
	c, cmd, stderr := stdioClient(t, []string{"CHAPERONE_WEBHOOK_TOKEN=" + webhookToken, secretsVar + "=" + secretsPW},
		"serve", "--url", site.URL+"/hostile/secrets-signin", "--secret", secretsVar, "--audit-dir", auditDir,
		"--log-level", "debug", "--viewport", "800x500", "--screenshot-tokens", "1000", "--screenshots", "always",
		"--approver", "webhook", "--webhook-url", hookURL)

	var seen []string
	_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
	for _, f := range []struct{ label, value string }{
		{"Username", "alice"}, {"Password", "{{" + secretsVar + "}}"}, {"PIN", secretsPIN},
	} {
		_, s = secretsCall(t, c, &seen, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", f.label), "value": f.value})
	}
	// "Show PIN" makes the password field a text field: the snapshot
	// reads its value, and the screenshot would draw it.
	res, s := secretsCall(t, c, &seen, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "checkbox", "Show PIN")})
	pinShown := false
	for _, e := range s.Elements {
		if e.Name == "PIN" && e.Value != nil {
			pinShown = *e.Value == "********"
		}
	}
	if !pinShown {
		t.Errorf("the PIN field shown as text does not read ********:\n%s", s.Render())
	}
	secretsMasked(t, "the screenshot of the PIN shown", secretsImage(t, res), secretsShownPIN)
	res, s = secretsCall(t, c, &seen, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Sign in")})
	// The form went, with both values in the query: the page URL shows
	// where they were, as their stand-ins.
	if u := s.Page.URL; !strings.Contains(u, "/hostile/secrets-results?") || !strings.Contains(u, "pw={{"+secretsVar+"}}") || !strings.Contains(u, "pin=********") {
		t.Errorf("the results page's URL is %q, want the secret and the PIN in its query as their stand-ins", u)
	}
	if want := "Results for {{" + secretsVar + "}}"; s.Page.Title != want {
		t.Errorf("title %q, want %q", s.Page.Title, want)
	}
	secretsMasked(t, "the click's screenshot", secretsImage(t, res), secretsHeading, secretsField, secretsSplit, secretsPINLine)

	// The cross-site frame loads after the page: look until it greets.
	for i := 0; ; i++ {
		_, s = secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
		if strings.Contains(s.Text, "Welcome") {
			break
		}
		if i == 50 {
			t.Fatalf("the frame never greeted:\n%s", s.Text)
		}
	}
	// Once it greets, a screenshot shows it whole: this one was taken
	// before the page was read.
	res, s = secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	if !strings.Contains(s.Text, "Welcome {{"+secretsVar+"}}") {
		t.Errorf("the frame's greeting is not shown with the placeholder:\n%s", s.Text)
	}
	secretsMasked(t, "get_snapshot's screenshot", secretsImage(t, res), secretsHeading, secretsField, secretsSplit, secretsPINLine, secretsFrameLine)

	// A person asked about a button whose id echoes the secret sees it in
	// no form, in words or in the screenshot.
	again := ""
	for _, e := range s.Elements {
		if e.Role == "button" && e.Name == "Search again" {
			again = e.Ref
			if !strings.Contains(e.DOMID, "{{"+secretsVar+"}}") {
				t.Errorf("the button's id is %q, want the placeholder in it", e.DOMID)
			}
		}
	}
	if again == "" {
		t.Fatal("no Search again button")
	}
	host.decisions <- map[string]any{"approved": false}
	secretsCall(t, c, &seen, toolapi.RequestApproval, map[string]any{"ref": again, "verb": "click",
		"action": "search again", "reason": "to see more results"})
	p := host.asked(t)
	if p.Screenshot == nil {
		t.Error("the person is shown no screenshot")
	} else {
		secretsMasked(t, "the person's screenshot", p.Screenshot.Data, secretsHeading, secretsField, secretsSplit, secretsPINLine, secretsFrameLine)
		p.Screenshot = nil
	}
	payload, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	secretsLeak(t, "the approval request", string(payload))
	for i, text := range seen {
		secretsLeak(t, fmt.Sprintf("result %d", i+1), text)
	}

	c.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit with its client")
	}
	if n := secretsFiles(t, auditDir, nil); n == 0 {
		t.Fatal("no audit log was written")
	}
	secretsLeak(t, "stderr (debug)", stderr.String())
}

// secretsFiles scans every file under dir for the values and returns how
// many it read; each PNG is handed to png instead, by name.
func secretsFiles(t *testing.T, dir string, png func(name string, data []byte)) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if strings.HasSuffix(path, ".png") || strings.HasSuffix(path, ".jpg") {
			if png != nil {
				png(filepath.Base(path), data)
			}
			return nil
		}
		secretsLeak(t, path, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAttackSecretsEncodedRun is the same attack on `chaperone run`'s code
// path, with a scripted agent that signs in: the run record (session.jsonl, report.html,
// script.json, the audit log), stdout and stderr hold neither value in any
// form, and the record's screenshots of the results page draw the echoes
// as discs.
func TestAttackSecretsEncodedRun(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	e, stdout, stderr := driverEnv(map[string]string{secretsVar: secretsPW})
	fset := flag.NewFlagSet("test", flag.ContinueOnError)
	cf := addCommonFlags(fset, "debug")
	if err := fset.Parse([]string{"--viewport", "800x500", "--screenshot-tokens", "1000", "--screenshots", "always", "--cdp-endpoint", lentEndpoint(t), "--action-timeout", "20s"}); err != nil {
		t.Fatal(err)
	}
	st, err := cf.setup(e.stderr)
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := secretValues([]string{secretsVar}, e.getenv)
	if err != nil {
		t.Fatal(err)
	}
	// A profile under which signing in succeeds, so that the run ends in
	// success and writes its replay script too.
	profile := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(profile, fmt.Appendf(nil, `{"name": "secrets", "start_url": %q, "allowed_origins": [%q],
		"success_indicators": [{"text_contains": "Results for"}]}`, site.URL+"/hostile/secrets-signin", site.URL), 0o600); err != nil {
		t.Fatal(err)
	}
	profs, err := loadProfiles(profile, e.stderr)
	if err != nil {
		t.Fatal(err)
	}
	model := &driver.ScriptedModel{Steps: []driver.Step{
		driver.ActOn(toolapi.Fill, "textbox", "Username", map[string]any{"value": "alice"}),
		driver.ActOn(toolapi.Fill, "textbox", "Password", map[string]any{"value": "{{" + secretsVar + "}}"}),
		driver.ActOn(toolapi.Fill, "textbox", "PIN", map[string]any{"value": secretsPIN}),
		driver.ActOn(toolapi.Click, "checkbox", "Show PIN", nil),
		driver.ActOn(toolapi.Click, "button", "Sign in", nil),
		driver.Call(toolapi.GetSnapshot, map[string]any{"viewport_only": false}),
		driver.Call(toolapi.CompleteTask, map[string]string{"status": "success", "reason": "signed in"}),
	}}
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := drive(ctx, e, task{
		setup: st, goal: "Sign in", profiles: profs, secrets: secrets, startURL: site.URL + "/hostile/secrets-signin",
		model: model, modelName: scriptedAgentName, outDir: dir,
		approver: &checkpointtest.Person{Answer: checkpoint.Decision{Approved: true, Channel: "test"}},
	})
	if err != nil || !res.Success {
		t.Fatalf("run: %+v %v\nstderr:\n%s", res, err, stderr)
	}

	// The turns on the results page, by screenshot file.
	onResults := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(dir, driver.SessionLogName))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var rec driver.TurnRecord
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Type == "turn" && strings.Contains(rec.URL, "/hostile/secrets-results") && rec.Screenshot != "" {
			onResults[rec.Screenshot] = true
			if !strings.Contains(rec.URL, "pw={{"+secretsVar+"}}") {
				t.Errorf("turn %d's URL is %q, want the secret's placeholder in it", rec.Turn, rec.URL)
			}
		}
	}
	if len(onResults) == 0 {
		t.Fatalf("no turn on the results page with a screenshot:\n%s", data)
	}
	shots := 0
	n := secretsFiles(t, dir, func(name string, data []byte) {
		if onResults[name] {
			shots++
			secretsMasked(t, name, data, secretsHeading, secretsField, secretsSplit, secretsPINLine)
		}
	})
	if n < 4 || shots != len(onResults) {
		t.Errorf("%d files in the run record, %d screenshots of the results page; want the session log, the report, the script, the audit log and the screenshots", n, shots)
	}
	for _, name := range []string{driver.SessionLogName, driver.ReportName, driver.ScriptName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the run record has no %s: %v", name, err)
		}
	}
	secretsLeak(t, "stdout", stdout.String())
	secretsLeak(t, "stderr (debug)", stderr.String())
}

// The values of issue 27's eighth reproduction: a --secret the page echoes
// where a search for it as typed does not find it (CSS content, a canvas,
// text it transformed), and a two-character PIN typed into a password
// field, which the page echoes as it is.
const (
	echoVar    = "VAULT"
	echoSecret = "Zq7-Quokka-88"
	echoPIN    = "42"
)

// echoForms are the transforms of the secret /hostile/secrets-echoes
// shows, each of which is a leak.
func echoForms() map[string]string {
	b := []byte(echoSecret)
	rev := []rune(echoSecret)
	slices.Reverse(rev)
	spread := func(s, sep string) string { return strings.Join(strings.Split(s, ""), sep) }
	wide := strings.Map(func(r rune) rune {
		if '!' <= r && r <= '~' {
			return r + 0xFEE0
		}
		return r
	}, echoSecret)
	return map[string]string{
		"raw":                   echoSecret,
		"base64":                base64.StdEncoding.EncodeToString(b),
		"base64url":             base64.RawURLEncoding.EncodeToString(b),
		"inside base64":         base64.StdEncoding.EncodeToString([]byte("token=" + echoSecret + ";exp=1")),
		"hex":                   strings.ToUpper(hex.EncodeToString(b)),
		"reversed":              string(rev),
		"spaced":                spread(echoSecret, " "),
		"dashed":                spread(echoSecret, "-"),
		"zero-width joined":     spread(echoSecret, "\u200d"),
		"soft hyphens":          spread(echoSecret, "\u00ad"),
		"full width":            wide,
		"a piece":               "quokka",
		"a reversed piece":      "akkouq",
		"base64 of reversed":    base64.StdEncoding.EncodeToString([]byte(string(rev))),
		"rot13":                 "Md7-Dhbxxn-88",
		"base64 of URL-encoded": base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(echoSecret))),
		"a list":                `["Z","q","7","-","Q","u","o","k","k","a","-","8","8"]`,
		"far apart":             spread(echoSecret, "    "),
		"slashed":               spread(echoSecret, "/"),
		"accented":              strings.Join(strings.Split(echoSecret, ""), "\u0301") + "\u0301",
		"look-alike letters":    "Zq7-Qu\u043ekk\u0430-88",
	}
}

// echoLeak fails the test for every transform of the secret in text, and
// for the PIN shown, named what.
func echoLeak(t *testing.T, what, text string) {
	t.Helper()
	low := strings.ToLower(text)
	for name, f := range echoForms() {
		if i := strings.Index(low, strings.ToLower(f)); i >= 0 {
			t.Errorf("%s shows the secret %s: …%s…", what, name, text[max(0, i-60):min(len(text), i+len(f)+40)])
		}
	}
	if strings.Contains(text, "PIN "+echoPIN) {
		t.Errorf("%s shows the PIN: %q", what, "PIN "+echoPIN)
	}
}

// Where /hostile/secrets-echoes draws, in viewport CSS pixels.
var (
	// echoCSS is a line drawn by ::before { content: attr(data-v) }.
	echoCSS = secretsPair{"the CSS content echo", 20, 60, 100, 380, 32}
	// echoCSSHard is one whose page rules say no discs, on the element
	// and on its ::before.
	echoCSSHard = secretsPair{"the CSS content echo the page keeps from discs", 20, 140, 180, 380, 32}
)

// echoCanvasInk counts the dark pixels of the page's canvas in a PNG.
func echoCanvasInk(t *testing.T, data []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	ink := 0
	for y := 60; y < 120; y++ {
		for x := 420; x < 780; x++ {
			r, g, b, _ := img.At(img.Bounds().Min.X+x, img.Bounds().Min.Y+y).RGBA()
			if (r+g+b)/3>>8 < 128 {
				ink++
			}
		}
	}
	return ink
}

// echoServe starts serve at /hostile/secrets-echoes (framed: in a
// same-site, cross-origin frame) with the secret, the flags extra, and types the secret and the PIN into the page's password
// fields; it returns what the agent got and the result of a whole-page
// get_snapshot after.
func echoServe(t *testing.T, framed bool, extra ...string) ([]string, *mcp.CallToolResult, *snapshot.Snapshot) {
	t.Helper()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	start := site.URL + "/hostile/secrets-echoes"
	if framed {
		// The page in a frame of another port of the same host: same
		// site, another origin, in the page's own process.
		other := httptest.NewServer(fixtures.Site())
		t.Cleanup(other.Close)
		start = site.URL + "/hostile/secrets-framed?src=" + url.QueryEscape(other.URL+"/hostile/secrets-echoes")
	}
	args := append([]string{"serve", "--url", start, "--secret", echoVar,
		"--viewport", "800x500", "--screenshot-tokens", "1000", "--screenshots", "always"}, extra...)
	c, _, _ := stdioClient(t, []string{echoVar + "=" + echoSecret}, args...)
	t.Cleanup(func() { c.Close() })
	var seen []string
	_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
	_, s = secretsCall(t, c, &seen, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Password"), "value": "{{" + echoVar + "}}"})
	secretsCall(t, c, &seen, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "PIN"), "value": echoPIN})
	// The runs of the page text with their boxes, which a snapshot gives
	// on request, hide it too.
	_, s = secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false, "positions": true})
	if len(s.Positions) == 0 {
		t.Error("get_snapshot with positions gave no text runs")
	}
	res, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	return seen, res, s
}

// TestAttackSecretsTransformedEchoes reverses issue 27's eighth
// reproduction through the built binary: a --secret the page echoes in
// base64 (alone, URL-safe, inside a longer base64 text), upper-case hex,
// reversed (in text and in a button's name), spaced out, dashed, joined by
// zero-width joiners or soft hyphens, and in full width is in no result's
// text or structured content; a two-character PIN typed into a password
// field and echoed is masked, the words around it kept; the agent's
// screenshot draws the secret's CSS content echoes (attr(), one whose page
// rules refuse discs) as discs, and covers the canvas the page drew it on.
func TestAttackSecretsTransformedEchoes(t *testing.T) {
	t.Parallel()
	seen, res, s := echoServe(t, false)
	if !strings.Contains(s.Text, "PIN ******** saved") {
		t.Errorf("the PIN's echo is not masked with the words around it kept:\n%s", s.Text)
	}
	for _, want := range []string{"b64 {{" + echoVar + "}}", "reversed {{" + echoVar + "}}", "wide {{" + echoVar + "}}",
		"rot13 {{" + echoVar + "}}", `list ["{{` + echoVar + `}}"]`, "lookalike {{" + echoVar + "}}"} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("the page text does not read %q:\n%s", want, s.Text)
		}
	}
	for i, text := range seen {
		echoLeak(t, fmt.Sprintf("result %d", i+1), text)
	}
	shot := secretsImage(t, res)
	secretsMasked(t, "get_snapshot's screenshot", shot, echoCSS, echoCSSHard)
	if ink := echoCanvasInk(t, shot); ink != 0 {
		t.Errorf("the canvas that draws the secret shows in the screenshot (%d dark pixels)", ink)
	}
}

// TestAttackSecretsCanvasShownWhenAllowed: --show-canvas-after-secrets
// leaves the canvas in the screenshot (so the check above looks where the
// page draws), and the CSS content echoes are masked all the same.
func TestAttackSecretsCanvasShownWhenAllowed(t *testing.T) {
	t.Parallel()
	_, res, _ := echoServe(t, false, "--show-canvas-after-secrets")
	shot := secretsImage(t, res)
	if ink := echoCanvasInk(t, shot); ink == 0 {
		t.Error("with --show-canvas-after-secrets the canvas is covered")
	}
	secretsMasked(t, "get_snapshot's screenshot", shot, echoCSS, echoCSSHard)
}

// TestAttackSecretsSameSiteFrame is TestAttackSecretsTransformedEchoes in a
// frame from another port of the same host: cross-origin, so the page's
// scripts cannot reach into it, but in the page's own process, where no
// out-of-process frame's session reaches either. Its echoes are masked in
// the screenshot and in every result all the same.
func TestAttackSecretsSameSiteFrame(t *testing.T) {
	t.Parallel()
	seen, res, s := echoServe(t, true)
	if !strings.Contains(s.Text, "PIN ******** saved") {
		t.Errorf("the PIN's echo in the frame is not masked:\n%s", s.Text)
	}
	for i, text := range seen {
		echoLeak(t, fmt.Sprintf("result %d", i+1), text)
	}
	shot := secretsImage(t, res)
	secretsMasked(t, "get_snapshot's screenshot", shot, echoCSS, echoCSSHard)
	if ink := echoCanvasInk(t, shot); ink != 0 {
		t.Errorf("the frame's canvas that draws the secret shows in the screenshot (%d dark pixels)", ink)
	}
}

// TestAttackSecretsPasswordTypedAsKeys: a password the agent types into a
// password field key by key (browser_press_key with a text), not by
// browser_fill, is a password too: after the GET form sends it, the
// results page's URL, title and text, every result, the audit log and the
// debug log hold it in no form, and the audit record of the typing masks
// its text.
func TestAttackSecretsPasswordTypedAsKeys(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, cmd, stderr := stdioClient(t, nil,
		"serve", "--url", site.URL+"/hostile/secrets-signin", "--audit-dir", auditDir,
		"--log-level", "debug", "--viewport", "800x500", "--screenshot-tokens", "1000", "--screenshots", "always")
	var seen []string
	_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
	secretsCall(t, c, &seen, toolapi.PressKey, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Password"), "text": secretsPIN})
	_, s = secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
	_, s = secretsCall(t, c, &seen, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Sign in")})
	if u := s.Page.URL; !strings.Contains(u, "/hostile/secrets-results?") || !strings.Contains(u, "pw=********") {
		t.Errorf("the results page's URL is %q, want the password in its query as its stand-in", u)
	}
	secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	for i, text := range seen {
		secretsLeak(t, fmt.Sprintf("result %d", i+1), text)
	}
	c.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit with its client")
	}
	if n := secretsFiles(t, auditDir, nil); n == 0 {
		t.Fatal("no audit log was written")
	}
	secretsLeak(t, "stderr (debug)", stderr.String())
}

// fightingEchoes is a page that echoes what is typed into its password
// field and fights the screenshot's mask: the echo is split into spans its
// rules draw without discs (inherited discs lose to an element's own rule),
// the canvas it draws the password on keeps its look for 1000 s by a
// transition (which outranks !important), and with ?observer a mutation
// observer undoes every style set on the echo in the microtask after. Its
// echo and the reference drawn as discs sit where echoCSS looks, its canvas
// where echoCanvasInk does.
const fightingEchoes = `<!doctype html><html><head><meta charset="utf-8"><title>Vault</title><style>
body{margin:0;font:16px system-ui,sans-serif;background:#fff}
label{position:absolute;top:10px;left:20px}
.line{position:absolute;left:20px;width:380px;height:32px;margin:0;font:20px/32px monospace;white-space:pre;overflow:hidden;background:#fff;color:#000}
#echo span{-webkit-text-security:none}
#ref,#ref span{-webkit-text-security:disc}
canvas{position:absolute;left:420px;top:60px;transition:visibility 1000s}
</style></head><body>
<label>Password <input id="pw" type="password" autocomplete="off"></label>
<p class="line" id="echo" style="top:60px"></p>
<p class="line" id="ref" style="top:100px" aria-hidden="true"></p>
<canvas id="drawn" width="360" height="60"></canvas>
<script>
const pw = document.getElementById('pw'), echo = document.getElementById('echo');
pw.addEventListener('input', () => {
  const v = pw.value;
  const spans = () => [...v].map(c => Object.assign(document.createElement('span'), {textContent: c}));
  echo.replaceChildren(...spans());
  document.getElementById('ref').replaceChildren(...spans());
  const g = document.getElementById('drawn').getContext('2d');
  g.fillStyle = '#fff'; g.fillRect(0, 0, 360, 60); g.fillStyle = '#000'; g.font = '28px monospace'; g.fillText(v, 4, 40);
});
if (location.search.includes('observer')) {
  new MutationObserver(rs => { for (const r of rs) if (r.target.hasAttribute('style') && r.target.tagName !== 'P') r.target.removeAttribute('style'); })
    .observe(document.body, {attributes: true, subtree: true, attributeFilter: ['style']});
  new MutationObserver(() => { if (echo.getAttribute('style') !== 'top:60px') echo.setAttribute('style', 'top:60px'); })
    .observe(echo, {attributes: true, attributeFilter: ['style']});
}
</script></body></html>`

// TestAttackSecretsMaskFought: a page that fights the mask (fightingEchoes)
// shows a --secret typed into its password field in no screenshot through
// the built binary: its split echo is drawn as discs and its canvas
// hidden, and the page whose observer undoes the mask gets no screenshot,
// only a note saying why.
func TestAttackSecretsMaskFought(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, fightingEchoes)
	}))
	defer site.Close()
	for _, observer := range []bool{false, true} {
		start := site.URL + "/vault"
		if observer {
			start += "?observer"
		}
		c, _, _ := stdioClient(t, []string{echoVar + "=" + echoSecret}, "serve", "--url", start, "--secret", echoVar,
			"--viewport", "800x500", "--screenshot-tokens", "1000", "--screenshots", "always")
		var seen []string
		_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
		secretsCall(t, c, &seen, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Password"), "value": "{{" + echoVar + "}}"})
		res, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
		if observer {
			for _, b := range res.Content {
				if _, ok := b.(mcp.ImageContent); ok {
					t.Error("the page that undoes the mask got a screenshot")
				}
			}
			if !strings.Contains(strings.Join(s.Notes, " "), "undid its masking") {
				t.Errorf("no note says why there is no screenshot: %q", s.Notes)
			}
		} else {
			shot := secretsImage(t, res)
			secretsMasked(t, "get_snapshot's screenshot", shot, echoCSS)
			if ink := echoCanvasInk(t, shot); ink != 0 {
				t.Errorf("the canvas that draws the secret shows in the screenshot (%d dark pixels)", ink)
			}
		}
		for i, text := range seen {
			echoLeak(t, fmt.Sprintf("result %d", i+1), text)
		}
		c.Close()
	}
}

// secretsDownloadPage names its download after what is typed into its
// password field.
const secretsDownloadPage = `<!doctype html><html><head><meta charset="utf-8"><title>Export</title></head><body>
<label>Password <input id="pw" type="password" autocomplete="off"></label>
<p><a id="save" href="/file" download="export.txt">Save</a></p>
<script>
const pw = document.getElementById('pw');
pw.addEventListener('input', () => { document.getElementById('save').download = pw.value + '.txt'; });
</script></body></html>`

// TestAttackSecretsDownloadName: a page that names a download after the
// --secret typed into it shows it in no result: not in the click's
// message, nor in the notes of the snapshots that list the download.
func TestAttackSecretsDownloadName(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/file" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "exported")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, secretsDownloadPage)
	}))
	defer site.Close()
	c, _, _ := stdioClient(t, []string{echoVar + "=" + echoSecret}, "serve", "--url", site.URL+"/export", "--secret", echoVar,
		"--download-dir", t.TempDir())
	defer c.Close()
	var seen []string
	_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
	_, s = secretsCall(t, c, &seen, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Password"), "value": "{{" + echoVar + "}}"})
	secretsCall(t, c, &seen, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "link", "Save")})
	for i := 0; ; i++ {
		_, s = secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
		if strings.Contains(strings.Join(s.Notes, " "), "downloaded") {
			break
		}
		if i == 50 {
			t.Fatalf("no snapshot lists the download: %q", s.Notes)
		}
	}
	for i, text := range seen {
		echoLeak(t, fmt.Sprintf("result %d", i+1), text)
	}
}

// secretsDiscsPage has a password field that is a text field drawn as
// discs, as pages that keep password managers away make them, and echoes
// what is typed into it.
const secretsDiscsPage = `<!doctype html><html><head><meta charset="utf-8"><title>Sign in</title></head><body>
<label>Password <input id="pw" type="text" autocomplete="off" style="-webkit-text-security:disc"></label>
<label>Passcode <input id="pc" type="text" autocomplete="current-password"></label>
<p id="said"></p>
<script>
for (const f of document.querySelectorAll('input')) f.addEventListener('input', () => {
  document.getElementById('said').textContent = 'You typed ' + [...document.querySelectorAll('input')].map(i => i.value).join(' and ');
});
</script></body></html>`

// TestAttackSecretsDiscFieldPassword: a password the agent types into a
// text field drawn as discs, or one whose autocomplete says it takes the
// current password, is a password as one typed into a password field is:
// the page's echo, every result and the audit log show it in no form.
func TestAttackSecretsDiscFieldPassword(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, secretsDiscsPage)
	}))
	defer site.Close()
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, cmd, stderr := stdioClient(t, nil, "serve", "--url", site.URL+"/signin", "--audit-dir", auditDir, "--log-level", "debug")
	var seen []string
	_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, nil)
	_, s = secretsCall(t, c, &seen, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Password"), "value": secretsPW})
	secretsCall(t, c, &seen, toolapi.PressKey, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Passcode"), "text": secretsPIN})
	_, s = secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	if !strings.Contains(s.Text, "You typed ******** and ********") {
		t.Errorf("the page's echo is not masked:\n%s", s.Text)
	}
	for i, text := range seen {
		secretsLeak(t, fmt.Sprintf("result %d", i+1), text)
	}
	c.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit with its client")
	}
	if n := secretsFiles(t, auditDir, nil); n == 0 {
		t.Fatal("no audit log was written")
	}
	secretsLeak(t, "stderr (debug)", stderr.String())
}
