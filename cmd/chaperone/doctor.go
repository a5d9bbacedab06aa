package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
)

// finding is what one of doctor's checks found: ok, a warning (it works,
// with a caveat) or a failure, and for the last two how to fix it.
type finding struct {
	check  string
	status string // "ok", "warn" or "FAIL"
	detail string
	fix    string
}

// doctorCmd checks what Chaperone needs on this machine (the browser, its
// sandbox, fonts, the HTTP port; with --connect, the person's own browser
// instead of one it launches) and says how to fix each problem. It exits
// non-zero when a check fails.
func doctorCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "doctor", "doctor [flags]")
	bf := addBrowserFlags(fs)
	httpAddr := fs.String("http", "127.0.0.1:8931", "the `addr` serve --http would listen on, checked for being free")
	if _, err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	pool, err := bf.endpoints()
	if err != nil {
		return err
	}
	var findings []finding
	if len(pool) > 0 {
		opts, err := bf.options(slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		findings = append(findings, checkPool(ctx, opts, pool)...)
	} else if bf.connect != "" {
		// The person's own browser: Chaperone launches none, and does not
		// connect to theirs just to check (Chrome would ask them).
		findings = append(findings, checkConnect(ctx, bf.connect))
	} else {
		opts, err := bf.options(slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		findings = append(findings, checkBrowser(ctx, opts, e.getenv), checkSandbox(opts), checkConnect(ctx, ""))
	}
	findings = append(findings, checkFonts(), checkPort(*httpAddr))
	failed := 0
	for _, f := range findings {
		fmt.Fprintf(e.stdout, "%-4s  %-8s %s\n", f.status, f.check, f.detail)
		if f.fix != "" {
			fmt.Fprintf(e.stdout, "      %-8s fix: %s\n", "", f.fix)
		}
		if f.status == "FAIL" {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(findings))
	}
	fmt.Fprintln(e.stdout, "Everything Chaperone needs is here.")
	return nil
}

// checkBrowser finds the browser serve would use, launches it headless and
// has it render a page of the embedded demo site, as a session would.
func checkBrowser(ctx context.Context, opts browser.Options, getenv func(string) string) finding {
	f := finding{check: "browser"}
	if opts.CDPEndpoint == "" {
		path, err := browser.FindBinary(opts.Path)
		if err != nil {
			f.status, f.detail = "FAIL", err.Error()
			f.fix = "install Chromium (Debian/Ubuntu: apt-get install chromium; macOS: brew install --cask chromium) or point --browser-path or CHROME_PATH at Chrome or Chromium"
			if getenv("CHROME_PATH") != "" && opts.Path == "" {
				f.fix = "CHROME_PATH names no browser binary: correct it, or unset it to use the usual places"
			}
			return f
		}
		opts.Path = path
		f.detail = path
		if out, err := exec.CommandContext(ctx, path, "--version").Output(); err == nil {
			f.detail = fmt.Sprintf("%s (%s)", path, strings.TrimSpace(string(out)))
		}
	} else {
		f.detail = "the browser at " + browser.EndpointName(opts.CDPEndpoint)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	start := time.Now()
	if err := renderDemoPage(ctx, opts); err != nil {
		f.status = "FAIL"
		f.detail += ": " + err.Error()
		f.fix = "run it by hand with --headless=new --no-sandbox to see why; on a server install its libraries (apt-get install chromium pulls them in)"
		if opts.CDPEndpoint != "" {
			f.fix = "start the remote browser with --remote-debugging-port and make its endpoint reachable from here"
		}
		return f
	}
	f.status = "ok"
	f.detail += fmt.Sprintf(": launched and rendered a page in %d ms", time.Since(start).Milliseconds())
	return f
}

// checkPool connects to each endpoint of --browser-pool as serve would
// and renders a page there. An endpoint that is down or refuses is a
// warning, as serve retries it; none up is a failure.
func checkPool(ctx context.Context, opts browser.Options, pool []string) []finding {
	findings := make([]finding, len(pool))
	up := 0
	for i, e := range pool {
		f := finding{check: "pool", detail: browser.EndpointName(e)}
		o := opts
		o.CDPEndpoint = e
		c, cancel := context.WithTimeout(ctx, 60*time.Second)
		err := renderDemoPage(c, o)
		cancel()
		switch {
		case err == nil:
			f.status, f.detail = "ok", f.detail+": connected and rendered a page"
			up++
		default:
			f.status, f.detail = "warn", f.detail+": down: "+err.Error()
			f.fix = "serve marks it down and retries it with backoff; "
			switch {
			case errors.Is(err, browser.ErrEndpointRefused):
				f.fix += "give the service's token in the endpoint's query (browserless: ?token= with its TOKEN)"
			case errors.Is(err, browser.ErrEndpointFull):
				f.fix += "the service is at its session limit and its queue is full (browserless: CONCURRENT, QUEUED); each Chaperone holds one session of each endpoint"
			case errors.Is(err, browser.ErrEndpointNoAnswer):
				f.fix += "the service holds the connection, likely in its queue: raise its session limit (browserless: CONCURRENT)"
			default:
				f.fix += "start the browser with --remote-debugging-port, or the service, and make its endpoint reachable from here"
			}
		}
		findings[i] = f
	}
	if up == 0 {
		for i := range findings {
			findings[i].status = "FAIL"
		}
	}
	return findings
}

// renderDemoPage starts the browser opts describe, opens an isolated
// context and loads the demo site's account page from a loopback server.
func renderDemoPage(ctx context.Context, opts browser.Options) error {
	site, err := startDemoSite(slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer site.stop()
	b, err := browser.Launch(ctx, opts)
	if err != nil {
		return err
	}
	defer b.Close()
	tab, err := b.NewContext(ctx)
	if err != nil {
		return fmt.Errorf("open a page: %w", err)
	}
	defer tab.Close()
	if err := tab.Navigate(ctx, site.URL+"/account"); err != nil {
		return fmt.Errorf("load a page: %w", err)
	}
	if _, err := tab.Capture(ctx, browser.CaptureOptions{Screenshot: true}); err != nil {
		return fmt.Errorf("capture a page: %w", err)
	}
	return nil
}

// checkSandbox says whether Chromium's sandbox can run: as root it cannot,
// and Chaperone turns it off; elsewhere the kernel must allow the user
// namespaces it uses.
func checkSandbox(opts browser.Options) finding {
	f := finding{check: "sandbox"}
	switch {
	case runtime.GOOS != "linux":
		f.status, f.detail = "ok", "the browser's own sandbox ("+runtime.GOOS+")"
	case os.Geteuid() == 0:
		f.status, f.detail = "warn", "running as root, so Chromium runs without its sandbox (--no-sandbox)"
		f.fix = "run Chaperone as an ordinary user to keep the sandbox; in a container, as a non-root USER"
	case opts.NoSandbox:
		f.status, f.detail = "warn", "--no-sandbox turns Chromium's sandbox off"
		f.fix = "drop --no-sandbox unless the kernel forbids user namespaces"
	case userNamespacesOff():
		f.status, f.detail = "FAIL", "the kernel forbids unprivileged user namespaces, which Chromium's sandbox needs"
		f.fix = "sysctl -w kernel.unprivileged_userns_clone=1 (or user.max_user_namespaces > 0), or pass --no-sandbox"
	default:
		f.status, f.detail = "ok", "user namespaces are available to Chromium's sandbox"
	}
	return f
}

// userNamespacesOff reports whether the Linux kernel's settings forbid the
// unprivileged user namespaces Chromium's sandbox uses.
func userNamespacesOff() bool {
	for _, p := range []string{"/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces"} {
		if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) == "0" {
			return true
		}
	}
	return false
}

// checkFonts counts the fonts fontconfig knows: without any, pages render
// as boxes and screenshots show the agent nothing legible.
func checkFonts() finding {
	f := finding{check: "fonts"}
	if runtime.GOOS != "linux" {
		f.status, f.detail = "ok", "the system's fonts ("+runtime.GOOS+")"
		return f
	}
	out, err := exec.Command("fc-list").Output()
	if err != nil {
		f.status, f.detail = "warn", "fc-list is not there, so the fonts could not be counted"
		f.fix = "apt-get install fontconfig fonts-liberation"
		return f
	}
	n := strings.Count(string(out), "\n")
	if n == 0 {
		f.status, f.detail = "FAIL", "no fonts are installed: pages and screenshots would show boxes for text"
		f.fix = "apt-get install fonts-liberation (and fonts-noto-cjk for Chinese, Japanese and Korean pages)"
		return f
	}
	f.status, f.detail = "ok", fmt.Sprintf("%d fonts", n)
	return f
}

// checkPort sees whether serve --http could listen on addr.
func checkPort(addr string) finding {
	f := finding{check: "port"}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		f.status, f.detail = "FAIL", fmt.Sprintf("cannot listen on %s: %v", addr, unwrapOp(err))
		f.fix = "stop what uses it, or give serve --http (and doctor --http) another address"
		return f
	}
	l.Close()
	f.status, f.detail = "ok", addr+" is free for serve --http"
	return f
}

// unwrapOp drops the "listen tcp …:" prefix a net.OpError repeats.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}
