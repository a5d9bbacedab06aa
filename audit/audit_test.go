package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/redact"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// finishPage is the demo site's checkpoint page, as the demo profile sees it.
var finishPage = &snapshot.Snapshot{
	ID:       "s-finish",
	Page:     snapshot.Page{URL: "http://demo/finish", Title: "Finish Cancellation — StreamFlix"},
	Elements: []snapshot.Element{{Ref: "@e7", Role: "button", Name: "Finish Cancellation"}},
}

func TestLog(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	a := New(&buf, "sess")
	a.now = func() time.Time { return time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC) }
	start := time.Date(2026, 11, 4, 9, 59, 59, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The caller masks a password's value before the log sees it.
	must(a.ToolCall(ToolCall{Tool: "browser_fill", Args: json.RawMessage(`{"ref":"@e3","value":"********"}`),
		SnapshotID: "s1", Screenshot: []byte("abc"), Start: start, Duration: 1500 * time.Microsecond}))
	must(a.ToolCall(ToolCall{Tool: "browser_fill", Args: json.RawMessage(`{"ref":"@e4","value":"jane"}`), Code: "ref_invalid", Start: start}))
	must(a.ToolCall(ToolCall{Tool: "browser_click", Args: json.RawMessage(`{"ref":"@e7"}`), Start: start, ApprovalID: "req-1"}))
	p, err := checkpoint.LoadProfile("demo")
	must(err)
	person := checkpoint.ApproverFunc(func(context.Context, checkpoint.Request) (checkpoint.Decision, error) {
		return checkpoint.Decision{Channel: "web", Feedback: "wait"}, nil
	})
	g := checkpoint.NewGate(p, person, checkpoint.Options{Audit: a})
	g.Authorize(t.Context(), finishPage, checkpoint.Action{Verb: checkpoint.VerbClick, Ref: "@e7", Node: 7, Role: "button", Name: "Finish Cancellation"})
	must(a.Completion(Completion{Status: "success", Reason: "done", Message: "no", SnapshotID: "s2", Indicators: g.Evaluate(finishPage)}))
	var nilLog *Log
	must(nilLog.ToolCall(ToolCall{Tool: "x"}))

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	var first, second, covered, approval, completion map[string]any
	for i, dst := range []*map[string]any{&first, &second, &covered, &approval, &completion} {
		must(json.Unmarshal([]byte(lines[i]), dst))
	}
	if first["event"] != "tool_call" || first["args"].(map[string]any)["value"] != "********" || first["result"] != "ok" ||
		first["screenshot_sha256"] != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" ||
		first["duration_ms"] != 1.5 || first["session"] != "sess" || first["time"] != "2026-11-04T10:00:00Z" {
		t.Errorf("tool call: %s", lines[0])
	}
	if second["args"].(map[string]any)["value"] != "jane" || second["result"] != "ref_invalid" {
		t.Errorf("unmasked call: %s", lines[1])
	}
	if _, ok := second["approval_id"]; ok {
		t.Errorf("a call no approval covered names one: %s", lines[1])
	}
	if covered["approval_id"] != "req-1" {
		t.Errorf("a gated call does not name its approval: %s", lines[2])
	}
	concrete, _ := approval["concrete"].(map[string]any)
	if approval["event"] != "approval" || approval["channel"] != "web" || approval["approved"] != false || approval["feedback"] != "wait" ||
		approval["id"] == "" || concrete["verb"] != "click" || concrete["name"] != "Finish Cancellation" {
		t.Errorf("approval: %s", lines[3])
	}
	if completion["event"] != "completion" || len(completion["indicators"].([]any)) != 5 {
		t.Errorf("completion: %s", lines[4])
	}
}

