package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestParseFlagsEnvAndArgs(t *testing.T) {
	t.Parallel()
	e := &env{stderr: &bytes.Buffer{}}
	fs := newFlagSet(e, "x", "x")
	idle := fs.Duration("session-idle", time.Minute, "")
	url := fs.String("url", "", "")
	var hosts listFlag
	fs.Var(&hosts, "allowed-hosts", "")
	all := fs.Bool("all", false, "")
	environment := map[string]string{
		"CHAPERONE_SESSION_IDLE":  "5m",
		"CHAPERONE_URL":           "http://from-env/",
		"CHAPERONE_ALLOWED_HOSTS": "env.example,other.example",
	}
	rest, err := parseFlags(fs, []string{"http://pos/", "--url", "http://from-args/", "--all", "second"}, func(k string) string { return environment[k] })
	if err != nil {
		t.Fatal(err)
	}
	if *idle != 5*time.Minute {
		t.Errorf("session-idle = %v, want 5m from the environment", *idle)
	}
	if *url != "http://from-args/" {
		t.Errorf("url = %q, want the argument to win over the environment", *url)
	}
	if !slices.Equal(hosts, []string{"env.example", "other.example"}) {
		t.Errorf("allowed-hosts = %v", hosts)
	}
	if !*all || !slices.Equal(rest, []string{"http://pos/", "second"}) {
		t.Errorf("all = %v, positional = %v: flags after positional arguments are parsed too", *all, rest)
	}

	// A list given as an argument replaces the environment's.
	fs = newFlagSet(e, "x", "x")
	hosts = nil
	fs.Var(&hosts, "allowed-hosts", "")
	if _, err := parseFlags(fs, []string{"--allowed-hosts", "a,b", "--allowed-hosts", "c"}, func(k string) string { return environment[k] }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(hosts, []string{"a", "b", "c"}) {
		t.Errorf("allowed-hosts = %v, want a,b,c", hosts)
	}
}

func TestParseFlagsErrors(t *testing.T) {
	t.Parallel()
	e := &env{stderr: &bytes.Buffer{}}
	fs := newFlagSet(e, "x", "x")
	fs.Int("max-sessions", 10, "")
	_, err := parseFlags(fs, nil, func(k string) string {
		if k == "CHAPERONE_MAX_SESSIONS" {
			return "lots"
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), "CHAPERONE_MAX_SESSIONS") {
		t.Errorf("bad environment value: %v", err)
	}
	fs = newFlagSet(e, "x", "x")
	if _, err := parseFlags(fs, []string{"--nope"}, func(string) string { return "" }); !errors.Is(err, errUsage) {
		t.Errorf("unknown flag: %v, want errUsage", err)
	}
	fs = newFlagSet(e, "x", "x")
	if _, err := parseFlags(fs, []string{"-h"}, func(string) string { return "" }); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
}

func TestParseViewport(t *testing.T) {
	t.Parallel()
	if w, h, err := parseViewport("1024x768"); w != 1024 || h != 768 || err != nil {
		t.Errorf("1024x768: %d %d %v", w, h, err)
	}
	for _, bad := range []string{"", "1024", "x768", "10x10", "99999x1", "axb"} {
		if _, _, err := parseViewport(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRunCommands(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	if code := run(context.Background(), []string{"nope"}, e); code != 2 || !strings.Contains(errOut.String(), `unknown command "nope"`) {
		t.Errorf("unknown command: exit %d, %q", code, errOut.String())
	}
	if code := run(context.Background(), nil, e); code != 2 {
		t.Errorf("no command: exit %d", code)
	}
	out.Reset()
	if code := run(context.Background(), []string{"help"}, e); code != 0 || !strings.Contains(out.String(), "serve") {
		t.Errorf("help: exit %d, %q", code, out.String())
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"serve", "-h"}, e); code != 0 || !strings.Contains(errOut.String(), "[$CHAPERONE_SESSION_IDLE]") {
		t.Errorf("serve -h: exit %d, %q", code, errOut.String())
	}
}

// TestCapsFlag: serve -h names every capability, and an unknown one, by
// flag or environment, stops the command before anything starts, as does an
// upload directory that is not there.
func TestCapsFlag(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	if code := run(context.Background(), []string{"serve", "-h"}, e); code != 0 {
		t.Fatalf("serve -h: exit %d", code)
	}
	for _, c := range toolapi.Capabilities() {
		if !strings.Contains(errOut.String(), c+" (browser_") && c != toolapi.CapAll {
			t.Errorf("serve -h does not list the capability %s:\n%s", c, errOut.String())
		}
	}
	const unknown = `--caps: unknown capability "teleport": want one of tabs, wait, hover, upload, drag, files, vision, devtools, all, eval`
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"flag", []string{"serve", "--caps", "wait,teleport"}, nil, unknown},
		{"environment", []string{"serve"}, map[string]string{"CHAPERONE_CAPS": "teleport"}, unknown},
		{"run", []string{"run", "--caps", "teleport", "--goal", "cancel my membership"}, map[string]string{"ANTHROPIC_API_KEY": "sk-test"}, unknown},
		{"missing upload dir", []string{"serve", "--caps", "upload", "--upload-dir", "/no/such/dir"}, nil, `--upload-dir "/no/such/dir": not a directory`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &env{stdout: &out, stderr: &errOut, getenv: func(k string) string { return tc.env[k] }}
			code := run(context.Background(), tc.args, e)
			if code == 0 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, errOut.String(), tc.want)
			}
		})
	}
}

func TestBrowserPoolFlag(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "pool")
	os.WriteFile(file, []byte("# two machines\nhttp://10.0.0.11:9222\n\nws://10.0.0.12:3000/?token=s3cr3t\n"), 0o600)
	for _, tc := range []struct {
		name    string
		pool    []string
		cdp     string
		want    []string
		wantErr string
	}{
		{name: "list", pool: []string{"http://a:9222", "ws://b:3000/?token=x"}, want: []string{"http://a:9222", "ws://b:3000/?token=x"}},
		{name: "file", pool: []string{file}, want: []string{"http://10.0.0.11:9222", "ws://10.0.0.12:3000/?token=s3cr3t"}},
		{name: "missing file", pool: []string{"/no/such/pool"}, wantErr: "no such file"},
		{name: "not an endpoint", pool: []string{"ftp://a/?token=s3cr3t"}, wantErr: `"ftp://a" is not a DevTools endpoint`},
		{name: "with --cdp-endpoint", pool: []string{"http://a:9222"}, cdp: "http://b:9222", wantErr: "cannot be combined"},
		{name: "none", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &browserFlags{pool: tc.pool, cdp: tc.cdp}
			got, err := b.endpoints()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "s3cr3t") {
					t.Fatalf("error %v, want one containing %q and no token", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("endpoints() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
