// Command chaperone is an MCP server that gives an AI agent a real Chromium
// browser and keeps a human in charge of the steps that matter.
//
// Usage:
//
//	chaperone serve [flags]             serve the tools over stdio, or HTTP with --http
//	chaperone snapshot [URL] [flags]    print what the agent sees of a page
//	chaperone login URL --save FILE     sign in by hand and save the login
//	chaperone run --goal TEXT [flags]   drive a task unattended with Claude
//	chaperone demo [flags]              run the cancellation demo on the built-in site
//	chaperone replay SCRIPT [flags]     perform a successful run's script.json again
//	chaperone doctor [flags]            check what Chaperone needs here and how to fix it
//	chaperone healthcheck [flags]       exit 0 if a server's /healthz answers
//	chaperone version                   print the version
//
// Run "chaperone <command> -h" for a command's flags. Every flag can also be
// set by an environment variable: --session-idle is CHAPERONE_SESSION_IDLE.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

func main() {
	// An MCP client that leaves closes our stderr too: the log lines of the
	// shutdown that follows must not kill the process (Go's default for a
	// broken stderr) before it closes the browser, which flushes a
	// persistent profile's cookies and leaves no Chromium behind.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
		terminal: isTerminal(os.Stdin)})
	stop()
	os.Exit(code)
}

// env is what a command may touch of the process: its standard streams and
// its environment.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// terminal says whether stdin is a terminal, that is whether a person
	// may be sitting at it.
	terminal bool
}

// isTerminal reports whether f is a terminal: a character device other than
// the null device (which is one too, and where nobody types).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(info, null)
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// commands lists the subcommands, in the order usage shows them.
func commands() []command {
	return []command{
		{"serve", "serve the browser tools over MCP (stdio, or HTTP with --http)", serveCmd},
		{"snapshot", "print what the agent sees of a page (the demo site without a URL)", snapshotCmd},
		{"login", "open a browser for you to sign in to a site, and save the login for --storage-state", loginCmd},
		{"run", "drive a task unattended with Claude, asking a human before the steps that matter", runCmd},
		{"demo", "cancel a membership on the built-in demo site, with Claude or a scripted agent", demoCmd},
		{"replay", "perform a successful run's script again, calling the model only for a step that does not replay", replayCmd},
		{"record", "export a session's recording (--record, a run's record) as a video with ffmpeg: record export DIR OUT.mp4", recordCmd},
		{"doctor", "check the browser, its sandbox, fonts and the HTTP port, and say how to fix each problem", doctorCmd},
		{"healthcheck", "exit 0 if a server's /healthz answers (for container health checks)", healthcheckCmd},
		{"version", "print the version", versionCmd},
	}
}

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		usage(e.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		usage(e.stdout)
		return 0
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		err := c.run(ctx, e, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			// The flag package has said what was wrong.
			return 2
		}
		fmt.Fprintf(e.stderr, "chaperone %s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(e.stderr, "chaperone: unknown command %q\n\n", name)
	usage(e.stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Chaperone gives an AI agent a real Chromium browser and keeps a human in charge.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: chaperone <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "chaperone <command> -h" for its flags. Every flag can also be set by an`)
	fmt.Fprintln(w, "environment variable: --session-idle is CHAPERONE_SESSION_IDLE.")
}

// healthcheckCmd asks a running server's /healthz whether it is up.
func healthcheckCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "healthcheck", "healthcheck [flags]")
	url := fs.String("url", "http://127.0.0.1:8931/healthz", "the health `URL` to ask")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if _, err := parseFlags(fs, args, func(string) string { return "" }); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: %s answered %s", *url, res.Status)
	}
	return nil
}

func versionCmd(ctx context.Context, e *env, args []string) error {
	fmt.Fprintln(e.stdout, "chaperone", version())
	return nil
}

// version is the module version the binary was built from, with its VCS
// revision when known.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && (v == "(devel)" || v == "") {
		return v + " " + rev + dirty
	}
	return v
}
