package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// personsTabs lists the URLs of the page targets of the person's browser,
// as its DevTools HTTP endpoint reports them: the tabs the person sees.
func personsTabs(t *testing.T, pb *browsertest.PersonsBrowser) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pb.HTTP+"/json/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the person's browser does not answer: %v", err)
	}
	defer res.Body.Close()
	var targets []struct {
		Type, URL string
	}
	if err := json.NewDecoder(res.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, tg := range targets {
		if tg.Type == "page" {
			urls = append(urls, tg.URL)
		}
	}
	return urls
}

// checkPersonsBrowserLives fails the test unless the person's browser still
// runs, answers, and still shows the person's own tab at tab.
func checkPersonsBrowserLives(t *testing.T, pb *browsertest.PersonsBrowser, tab string) {
	t.Helper()
	if !browsertest.Running(pb.Cmd.Process.Pid) {
		t.Fatal("the person's browser is no longer running")
	}
	if tabs := personsTabs(t, pb); !slices.Contains(tabs, tab) {
		t.Errorf("the person's tab %s is gone; the browser shows %v", tab, tabs)
	}
}

// callEnded calls a tool and fails the test unless it answers, to the
// agent as to a program, that the person's browser was closed and the
// session has ended. (get_snapshot's answer then is no snapshot, so it is
// an error result whose text says so.)
func callEnded(t *testing.T, c *client.Client, name string, args map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	const ended = "The person's browser was closed"
	if text := textOf(t, res); !strings.Contains(text, ended) || !strings.Contains(text, string(toolapi.ActionFailed)) {
		t.Errorf("%s after the person closed their browser answers:\n%s\nwant action_failed: %s…", name, text, ended)
	}
	if res.StructuredContent == nil {
		return
	}
	data, _ := json.Marshal(res.StructuredContent)
	var r actionResult
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, ended) {
		t.Errorf("%s after the person closed their browser: success %v error %v %q; want the session ended", name, r.Success, r.Error, r.Message)
	}
}