// TestArgs: arguments that are not a JSON object are written as text, as
// they came.
func TestArgs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		``:                `{}`,
		`{"b":1,"a":"x"}`: `{"a":"x","b":1}`,
		`not json`:        `"not json"`,
		`********`:        `"********"`,
		`["a"]`:           `"[\"a\"]"`,
	} {
		got, err := json.Marshal(args(json.RawMessage(in)))
		if err != nil || string(got) != want {
			t.Errorf("args(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "audit")
	a, err := Open(dir, "../sess 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Completion(Completion{Status: "failed"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-.._sess_1.jsonl"))
	if len(files) != 1 {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("files in %s: %v", dir, entries)
	}
	// The log is its owner's alone: it says what the agent did as them.
	for path, want := range map[string]os.FileMode{dir: 0o700, files[0]: 0o600} {
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want mode %v", path, info.Mode().Perm(), err, want)
		}
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"session":"../sess 1"`) || !strings.HasSuffix(string(b), "\n") {
		t.Errorf("log file: %s", b)
	}
}

// Every event after SetClient names the client; before it, none does.
func TestSetClient(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	a := New(&buf, "sess")
	if err := a.ToolCall(ToolCall{Tool: "get_snapshot"}); err != nil {
		t.Fatal(err)
	}
	a.SetClient("alice")
	if err := a.ToolCall(ToolCall{Tool: "browser_click"}); err != nil {
		t.Fatal(err)
	}
	var clients []any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, ev["client"])
	}
	if len(clients) != 2 || clients[0] != nil || clients[1] != "alice" {
		t.Errorf("clients per event = %v, want [<nil> alice]", clients)
	}
	var none *Log
	none.SetClient("alice") // a nil log discards, SetClient included
}

// TestRedact hides, in every event, a value the log's redactor knows or
// learns later, in whatever form it takes: a page URL that carries it
// URL-encoded, an action that names it.
func TestRedact(t *testing.T) {
	t.Parallel()
	const pw = "p@ss w0rd/Zq?9"
	var buf bytes.Buffer
	l := New(&buf, "s1")
	red := redact.New(map[string]string{"PW": pw})
	l.Redact(red)
	enc := url.QueryEscape(pw)
	if err := l.Approval(checkpoint.Request{ID: "r1", Action: "click " + pw, URL: "https://x.test/r?pw=" + enc}, checkpoint.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	red.Add("Pin@ 42/Xy?", "********")
	if err := l.ToolCall(ToolCall{Tool: "browser_fill", Args: json.RawMessage(`{"value":"` + strings.ToLower(url.QueryEscape("Pin@ 42/Xy?")) + `"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := l.Completion(Completion{Status: "success", URL: "https://x.test/r?pw=" + strings.ToLower(enc)}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, leak := range []string{"p@ss", "p%40ss", "w0rd%2f", "pin%40", "42%2f"} {
		if strings.Contains(strings.ToLower(out), leak) {
			t.Errorf("the log shows %q:\n%s", leak, out)
		}
	}
	if strings.Count(out, "{{PW}}") != 3 || !strings.Contains(out, `"value":"********"`) {
		t.Errorf("the values are not replaced by their stand-ins:\n%s", out)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("not JSON: %s", line)
		}
	}
}

// A person reads the real host of every URL in the log: in a tool call's
// arguments, as the agent wrote them, and in an approval's raw fields.
func TestLogShowsTheRealHost(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := New(&buf, "s1")
	if err := l.ToolCall(ToolCall{Tool: "browser_navigate", Args: json.RawMessage(`{"url":"https://\u0430pple.com/login?e=a"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := l.ToolCall(ToolCall{Tool: "browser_fill", Args: json.RawMessage("{\"value\":\"see http://127.0.0.1/r?to=//\u0430pple.com/x\"}")}); err != nil {
		t.Fatal(err)
	}
	a := checkpoint.Action{Verb: checkpoint.VerbFill, Name: "Website", Value: "https://\u0430pple.com/"}
	if err := l.Approval(checkpoint.Request{ID: "r1", Action: a.String(), Concrete: &a, Reason: "send to https://\u0430pple.com"}, checkpoint.Decision{Approved: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "\u0430") || strings.Count(out, "xn--pple-43d.com") != 5 {
		t.Errorf("the log does not show the real host in every place:\n%s", out)
	}
}
