package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/checkpoint/checkpointtest"
	"github.com/chaperone-mcp/chaperone/driver"
	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// replayTestTask is a replay of script on the demo site's page at path,
// with the demo profile, a record in dir and approvals answered by
// approver; model recovers the steps that do not replay (nil: none).
func replayTestTask(t *testing.T, e *env, dir string, approver checkpoint.Approver, script *driver.Script, path string, model driver.Model) task {
	t.Helper()
	st := lentSetup(t, e, "info")
	p, err := checkpoint.LoadProfile("demo")
	if err != nil {
		t.Fatal(err)
	}
	tk := task{setup: st, outDir: dir, approver: approver, goal: script.Goal, profiles: profiles{named: p},
		startURL: checkpoint.DemoScheme + path, script: script}
	if model != nil {
		tk.model, tk.modelName = model, "mock model"
	}
	return tk
}

// readScript reads and validates a script a run wrote.
func readScript(t *testing.T, path string) *driver.Script {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := driver.ValidateScript(data); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	if strings.Contains(string(data), `"@e`) {
		t.Fatalf("%s holds a ref:\n%s", path, data)
	}
	s, err := driver.ReadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// replayed runs a replay and returns how each step went.
func replayed(t *testing.T, tk task, e *env, stdout *syncBuffer) (driver.Result, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := drive(ctx, e, tk)
	t.Logf("stdout:\n%s", stdout)
	if err != nil {
		t.Fatal(err)
	}
	var how []string
	for _, l := range drivertest.ReadSessionLog(t, tk.outDir)[1:] {
		if l["type"] == "turn" {
			how = append(how, jsonStr(l["replay"]))
		}
	}
	return res, how
}

// Record the demo flow, then replay it: on the flow with other ids and
// classes, with no model at all; on the flow whose final button was
// relabelled, recovered by the model in one call, whose new script version
// then replays with no model; on that flow with the button's id kept, found
// by its id with no model. Checkpoints still ask the person, and
// complete_task still verifies the end.
func TestRecordAndReplay(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	person := func() *checkpointtest.Person {
		return &checkpointtest.Person{Answer: checkpoint.Decision{Approved: true, Channel: "test"}}
	}

	// Record.
	e, stdout, _ := driverEnv(nil)
	recDir := filepath.Join(base, "record")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := runDemo(ctx, e, demoTestTask(t, e, recDir, person())); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "Script: "+filepath.Join(recDir, driver.ScriptName)) {
		t.Errorf("stdout does not name the script:\n%s", stdout)
	}
	script := readScript(t, filepath.Join(recDir, driver.ScriptName))
	want := []string{toolapi.Click, toolapi.Click, toolapi.Click, toolapi.Click, toolapi.RequestApproval, toolapi.Click, toolapi.CompleteTask}
	if len(script.Steps) != len(want) || script.Version != 1 {
		t.Fatalf("script = %+v, want version 1 with %d steps", script, len(want))
	}
	for i, s := range script.Steps {
		if s.Tool != want[i] {
			t.Errorf("step %d is %s, want %s", i+1, s.Tool, want[i])
		}
	}
	if tg := script.Steps[4].Target; tg == nil || tg.Role != "button" || tg.Name != "Finish Cancellation" || script.Steps[4].Before.Title != "Finish cancellation - StreamFlix" {
		t.Errorf("approval step = %+v", script.Steps[4])
	} else if tg.ID != "finish-cancellation" || tg.CSS != "button#finish-cancellation" || tg.Frame != "" {
		t.Errorf("approval step's id, CSS path, frame = %q, %q, %q", tg.ID, tg.CSS, tg.Frame)
	}

	tests := []struct {
		name   string
		script func() *driver.Script
		path   string
		// model answers the steps that do not replay; calls is how many
		// times it must be asked.
		model *driver.ScriptedModel
		calls int
		how   []string
		// next is the version of the script the replay writes, or 0.
		next int
	}{
		{"renamed ids and classes", func() *driver.Script { return script }, "/variants/renamed-flow", nil, 0,
			[]string{"replayed", "replayed", "replayed", "replayed", "replayed", "replayed", "replayed"}, 0},
		{"relabelled final button", func() *driver.Script { return script }, "/variants/renamed-flow?final=confirm",
			&driver.ScriptedModel{Steps: []driver.Step{driver.ActOn(toolapi.RequestApproval, "button", "Confirm cancellation", map[string]any{
				"verb": "click", "action": `click "Confirm cancellation"`, "reason": "This cancels the membership for good.",
			})}}, 1,
			[]string{"replayed", "replayed", "replayed", "replayed", "recovered by the model in 1 call(s)", "replayed", "replayed"}, 2},
		{"relabelled final button with its id", func() *driver.Script { return script }, "/variants/renamed-flow?final=confirm&id=kept", nil, 0,
			[]string{"replayed", "replayed", "replayed", "replayed", "replayed", "replayed", "replayed"}, 0},
		{"the new version", func() *driver.Script {
			return readScript(t, filepath.Join(base, "relabelled final button", driver.ScriptVersionName(2)))
		}, "/variants/renamed-flow?final=confirm", nil, 0,
			[]string{"replayed", "replayed", "replayed", "replayed", "replayed", "replayed", "replayed"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, stdout, _ := driverEnv(nil)
			approver := person()
			dir := filepath.Join(base, tt.name)
			var model driver.Model
			if tt.model != nil {
				model = tt.model
			}
			res, how := replayed(t, replayTestTask(t, e, dir, approver, tt.script(), tt.path, model), e, stdout)
			if !res.Success || res.Reason != driver.ReasonCompleted {
				t.Fatalf("result = %+v", res)
			}
			if strings.Join(how, "|") != strings.Join(tt.how, "|") {
				t.Errorf("steps = %q, want %q", how, tt.how)
			}
			if tt.calls == 0 && (res.Tokens != driver.Usage{}) {
				t.Errorf("a replay with no recovery spent %+v", res.Tokens)
			}
			if tt.model != nil && len(tt.model.Requests()) != tt.calls {
				t.Errorf("the model was asked %d times, want %d", len(tt.model.Requests()), tt.calls)
			}
			if tt.calls > 0 && res.Tokens.InputTokens == 0 {
				t.Error("the recovery's tokens are not counted")
			}
			asked := approver.Requests()
			if len(asked) == 0 || !strings.Contains(asked[0].Title, "Finish cancellation") {
				t.Errorf("the person was asked %+v, want on the final step", asked)
			}
			_, err := os.Stat(filepath.Join(dir, driver.ScriptVersionName(2)))
			if written := err == nil; written != (tt.next == 2) {
				t.Fatalf("script version 2 written = %v", written)
			}
			if tt.next == 2 {
				next := readScript(t, filepath.Join(dir, driver.ScriptVersionName(2)))
				if next.Version != 2 || len(next.Steps) != len(want) || next.Steps[4].Target.Name != "Confirm cancellation" || next.Steps[5].Target.Name != "Confirm cancellation" {
					data, _ := json.MarshalIndent(next, "", "  ")
					t.Errorf("version 2 = %s", data)
				}
			}
		})
	}
}

