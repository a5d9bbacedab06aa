package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// The pool against a real browser service: browserless (the npm package
// @browserless.io/browserless, installed by scripts/ensure-browserless, run
// on Debian's Chromium) beside a plain Chromium.

var (
	browserlessOnce sync.Once
	browserlessDir  string
	browserlessErr  error
)

// browserlessInstall installs browserless (once per test binary, cached
// under $HOME between runs) and returns its directory.
func browserlessInstall(t *testing.T) string {
	t.Helper()
	browserlessOnce.Do(func() {
		out, err := exec.Command(filepath.Join("..", "..", "scripts", "ensure-browserless")).Output()
		browserlessDir, browserlessErr = strings.TrimSpace(string(out)), err
		if ee, ok := err.(*exec.ExitError); ok {
			browserlessErr = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
	})
	if browserlessErr != nil {
		t.Fatalf("scripts/ensure-browserless: %v", browserlessErr)
	}
	return browserlessDir
}

// browserless is one running browserless instance.
type browserless struct {
	port  int
	token string
	cmd   *exec.Cmd
	tmp   string // its TMPDIR, which its browsers' profiles are under
	done  chan struct{}
}

// startBrowserless starts a browserless instance on a loopback port with
// its token, concurrency limit, queue and session timeout (ms), stopped
// when the test ends.
func startBrowserless(t *testing.T, token string, concurrent, queued, timeoutMS int) *browserless {
	t.Helper()
	dir := browserlessInstall(t)
	port := browsertest.FreePort(t)
	// The browsers it launches run detached from it (their own process
	// groups); their profiles under a temporary directory of its own find
	// them for kill.
	tmp := t.TempDir()
	cmd := exec.Command(filepath.Join(dir, "node_modules", "node", "bin", "node"), filepath.Join(dir, "serve.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PLAYWRIGHT_BROWSERS_PATH="+filepath.Join(dir, "browsers"), "TMPDIR="+tmp,
		"HOST=127.0.0.1", fmt.Sprintf("PORT=%d", port), "TOKEN="+token,
		fmt.Sprintf("CONCURRENT=%d", concurrent), fmt.Sprintf("QUEUED=%d", queued),
		fmt.Sprintf("TIMEOUT=%d", timeoutMS), "DEBUG=browserless*,-*:trace,-*:debug")
	// Its own process group, so that a kill takes its browsers with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bl := &browserless{port: port, token: token, cmd: cmd, tmp: tmp, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
			if strings.HasPrefix(sc.Text(), "browserless listening on") {
				close(ready)
			}
		}
	}()
	go func() {
		cmd.Wait()
		close(bl.done)
	}()
	t.Cleanup(func() {
		stdin.Close()
		bl.kill()
		if t.Failed() {
			t.Logf("browserless on %d:\n%s", port, log.String())
		}
	})
	select {
	case <-ready:
	case <-bl.done:
		t.Fatalf("browserless exited before listening:\n%s", log.String())
	case <-time.After(90 * time.Second):
		t.Fatalf("browserless did not listen within 90 s:\n%s", log.String())
	}
	return bl
}