// waitExit closes the client, which waits for the server process, and
// fails the test unless the process has ended.
func waitExit(t *testing.T, c *client.Client, pid int) {
	t.Helper()
	c.Close()
	for i := 0; browsertest.Running(pid); i++ {
		if i == 600 {
			t.Fatal("chaperone serve did not exit after its client closed")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestConnectAutoFindsPersonsBrowser is issue 28's attach, end to end
// through the built binary: a Chromium started as the person's browser
// (its default profile in a home directory of its own, remote debugging
// on) is found by `serve --connect auto` over stdio, where navigate and a
// snapshot work on a fixture page; when the session ends and serve exits,
// the person's browser still runs, with the person's own tab as it was.
func TestConnectAutoFindsPersonsBrowser(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	persons := site.URL + "/help"
	pb := browsertest.StartPersonsBrowser(t, persons)

	c, cmd, stderr := stdioClient(t, pb.Env(), "serve", "--connect", "auto", "--profile", "none", "--log-level", "info")
	r, snap := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/account"})
	if !r.Success || !strings.HasSuffix(snap.Page.URL, "/account") {
		t.Fatalf("navigate in the person's browser: %+v at %s", r, snap.Page.URL)
	}
	if s := getSnapshot(t, c); !strings.Contains(s.Render(), "Cancel Membership") {
		t.Errorf("the snapshot does not show the account page:\n%s", s.Render())
	}
	if !regexp.MustCompile(`found the person's browser.* browser=Chromium .*port=\d+`).MatchString(stderr.String()) {
		t.Errorf("serve did not log which browser it found:\n%s", stderr.String())
	}
	checkPersonsBrowserLives(t, pb, persons)

	waitExit(t, c, cmd.Process.Pid)
	checkPersonsBrowserLives(t, pb, persons)
}

// Closing the person's browser ends the session cleanly: each later call
// answers at once that the person's browser was closed and the session is
// over, the server stays up to say so, and nothing reconnects or starts a
// browser of its own. The same with auto and with the endpoint given.
func TestPersonsBrowserClosedEndsSession(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	for _, how := range []string{"auto", "endpoint"} {
		t.Run(how, func(t *testing.T) {
			pb := browsertest.StartPersonsBrowser(t)
			connect := "auto"
			if how == "endpoint" {
				connect = pb.WebSocket
			}
			c, cmd, _ := stdioClient(t, pb.Env(), "serve", "--connect", connect, "--profile", "none")
			if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/account"}); !r.Success {
				t.Fatalf("navigate: %+v", r)
			}
			pb.Kill()
			for _, name := range []string{toolapi.GetSnapshot, toolapi.Navigate, toolapi.GetSnapshot} {
				var args map[string]any
				if name == toolapi.Navigate {
					args = map[string]any{"url": site.URL + "/help"}
				}
				callEnded(t, c, name, args)
			}
			if !browsertest.Running(cmd.Process.Pid) {
				t.Error("serve exited when the person's browser closed")
			}
			// It launched no browser of its own in its place.
			if kids := browsertest.Descendants(t, cmd.Process.Pid); len(kids) > 0 {
				t.Errorf("serve runs processes of its own: %v", kids)
			}
		})
	}
}

// TestConnectRefusals: --connect auto with no browser of the person's says
// what to turn on and where it looked, for every command that takes the
// browser flags; a stale DevToolsActivePort (a browser that crashed) is
// named as such and never connected to; --connect does not go with
// --browser-pool.
func TestConnectRefusals(t *testing.T) {
	t.Parallel()
	empty, err := os.MkdirTemp("", "chaperone-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(empty) })
	homeEnv := func(home string) []string {
		return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ANTHROPIC_API_KEY=sk-test-unused", "CHAPERONE_CDP_ENDPOINT="}
	}
	stale := t.TempDir()
	dir := filepath.Join(stale, ".config", "google-chrome")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	port := browsertest.FreePort(t)
	if err := os.WriteFile(filepath.Join(dir, "DevToolsActivePort"), fmt.Appendf(nil, "%d\n/devtools/browser/0f0f0f0f-1111-2222-3333-444444444444\n", port), 0o600); err != nil {
		t.Fatal(err)
	}
	nothing := []string{
		"found no running Chrome, Chromium or Edge of yours that allows remote debugging",
		"Google Chrome: " + filepath.Join(empty, ".config", "google-chrome"),
		"Chromium: " + filepath.Join(empty, ".config", "chromium"),
		"chrome://inspect/#remote-debugging",
		"allow the connection",
		"--remote-debugging-port",
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"serve, nothing running", homeEnv(empty), []string{"serve", "--connect", "auto"}, nothing},
		{"run, nothing running", homeEnv(empty), []string{"run", "--goal", "look", "--url", "http://127.0.0.1:1/", "--connect", "auto"}, nothing},
		{"demo, nothing running", homeEnv(empty), []string{"demo", "--connect", "auto"}, nothing},
		{"from the environment", append(homeEnv(empty), "CHAPERONE_CONNECT=auto"), []string{"serve"}, nothing},
		{"a stale file", homeEnv(stale), []string{"serve", "--connect", "auto"}, []string{
			fmt.Sprintf("Google Chrome: %s (stale: nothing answers on its port %d", dir, port),
			"chrome://inspect/#remote-debugging",
		}},
		{"with --browser-pool", homeEnv(empty), []string{"serve", "--connect", "auto", "--browser-pool", "ws://127.0.0.1:1/devtools/browser/x"}, []string{"--connect cannot be combined with", "--browser-pool"}},
		{"not an endpoint", homeEnv(empty), []string{"serve", "--connect", "chrome"}, []string{`want auto, or the browser's DevTools endpoint`}},
		{"login, which would copy the person's cookies", homeEnv(empty), []string{"login", "http://127.0.0.1:1/", "--save", filepath.Join(empty, "state.json"), "--connect", "auto"}, []string{"your own browser is signed in already"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runBinary(t, tc.env, tc.args...)
			if code == 0 {
				t.Fatalf("it did not refuse:\n%s", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "serving") {
				t.Errorf("it started serving before refusing:\n%s", stderr)
			}
		})
	}
}

// TestDoctorConnect: doctor --connect auto finds the person's browser
// without connecting to it, fails with the fix when there is none, and
// plain doctor says what auto would find without failing for it.
func TestDoctorConnect(t *testing.T) {
	t.Parallel()
	pb := browsertest.StartPersonsBrowser(t)
	empty, err := os.MkdirTemp("", "chaperone-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(empty) })
	free := fmt.Sprintf("127.0.0.1:%d", browsertest.FreePort(t))
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		ok   bool
		want []string
	}{
		{"found", pb.Env(), []string{"--connect", "auto"}, true, []string{
			`(?m)^ok\s+connect\s+--connect auto finds Chromium \(\S*Chrom\S*\), profile ` + regexp.QuoteMeta(pb.Profile) + `, answering on port \d+`,
		}},
		{"the endpoint given", pb.Env(), []string{"--connect", pb.WebSocket}, true, []string{`(?m)^ok\s+connect\s+the browser at `}},
		{"none", []string{"HOME=" + empty, "XDG_CONFIG_HOME="}, []string{"--connect", "auto"}, false, []string{
			`(?m)^FAIL\s+connect\s+--connect auto: found no running Chrome`,
			`(?m)^\s+fix: in Chrome 144 or later open chrome://inspect/#remote-debugging`,
		}},
		{"without --connect", []string{"HOME=" + empty, "XDG_CONFIG_HOME="}, nil, true, []string{`(?m)^ok\s+connect\s+--connect auto would find no browser of yours`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, tc.env, append([]string{"doctor", "--http", free}, tc.args...)...)
			if (code == 0) != tc.ok {
				t.Errorf("doctor exited %d, want success %v\n%s%s", code, tc.ok, stdout, stderr)
			}
			for _, p := range tc.want {
				if !regexp.MustCompile(p).MatchString(stdout) {
					t.Errorf("doctor's output lacks %s:\n%s", p, stdout)
				}
			}
			if strings.Contains(stdout, "launched and rendered") && len(tc.args) > 0 {
				t.Errorf("doctor --connect launched a browser of its own:\n%s", stdout)
			}
		})
	}
}

// TestAccountChangeAsksInPersonsBrowser: in the person's own browser, the
// default policy's account-change rule asks before a form that edits the
// account's email in other words ("Where should we reach you?", "Done")
// is sent; rejected, the form never reaches the site. The sign-in form on
// the same page is not an account change.
func TestAccountChangeAsksInPersonsBrowser(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	pb := browsertest.StartPersonsBrowser(t)
	page := site.URL + "/hostile/reach-you"
	c, host, _ := webhookServe(t, "--url", page, "--connect", pb.WebSocket)
	s := getSnapshot(t, c)
	if r, _ := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Where should we reach you?"), "value": "eve@evil.example"}); !r.Success {
		t.Fatalf("fill: %s", r.Message)
	}
	s = getSnapshot(t, c)
	host.decisions <- map[string]any{"approved": false, "feedback": "that is not my address"}
	r, _ := click(t, c, browsertest.Ref(t, s, "button", "Done"))
	asked := host.asked(t)
	if asked.Reason == "" || !strings.Contains(asked.Reason+asked.Prompt+strings.Join(asked.Lines, "\n"), "account-change") {
		t.Errorf("the person is not told the rule: reason %q prompt %q lines %q", asked.Reason, asked.Prompt, asked.Lines)
	}
	if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
		t.Fatalf("the rejected submit: success %v error %v %q", r.Success, r.Error, r.Message)
	}
	if site.saw("evil.example") {
		t.Error("the form reached the site after the person rejected it")
	}

	// A sign-in's submit is no account change: it goes without asking.
	for _, f := range [][2]string{{"Email", "member@example.com"}, {"Password", "hunter2"}} {
		s = getSnapshot(t, c)
		if r, _ := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", f[0]), "value": f[1]}); !r.Success {
			t.Fatalf("fill %s: %s", f[0], r.Message)
		}
	}
	s = getSnapshot(t, c)
	if r, _ := click(t, c, browsertest.Ref(t, s, "button", "Sign in")); !r.Success {
		t.Fatalf("sign in: %s", r.Message)
	}
	host.notAsked(t)
	if !site.saw("member%40example.com") {
		t.Error("the sign-in form did not reach the site")
	}
}