// runApproving runs the built command with the web approval console and
// approves every request it announces; it returns stdout once the command
// has exited, failing the test if it did not exit 0.
func runApproving(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, n, err := shippingRun(t, "", args...)
	if err != nil {
		t.Fatalf("chaperone %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr)
	}
	if n == 0 {
		t.Fatalf("chaperone %s asked nobody\nstderr:\n%s", strings.Join(args, " "), stderr)
	}
	return stdout
}

// Through the built binary: the demo leaves a script, and `chaperone
// replay` performs it on the renamed flow with no model, the person still
// approving the final step.
func TestReplayCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := runApproving(t, "demo", "--out", filepath.Join(dir, "demo"))
	script := filepath.Join(dir, "demo", driver.ScriptName)
	if !strings.Contains(out, "Script: "+script) {
		t.Fatalf("the demo does not name its script:\n%s", out)
	}
	out = runApproving(t, "replay", script, "--profile", "demo", "--url", "demo:/variants/renamed-flow", "--out", filepath.Join(dir, "replay"))
	if n := strings.Count(out, ": replayed\n"); n != 7 {
		t.Errorf("%d steps replayed, want 7:\n%s", n, out)
	}
	for _, want := range []string{"SUCCEEDED: completed", "tokens: 0 in, 0 out", "cost: none (no model was called)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	report, err := os.ReadFile(filepath.Join(dir, "replay", driver.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(report), `<p class="replay">Step replayed</p>`); n != 7 {
		t.Errorf("the report shows %d steps replayed, want 7", n)
	}
}

// The stuck prompt reaches the person through the approver: a rejection
// stops the run, an approval continues it, with the person's words as the
// model's hint.
func TestAskWhenStuck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    checkpoint.Decision
		want driver.StuckAnswer
	}{
		{"reject stops", checkpoint.Decision{Approved: false, Feedback: "enough"}, driver.StuckAnswer{Stop: true, Hint: "enough"}},
		{"approve with a hint", checkpoint.Decision{Approved: true, Feedback: "close the banner"}, driver.StuckAnswer{Hint: "close the banner"}},
		{"approve continues", checkpoint.Decision{Approved: true}, driver.StuckAnswer{}},
		{"nobody reached stops", checkpoint.Decision{Channel: checkpoint.ChannelNone}, driver.StuckAnswer{Stop: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			person := &checkpointtest.Person{Answer: tt.d}
			got, err := askWhenStuck(person)(context.Background(), driver.StuckQuestion{
				Goal: "g", URL: "https://shop.test/", Title: "Shop", Failures: []string{"browser_click(@e2): failed (element_obscured)"},
			})
			if err != nil || got != tt.want {
				t.Fatalf("answer = %+v, %v; want %+v", got, err, tt.want)
			}
			r := person.Requests()[0]
			if r.Action != driver.StuckPrompt || r.Kind != checkpoint.KindAgent || !strings.Contains(r.Words, "failed (element_obscured)") || r.URL != "https://shop.test/" {
				t.Errorf("request = %+v", r)
			}
		})
	}
}
