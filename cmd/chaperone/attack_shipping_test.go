package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/driver"
)

// shippingRun runs the built binary in dir with args (the first of which
// may be "chaperone", as a printed command line starts), approving through
// the web console every approval it asks for, as a person would. It
// returns stdout and stderr, the number of approvals given, and how the
// command ended.
func shippingRun(t *testing.T, dir string, args ...string) (stdout, stderr string, approvals int, err error) {
	t.Helper()
	if len(args) > 0 && args[0] == "chaperone" {
		args = args[1:]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--approver", "web")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), lentBrowser(t), actionBudget, "ANTHROPIC_API_KEY=")
	var out, errOut syncBuffer
	cmd.Stdout = &out
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	approved := make(chan int, 1)
	go func() {
		var console string
		n := 0
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			errOut.Write([]byte(line + "\n"))
			if u, ok := strings.CutPrefix(line, "Approval console: "); ok {
				console = strings.TrimSuffix(u, "/") + "/"
			}
			if !strings.HasPrefix(line, "Approval needed: ") {
				continue
			}
			n += shippingApproveAll(t, console)
		}
		approved <- n
	}()
	err = cmd.Wait()
	pw.Close()
	n := <-approved
	return out.String(), errOut.String(), n, err
}

// shippingApproveAll approves every pending request of the web console at
// console and says how many it approved. It reports problems with t.Error:
// it runs outside the test's goroutine.
func shippingApproveAll(t *testing.T, console string) int {
	resp, err := http.Get(console + "api/pending")
	if err != nil {
		t.Error(err)
		return 0
	}
	var list struct {
		Pending []struct{ ID string } `json:"pending"`
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil {
		t.Error(err)
		return 0
	}
	n := 0
	for _, p := range list.Pending {
		resp, err := http.Post(console+"api/approvals/"+p.ID, "application/json", strings.NewReader(`{"approved":true}`))
		if err != nil {
			t.Error(err)
			continue
		}
		resp.Body.Close()
		n++
	}
	return n
}

// shippingWords splits a command line as a POSIX shell would for the
// quoting the demo prints: words apart by spaces, '…' quoting.
func shippingWords(line string) []string {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
			}
			inWord = false
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// The demo's printed replay command works as printed: run in a fresh
// directory with no flags, the demo leaves a script and prints a command;
// that command, run as it reads (the person approving as before), serves a
// fresh demo site, applies the demo profile the script names (the final
// step is asked for again) and replays every step with no model. Before
// scripts said where to start, the replay opened the demo's old, closed
// port.
func TestShippingDemoReplayAsPrinted(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a dir with spaces")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, n, err := shippingRun(t, dir, "demo")
	if err != nil || n == 0 {
		t.Fatalf("chaperone demo: %v, %d approvals\nstdout:\n%s\nstderr:\n%s", err, n, out, errOut)
	}
	var line string
	for l := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "Replay it: "); ok {
			line = rest
		}
	}
	if !strings.HasPrefix(line, "chaperone replay ") {
		t.Fatalf("the demo prints no replay command line:\n%s", out)
	}
	words := shippingWords(line)
	script, err := driver.ReadScript(words[len(words)-1])
	if err != nil {
		t.Fatalf("the printed command names no script (%q): %v", line, err)
	}
	if script.Format != driver.ScriptFormat || script.Start != "demo:/account" || script.Profile != "demo" {
		t.Errorf("the script says format %d, start %q, profile %q; want %d, demo:/account, demo",
			script.Format, script.Start, script.Profile, driver.ScriptFormat)
	}

	// Another directory: the command must not depend on where it runs.
	out, errOut, n, err = shippingRun(t, t.TempDir(), words...)
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", line, err, out, errOut)
	}
	if n == 0 {
		t.Errorf("%s asked nobody before the final step: the script's profile was not applied\nstdout:\n%s", line, out)
	}
	if c := strings.Count(out, ": replayed\n"); c != len(script.Steps) || c == 0 {
		t.Errorf("%d steps replayed, want all %d:\n%s", c, len(script.Steps), out)
	}
	for _, want := range []string{"Profile: demo (the script's)", "SUCCEEDED: completed", "cost: none (no model was called)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+errOut, "ERR_CONNECTION_REFUSED") {
		t.Errorf("the replay opened a closed port:\n%s\n%s", out, errOut)
	}
}

// A script is a file anyone may have written, and a replay with no flags
// does what it says: it may not turn the checkpoints off, nor start at a URL
// the URL policy refuses, nor name a profile that is not there. Each is
// refused with a clear error before a browser starts; the person's own
// flags still override the script.
func TestShippingHostileScript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		fields string // the script's start and profile fields, JSON
		flags  []string
		want   string // in stderr
	}{
		{"profile none", `"profile":"none"`, nil, "does not match the schema"},
		{"javascript start", `"start":"javascript:alert(1)"`, nil, "does not match the schema"},
		{"file start", `"start":"file:///etc/passwd"`, nil, "does not match the schema"},
		{"denied start", `"start":"https://203.0.113.9/account"`, []string{"--allowed-origins-browse", "http://127.0.0.1"}, "203.0.113.9"},
		{"missing profile", `"profile":"/nonexistent/evil.json"`, nil, "/nonexistent/evil.json"},
		{"denied start after a good profile", `"start":"https://203.0.113.9/account","profile":"demo"`, nil, "203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "script.json")
			data := `{"format":2,"version":1,"goal":"g",` + tt.fields + `,"steps":[]}`
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, n, err := shippingRun(t, dir, append([]string{"replay", path}, tt.flags...)...)
			if err == nil {
				t.Fatalf("the replay of a hostile script ran:\n%s\n%s", out, errOut)
			}
			if n != 0 {
				t.Errorf("%d approvals asked", n)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, errOut)
			}
			if strings.Contains(out, "Goal: ") {
				t.Errorf("the replay started a browser:\n%s", out)
			}
		})
	}
}