// kill ends the instance and the browsers it launched at once, as a lost
// machine would.
func (b *browserless) kill() {
	syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	<-b.done
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmdline), b.tmp) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(p, "/proc/%d/cmdline", &pid); err != nil {
			continue
		}
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid > 1 {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// endpoint is the instance's address as an operator writes it: scheme,
// host and the query with the token (and, for its browsers, the flags a
// closed network needs).
func (b *browserless) endpoint(scheme, host, token string) string {
	launch := `{"args":["--disable-background-networking","--disable-component-update","--no-first-run"]}`
	q := url.Values{"token": {token}, "launch": {launch}}
	return fmt.Sprintf("%s://%s:%d/?%s", scheme, host, b.port, q.Encode())
}

// poolSnapshot calls get_snapshot and returns the page's URL, or, for a
// result that is a failure (a move: no snapshot fits get_snapshot's
// schema), its text.
func poolSnapshot(t *testing.T, c *client.Client) (url, failure string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.GetSnapshot
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("get_snapshot: %v", err)
	}
	if res.IsError {
		return "", textOf(t, res)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Page struct {
			URL string `json:"url"`
		} `json:"page"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r.Page.URL, ""
}

// placed counts the sessions the server's log says it placed on each
// endpoint (by port).
func placed(stderr string) map[string]int {
	re := regexp.MustCompile(`msg="browser pool: session placed" endpoint=\S+://[^:\s]+:(\d+)`)
	on := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(stderr, -1) {
		on[m[1]]++
	}
	return on
}

// TestBrowserlessPool runs the pool on two browserless instances, each with
// its token, concurrency limit and queue, and a plain Chromium: the
// endpoints are named as operators write them (ws:// and http://, with
// ?token= and launch options), the demo flow runs on every session,
// sessions spread over every endpoint that is up; an entry with a wrong
// token and one that finds its instance full are marked down with the
// reason and do not stop the server; a killed instance's sessions move and
// the others go on undisturbed.
func TestBrowserlessPool(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	a := startBrowserless(t, "token-a", 4, 2, 600000)
	// One session and no queue: the pool's second entry for it finds it
	// full.
	b := startBrowserless(t, "token-b", 1, 0, 600000)
	c := browsertest.StartChromium(t, 0)
	cPort := strings.TrimPrefix(c.HTTP, "http://127.0.0.1:")
	aPort, bPort := fmt.Sprint(a.port), fmt.Sprint(b.port)

	pool := []string{
		a.endpoint("ws", "127.0.0.1", a.token),
		a.endpoint("http", "127.0.0.1", "not-the-token"),
		b.endpoint("http", "127.0.0.1", b.token),
		b.endpoint("ws", "localhost", b.token),
		c.HTTP,
	}
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken},
		"serve", "--http", "127.0.0.1:0", "--url", site.URL+"/", "--profile", "none",
		"--browser-pool", strings.Join(pool, ","))

	// The refusals are logged with their reasons, and without the tokens.
	waitLog(t, p, regexp.MustCompile(`msg="browser pool: endpoint down" endpoint=http://127\.0\.0\.1:`+aPort+` reason="[^"]*refused[^"]*401`))
	waitLog(t, p, regexp.MustCompile(`msg="browser pool: endpoint down" endpoint=\S+:`+bPort+` reason="[^"]*full[^"]*429`))
	for _, secret := range []string{a.token, b.token, "not-the-token"} {
		if strings.Contains(p.stderr.String(), secret) {
			t.Errorf("the server's log shows a token (%s)", secret)
		}
	}

	const n = 6
	clients := make([]*client.Client, n)
	for i := range clients {
		clients[i] = servertest.Connect(t, servertest.Streamable, p.base, testToken)
	}
	// The demo flow on every session at once: home, Account, Cancel
	// Membership.
	var wg sync.WaitGroup
	for i, cl := range clients {
		wg.Go(func() {
			s := getSnapshot(t, cl)
			_, s = click(t, cl, browsertest.Ref(t, s, "link", "Account"))
			if !strings.HasSuffix(s.Page.URL, "/account") {
				t.Errorf("client %d: after Account the page is %s", i, s.Page.URL)
				return
			}
			_, s = click(t, cl, browsertest.Ref(t, s, "button", "Cancel Membership"))
			if !strings.HasSuffix(s.Page.URL, "/retention") {
				t.Errorf("client %d: after Cancel Membership the page is %s", i, s.Page.URL)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	on := placed(p.stderr.String())
	if on[aPort]+on[bPort]+on[cPort] != n || on[aPort] == 0 || on[bPort] == 0 || on[cPort] == 0 {
		t.Fatalf("%d sessions on browserless %s, browserless %s and Chromium %s: placed %v", n, aPort, bPort, cPort, on)
	}

	// A dies: its sessions move on their next call and say so; the
	// others answer as before.
	a.kill()
	moved := 0
	for i, cl := range clients {
		_, failure := poolSnapshot(t, cl)
		if failure == "" {
			continue
		}
		moved++
		for _, want := range []string{"action_failed", "ws://127.0.0.1:" + aPort + " went away", "moved to the browser at", "/retention and has been reopened"} {
			if !strings.Contains(failure, want) {
				t.Errorf("client %d moved with %q, which lacks %q", i, failure, want)
			}
		}
		if strings.Contains(failure, ":"+aPort+", in a fresh") {
			t.Errorf("client %d moved to the dead instance: %q", i, failure)
		}
	}
	if moved != on[aPort] {
		t.Errorf("%d sessions moved; %d were on the killed instance", moved, on[aPort])
	}
	// Every session goes on where it was, the moved ones included.
	for i, cl := range clients {
		if url, failure := poolSnapshot(t, cl); failure != "" || !strings.HasSuffix(url, "/retention") {
			t.Errorf("client %d after the kill: %s %q", i, url, failure)
		}
	}
	// The server serves on: a new session opens on what is left.
	before := placed(p.stderr.String())
	late := servertest.Connect(t, servertest.Streamable, p.base, testToken)
	if url, failure := poolSnapshot(t, late); failure != "" || !strings.HasPrefix(url, site.URL) {
		t.Errorf("a new session after the kill: %s %q", url, failure)
	}
	if after := placed(p.stderr.String()); after[aPort] != before[aPort] {
		t.Errorf("a new session went to the killed instance: %v", after)
	}
}

// TestBrowserlessAlone is the pool as the new user ran it: one
// browserless endpoint with its token in the query works from the first
// call; one whose token is wrong is marked down with the reason, each call
// says why no browser is up, and the server serves on. doctor says which
// endpoint is up and why the other is not.
func TestBrowserlessAlone(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	bl := startBrowserless(t, "token-alone", 2, 0, 600000)
	t.Run("doctor", func(t *testing.T) {
		right := fmt.Sprintf("ws://127.0.0.1:%d/?token=%s", bl.port, bl.token)
		wrong := fmt.Sprintf("http://127.0.0.1:%d/?token=wrong-%s", bl.port, bl.token)
		code, stdout, stderr := runBinary(t, nil, "doctor", "--http", "127.0.0.1:0", "--browser-pool", wrong+","+right)
		out := stdout + stderr
		for _, want := range []string{
			fmt.Sprintf(`(?m)^warn\s+pool\s+http://127\.0\.0\.1:%d: down: .*refused.*401`, bl.port),
			`(?m)^\s+fix: serve marks it down and retries it with backoff; give the service's token`,
			fmt.Sprintf(`(?m)^ok\s+pool\s+ws://127\.0\.0\.1:%d: connected and rendered a page`, bl.port),
		} {
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("doctor (exit %d) lacks %s:\n%s", code, want, out)
			}
		}
		if strings.Contains(out, bl.token) {
			t.Errorf("doctor shows the token:\n%s", out)
		}
	})
	for _, tc := range []struct {
		name, token string
		ok          bool
	}{
		{"its token", bl.token, true},
		{"a wrong token", "not-" + bl.token, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoint := fmt.Sprintf("ws://127.0.0.1:%d/?token=%s", bl.port, tc.token)
			p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken},
				"serve", "--http", "127.0.0.1:0", "--url", site.URL+"/", "--profile", "none", "--browser-pool", endpoint)
			defer p.stop(t)
			for range 2 {
				cl := servertest.Connect(t, servertest.Streamable, p.base, testToken)
				url, failure := poolSnapshot(t, cl)
				if tc.ok && (failure != "" || !strings.HasPrefix(url, site.URL)) {
					t.Fatalf("the first call: %s %q", url, failure)
				}
				if !tc.ok {
					for _, want := range []string{"no browser is up", "refused", "401"} {
						if !strings.Contains(failure, want) {
							t.Errorf("a call with no endpoint up answered %q, which lacks %q", failure, want)
						}
					}
					if strings.Contains(failure, tc.token) {
						t.Errorf("the answer shows the token: %q", failure)
					}
				}
				cl.Close()
			}
			select {
			case <-p.exited:
				t.Fatalf("the server stopped: %v", p.err)
			default:
			}
			if !tc.ok {
				waitLog(t, p, regexp.MustCompile(`msg="browser pool: endpoint down" endpoint=ws://127\.0\.0\.1:\d+ reason="[^"]*refused[^"]*401`))
			}
			if strings.Contains(p.stderr.String(), tc.token) {
				t.Error("the server's log shows the token")
			}
		})
	}
}

