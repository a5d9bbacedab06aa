package driver_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestRecordKeepsSecrets: a password the model types and a secret's value
// that reaches the driver anyway (echoed by the page, repeated by the model)
// appear in no file of the run record, which only its owner can read. The
// driver knows a password field from the snapshot's JSON: the mock's JSON
// text, or the structured content beside the server's compact text.
func TestRecordKeepsSecrets(t *testing.T) {
	t.Parallel()
	t.Run("mock", func(t *testing.T) {
		testRecordKeepsSecrets(t, func(mb *drivertest.MockBrowser) toolapi.Tools { return mb }, "{")
	})
	t.Run("server", func(t *testing.T) {
		testRecordKeepsSecrets(t, func(mb *drivertest.MockBrowser) toolapi.Tools { return throughServer(t, mb) }, "page ")
	})
}

// testRecordKeepsSecrets runs the test on the tools via gives; the model's
// view of a snapshot begins with textStart.
func testRecordKeepsSecrets(t *testing.T, via func(*drivertest.MockBrowser) toolapi.Tools, textStart string) {
	const password, secret = "hunter2-secret-XYZ", "tok-SECRET-123"
	login := drivertest.Page("https://shop.test/login", 0, "Log in")
	login.Elements = append(login.Elements,
		snapshot.Element{Ref: "@e2", Role: "textbox", Name: "Password", Kind: "password", State: []string{}},
		snapshot.Element{Ref: "@e3", Role: "textbox", Name: "API token", State: []string{}})
	mb := &drivertest.MockBrowser{Page: login, Actions: map[string]drivertest.MockOutcome{
		toolapi.Fill + " @e3": {Message: "Typed " + secret + " into the field."},
	}}
	model := &driver.ScriptedModel{Steps: []driver.Step{
		driver.ActOn(toolapi.Fill, "textbox", "Password", map[string]any{"value": password}),
		driver.Call(toolapi.Fill, map[string]string{"ref": "@e3", "value": "{{API_TOKEN}}"}),
		driver.Reply(driver.Text("I typed "+password+" and the token "+secret+"."),
			driver.ToolUse("", toolapi.Click, []byte(`{"ref":"@e1"}`))),
		driver.Call(toolapi.CompleteTask, map[string]string{"status": "success", "reason": "logged in with " + password}),
	}}
	dir := filepath.Join(t.TempDir(), "run")
	rec, err := driver.NewRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run(context.Background(), driver.Config{
		Model: model, ModelName: "scripted", Tools: via(mb), Goal: "Log in with the token " + secret,
		Record: rec, Secrets: map[string]string{"API_TOKEN": secret},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if !res.Success || strings.Contains(res.Detail, password) {
		t.Errorf("result %+v", res)
	}
	if first := model.Requests()[0].Messages[0].Content[1].Text; !strings.HasPrefix(first, textStart) {
		t.Errorf("the model read the snapshot as %q…, want it to begin with %q", first[:min(len(first), 40)], textStart)
	}
	// The browser got what the model wrote: the record is what is masked.
	if calls := mb.Calls(); !strings.Contains(string(calls[1].Args), password) {
		t.Fatalf("the password fill reached the browser as %s", calls[1].Args)
	}

	// The record is flat: its log, its report, its screenshots.
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the record's directory: %v %v, want mode 0700", info.Mode().Perm(), err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 3 {
		t.Fatalf("%d files in the record, want the log, the report and screenshots", len(entries))
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if info, err := e.Info(); err != nil || info.Mode() != 0o600 {
			t.Errorf("%s: %v %v, want a file of mode 0600", path, info.Mode(), err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(password)) || bytes.Contains(data, []byte(secret)) {
			t.Errorf("%s holds the password or the secret", path)
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, driver.SessionLogName))
	if err != nil {
		t.Fatal(err)
	}
	// The token's field is no password: its fill stays as the model wrote it.
	for _, want := range []string{`"value":"********"`, `"value":"{{API_TOKEN}}"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the session log lacks %s:\n%s", want, log)
		}
	}
}
