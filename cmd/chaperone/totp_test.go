package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestTOTPSignInServe signs in with a one-time code through the built
// binary over stdio, with a real MCP client: --totp OTP_KEY holds the
// fixture's key as a site's set-up page shows it (lower case, in groups),
// the agent fills {{OTP_KEY}} into the two-step sign-in page, and the site,
// which checks the code with its own implementation (fixtures/totp.go),
// signs it in. The code the site received and the key, in its spellings,
// are in no result's text or structured content, line of the debug log or
// audit file, and the screenshot of the signed-in page draws the code as
// discs.
func TestTOTPSignInServe(t *testing.T) {
	t.Parallel()
	site, received := totpSite(t)
	const given = "mnug c4df ojxw 4zjn mzux q5dv ojss 2mtg" // fixtures.TOTPKey
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, cmd, stderr := stdioClient(t, []string{"OTP_KEY=" + given},
		"serve", "--url", site.URL+"/variants/signin-totp", "--totp", "OTP_KEY", "--audit-dir", auditDir,
		"--log-level", "debug", "--viewport", "800x500", "--screenshot-tokens", "1000", "--screenshots", "always")

	var seen []string
	_, s := secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	if !strings.Contains(s.Text, "Enter this key in your authenticator app: {{OTP_KEY}}") {
		t.Errorf("the key the page shows is not hidden as {{OTP_KEY}}:\n%s", s.Text)
	}
	_, s = secretsCall(t, c, &seen, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Authentication code"), "value": "{{OTP_KEY}}"})
	res, s := secretsCall(t, c, &seen, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Verify")})
	if s.Page.Title != "Signed in - StreamFlix" {
		t.Fatalf("the site did not take the code: %q\n%s", s.Page.Title, s.Text)
	}
	if !strings.Contains(s.Text, "Signed in as alice@example.com with code {{OTP_KEY}}.") || !strings.Contains(s.Page.URL, "code={{OTP_KEY}}") {
		t.Errorf("the code the page repeats is not hidden as {{OTP_KEY}}: %s\n%s", s.Page.URL, s.Text)
	}
	secretsMasked(t, "the signed-in page's screenshot", secretsImage(t, res), secretsPair{"the status line", 20, 100, 140, 600, 32})
	secretsCall(t, c, &seen, toolapi.GetSnapshot, map[string]any{"viewport_only": false})

	c.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit with its client")
	}
	codes := received()
	if len(codes) != 1 || len(codes[0]) != 6 {
		t.Fatalf("the site received the codes %q, want one of 6 digits", codes)
	}
	texts := map[string]string{"results": strings.Join(seen, "\n"), "stderr": stderr.String()}
	files, err := filepath.Glob(filepath.Join(auditDir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no audit log: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	checkNoTOTP(t, texts, codes[0], given)
}

// checkNoTOTP fails the test for each text that holds code (as a number of
// its own: a log's numbers may hold its digits) or the key in any of its
// spellings.
func checkNoTOTP(t *testing.T, texts map[string]string, code, key string) {
	t.Helper()
	asCode := regexp.MustCompile(`(^|\D)` + regexp.QuoteMeta(code) + `(\D|$)`)
	compact := strings.ReplaceAll(key, " ", "")
	for what, text := range texts {
		if loc := asCode.FindStringIndex(text); loc != nil {
			t.Errorf("%s holds the code %s: …%s…", what, code, text[max(0, loc[0]-80):min(len(text), loc[1]+40)])
		}
		low := strings.ToLower(text)
		for _, k := range []string{key, compact, compact[:16], strings.ToLower(fixtures.TOTPKey)} {
			if strings.Contains(low, k) {
				t.Errorf("%s holds the key (%q)", what, k)
			}
		}
	}
}

// TestTOTPRunAndReplay signs in with {{OTP_KEY}} through `chaperone run`'s
// code path with a scripted agent, then replays the script it wrote: each
// time the site takes a code of its own (the replay's made when it types),
// and no file of either record, nor stdout or stderr, holds a code the site
// received or the key.
func TestTOTPRunAndReplay(t *testing.T) {
	t.Parallel()
	site, received := totpSite(t)
	const given = "otpauth://totp/StreamFlix:alice?secret=" + fixtures.TOTPKey + "&issuer=StreamFlix"
	e, stdout, stderr := driverEnv(map[string]string{"OTP_KEY": given})
	codes, err := totpKeys([]string{"OTP_KEY"}, e.getenv, nil)
	if err != nil {
		t.Fatal(err)
	}
	profs, err := loadProfiles("", e.stderr)
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	signIn := func(dir string, model driver.Model, script *driver.Script) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := drive(ctx, e, task{
			setup: lentSetup(t, e, "debug"), goal: "Sign in", profiles: profs, codes: codes, startURL: site.URL + "/variants/signin-totp",
			model: model, modelName: scriptedAgentName, outDir: dir, script: script,
			approver: &checkpointtest.Person{Answer: checkpoint.Decision{Approved: true, Channel: "test"}},
		})
		if err != nil || !res.Success {
			t.Fatalf("%s: %+v %v\nstderr:\n%s", dir, res, err, stderr)
		}
	}
	runDir, replayDir := filepath.Join(base, "run"), filepath.Join(base, "replay")
	signIn(runDir, &driver.ScriptedModel{Steps: []driver.Step{
		driver.ActOn(toolapi.Fill, "textbox", "Authentication code", map[string]any{"value": "{{OTP_KEY}}"}),
		driver.ActOn(toolapi.Click, "button", "Verify", nil),
		driver.Call(toolapi.CompleteTask, map[string]string{"status": "success", "reason": "signed in"}),
	}}, nil)
	signIn(replayDir, nil, readScript(t, filepath.Join(runDir, driver.ScriptName)))

	got := received()
	if len(got) != 2 {
		t.Fatalf("the site received the codes %q, want one from the run and one from the replay", got)
	}
	texts := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}
	for _, dir := range []string{runDir, replayDir} {
		if err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".png") {
				return err
			}
			b, err := os.ReadFile(path)
			texts[path] = string(b)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, code := range got {
		checkNoTOTP(t, texts, code, strings.ToLower(fixtures.TOTPKey))
	}
}

// totpSite serves the fixture site, closed when the test ends, and
// records the codes its two-step sign-in page is sent: received returns
// them.
func totpSite(t *testing.T) (site *httptest.Server, received func() []string) {
	var mu sync.Mutex
	var codes []string
	fixture := fixtures.Site()
	site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/totp/verify" {
			mu.Lock()
			codes = append(codes, r.URL.Query().Get("code"))
			mu.Unlock()
		}
		fixture.ServeHTTP(w, r)
	}))
	t.Cleanup(site.Close)
	return site, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), codes...)
	}
}