// TestBrowserlessSessionTimeout: browserless ends a session at its own
// timeout (TIMEOUT); the pool does not fight it: the agent's next call
// answers with a typed error that says the browser went away and the
// session moved, and the session goes on, on the other endpoint.
func TestBrowserlessSessionTimeout(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	bl := startBrowserless(t, "token-timeout", 2, 0, 20000)
	c := browsertest.StartChromium(t, 0)
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken},
		"serve", "--http", "127.0.0.1:0", "--url", site.URL+"/", "--profile", "none",
		"--browser-pool", bl.endpoint("ws", "127.0.0.1", bl.token)+","+c.HTTP)
	cl := servertest.Connect(t, servertest.Streamable, p.base, testToken)
	s := getSnapshot(t, cl)
	_, s = click(t, cl, browsertest.Ref(t, s, "link", "Account"))
	if on := placed(p.stderr.String()); on[fmt.Sprint(bl.port)] != 1 {
		t.Fatalf("the session did not open on browserless (the first endpoint, least loaded): %v", on)
	}
	// Until browserless's timeout ends the session; bounded by the test's
	// own deadline.
	var failure string
	for failure == "" {
		select {
		case <-t.Context().Done():
			t.Fatal("browserless never ended the session")
		case <-time.After(time.Second):
		}
		var url string
		url, failure = poolSnapshot(t, cl)
		if failure == "" && !strings.HasSuffix(url, "/account") {
			t.Fatalf("the session's page changed: %s", url)
		}
	}
	for _, want := range []string{"action_failed", fmt.Sprintf("ws://127.0.0.1:%d went away", bl.port), "moved to the browser at " + c.HTTP, "/account and has been reopened"} {
		if !strings.Contains(failure, want) {
			t.Errorf("the call after browserless's timeout answered %q, which lacks %q", failure, want)
		}
	}
	if url, failure := poolSnapshot(t, cl); failure != "" || !strings.HasSuffix(url, "/account") {
		t.Errorf("after the move: %s %q", url, failure)
	}
	waitLog(t, p, regexp.MustCompile(`msg="browser pool: endpoint down" endpoint=ws://127\.0\.0\.1:\d+ reason="[^"]*connection to its browser was lost`))
}
