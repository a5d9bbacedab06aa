package main

import (
	"context"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// The values a flow types that must never be written or shown: a password,
// and the value of --secret API_TOKEN, which the agent knows only as
// {{API_TOKEN}}.
const (
	typedPassword = "hunter2-secret-XYZ"
	secretVar     = "API_TOKEN"
	secretValue   = "tok-SECRET-8c1f2e"
)

// checkNothingHolds walks dir and fails the test for every file that holds
// the password or the secret, and for every directory not 0700 and file not
// 0600. It returns how many files it read.
func checkNothingHolds(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), want)
		}
		if d.IsDir() {
			return nil
		}
		n++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checkNotIn(t, path, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkNotIn fails the test if text, named what, holds the password or the
// secret.
func checkNotIn(t *testing.T, what, text string) {
	t.Helper()
	for _, v := range []string{typedPassword, secretValue} {
		if strings.Contains(text, v) {
			i := strings.Index(text, v)
			t.Errorf("%s holds %q: …%s…", what, v, text[max(0, i-80):min(len(text), i+len(v)+40)])
		}
	}
}

// TestSecretsStayOutOfServe types a password and a --secret through the
// built binary's tools, asks a person about each, and finds neither value in
// any result, approval request, audit file or line of stderr.
func TestSecretsStayOutOfServe(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	auditDir := filepath.Join(t.TempDir(), "audit")
	host, hookURL := newApprovalHost(t, webhookToken)
	c, cmd, stderr := stdioClient(t, []string{"CHAPERONE_WEBHOOK_TOKEN=" + webhookToken, secretVar + "=" + secretValue},
		"serve", "--url", site.URL+"/variants/form", "--secret", secretVar, "--audit-dir", auditDir, "--log-level", "debug",
		"--approver", "webhook", "--webhook-url", hookURL)

	var seen []string // every result the agent read: its text and its JSON
	s := getSnapshot(t, c)
	res, text := call(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Labelled(t, s, "Password"), "value": typedPassword})
	seen = append(seen, textOf(t, res), text)
	s = snapshotOf(t, text)
	res, text = call(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Labelled(t, s, "Username"), "value": "{{" + secretVar + "}}"})
	seen = append(seen, textOf(t, res), text)
	// The page echoes what was typed into Username, below the fold: the
	// agent reads it back as the placeholder.
	if s = wholePage(t, c); !strings.Contains(s.Text, "username={{"+secretVar+"}}") {
		t.Errorf("the echo of the secret is not shown as its placeholder:\n%s", s.Text)
	}

	// A person asked about either fill sees no value.
	for _, ask := range []struct{ field, value string }{{"Password", typedPassword}, {"Username", "{{" + secretVar + "}}"}} {
		host.decisions <- map[string]any{"approved": false}
		res, text = call(t, c, toolapi.RequestApproval, map[string]any{"ref": browsertest.Labelled(t, s, ask.field), "verb": "fill",
			"value": ask.value, "action": "type into " + ask.field, "reason": "to log in"})
		seen = append(seen, textOf(t, res), text)
		p := host.asked(t)
		checkNotIn(t, "the approval request", p.Prompt+strings.Join(p.Lines, "\n")+p.Action+p.Words)
		if p.Concrete == nil || !p.Concrete.Masked {
			t.Errorf("the person is not told the value is masked: %+v", p.Concrete)
		}
		s = wholePage(t, c)
	}
	for i, text := range seen {
		checkNotIn(t, fmt.Sprintf("result %d", i+1), text)
	}

	// The server ends with the client; then everything it wrote is final.
	c.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit with its client")
	}
	if n := checkNothingHolds(t, auditDir); n == 0 {
		t.Fatal("no audit log was written")
	}
	checkNotIn(t, "stderr", stderr.String())
}

// TestSecretsStayOutOfRun runs `chaperone run`'s code path with a scripted
// agent that types a password and a --secret, and asks about the password
// first: no file of the run record, its audit log, stdout or stderr holds
// either value, and the record is its owner's alone.
func TestSecretsStayOutOfRun(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	e, stdout, stderr := driverEnv(map[string]string{secretVar: secretValue})
	st := lentSetup(t, e, "debug")
	secrets, err := secretValues([]string{secretVar}, e.getenv)
	if err != nil {
		t.Fatal(err)
	}
	profs, err := loadProfiles("", e.stderr)
	if err != nil {
		t.Fatal(err)
	}
	approver := &checkpointtest.Person{Answer: checkpoint.Decision{Approved: true, Channel: "test"}}
	model := &driver.ScriptedModel{Steps: []driver.Step{
		driver.ActOn(toolapi.RequestApproval, "textbox", "Password", map[string]any{
			"verb": "fill", "value": typedPassword, "action": "type the password", "reason": "to log in"}),
		driver.ActOn(toolapi.Fill, "textbox", "Password", map[string]any{"value": typedPassword}),
		driver.ActOn(toolapi.Fill, "textbox", "Username", map[string]any{"value": "{{" + secretVar + "}}"}),
		driver.Call(toolapi.GetSnapshot, map[string]any{"viewport_only": false}),
		driver.Call(toolapi.CompleteTask, map[string]string{"status": "success", "reason": "the profile is filled in"}),
	}}
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := drive(ctx, e, task{
		setup: st, goal: "Fill in the profile", profiles: profs, secrets: secrets, startURL: site.URL + "/variants/form",
		model: model, modelName: scriptedAgentName, outDir: dir, approver: approver,
	})
	if err != nil || !res.Success {
		t.Fatalf("run: %+v %v\nstderr:\n%s", res, err, stderr)
	}
	if n := checkNothingHolds(t, dir); n < 4 {
		t.Errorf("%d files in the run record, want the session log, the report, the audit log and screenshots", n)
	}
	checkNotIn(t, "stdout", stdout.String())
	checkNotIn(t, "stderr", stderr.String())
	asked := approver.Requests()
	if len(asked) == 0 {
		t.Fatal("nobody was asked about the password")
	}
	for _, r := range asked {
		checkNotIn(t, "the approval request", strings.Join(r.Lines(), "\n")+r.Action+r.Words+r.Prompt())
	}
}