// A browser of the person's that crashed leaves its DevToolsActivePort
// behind: --connect auto says the file is stale and connects to nothing.
func TestConnectAutoAfterACrash(t *testing.T) {
	t.Parallel()
	pb := browsertest.StartPersonsBrowser(t)
	pb.Kill()
	if _, err := os.Stat(filepath.Join(pb.Profile, "DevToolsActivePort")); err != nil {
		t.Fatalf("the crashed browser left no DevToolsActivePort: %v", err)
	}
	code, _, stderr := runBinary(t, pb.Env(), "serve", "--connect", "auto")
	want := "Chromium: " + pb.Profile + " (stale: nothing answers on its port"
	if code == 0 || !strings.Contains(stderr, want) || strings.Contains(stderr, "serving") {
		t.Errorf("exit %d, stderr:\n%s\nwant a refusal saying %q", code, stderr, want)
	}
}

// Over HTTP, once the person closed their browser, the open session's calls
// say it has ended, and a client that connects afterwards is told why it
// gets no browser; the server itself stays up.
func TestPersonsBrowserClosedOverHTTP(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	pb := browsertest.StartPersonsBrowser(t)
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken},
		"serve", "--http", "127.0.0.1:0", "--connect", pb.WebSocket, "--url", site.URL+"/account", "--profile", "none")
	a := servertest.Connect(t, servertest.Streamable, p.base, testToken)
	getSnapshot(t, a)
	pb.Kill()
	callEnded(t, a, toolapi.GetSnapshot, nil)

	b := servertest.Connect(t, servertest.Streamable, p.base, testToken)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.GetSnapshot
	res, err := b.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("a new client's call: %v", err)
	}
	if text := textOf(t, res); !res.IsError || !strings.Contains(text, "the person's browser was closed") {
		t.Errorf("a new client's call after the person closed their browser answers (error %v):\n%s", res.IsError, text)
	}
	if code, _ := httpGet(t, p.base+"/healthz", nil); code != http.StatusOK {
		t.Errorf("/healthz answers %d once the person's browser is closed", code)
	}
}
