package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// checkToolsList checks that tools/list shows exactly the default tools,
// with the schemas and descriptions of their definitions.
func checkToolsList(t *testing.T, c *client.Client) {
	t.Helper()
	checkToolsListFor(t, c, nil)
}

// checkToolsListFor is checkToolsList for a server started with --caps caps.
func checkToolsListFor(t *testing.T, c *client.Client, caps []string) {
	t.Helper()
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := tools.DefinitionsFor(caps)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(defs) {
		t.Fatalf("tools/list has %d tools, want %d", len(list.Tools), len(defs))
	}
	for i, d := range defs {
		got := list.Tools[i]
		for _, tool := range list.Tools {
			if tool.Name == d.Name {
				got = tool
			}
		}
		if got.Name != d.Name {
			t.Errorf("tools/list lacks %s", d.Name)
			continue
		}
		if got.Description != d.Description {
			t.Errorf("%s: description differs from its definition", d.Name)
		}
		for _, part := range []string{"a delta keeps every ref not listed gone", "When:", "Patterns:", "Errors:", "Example:"} {
			if !strings.Contains(got.Description, part) {
				t.Errorf("%s: description lacks %q", d.Name, part)
			}
		}
		schema, _ := json.Marshal(got.InputSchema)
		var want, have map[string]any
		json.Unmarshal(d.InputSchema, &want)
		json.Unmarshal(schema, &have)
		if len(have["properties"].(map[string]any)) != len(want["properties"].(map[string]any)) {
			t.Errorf("%s: input schema %s, want %s", d.Name, schema, d.InputSchema)
		}
		if got.Annotations.ReadOnlyHint == nil || *got.Annotations.ReadOnlyHint != d.ReadOnly {
			t.Errorf("%s: readOnlyHint %v, want %v", d.Name, got.Annotations.ReadOnlyHint, d.ReadOnly)
		}
	}
}

// checkDemoFlow takes a snapshot of the demo account page and clicks
// "Cancel Membership": the page moves to the retention offer. The server
// must run with --profile none: the default policy asks a person before
// cancelling a membership, and these tests are about transports.
func checkDemoFlow(t *testing.T, c *client.Client) {
	t.Helper()
	s := getSnapshot(t, c)
	if !strings.HasSuffix(s.Page.URL, "/account") {
		t.Fatalf("the session starts at %s, want the demo account page", s.Page.URL)
	}
	r, next := click(t, c, browsertest.Ref(t, s, "button", "Cancel Membership"))
	if !r.Success || r.Error != nil {
		t.Fatalf("click Cancel Membership: success %v, error %v, message %q", r.Success, r.Error, r.Message)
	}
	if !strings.HasSuffix(next.Page.URL, "/retention") {
		t.Fatalf("after the click the page is %s, want /retention", next.Page.URL)
	}
}

func TestStdio(t *testing.T) {
	t.Parallel()
	c, _, _ := stdioClient(t, nil, "serve", "--profile", "none", "--log-level", "debug")
	checkToolsList(t, c)
	checkDemoFlow(t, c)
}

func TestHTTPTransports(t *testing.T) {
	t.Parallel()
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken}, "serve", "--http", "127.0.0.1:0", "--profile", "none", "--log-level", "debug")
	for _, kind := range []string{servertest.Streamable, servertest.SSE} {
		t.Run(kind, func(t *testing.T) {
			c := servertest.Connect(t, kind, p.base, testToken)
			checkToolsList(t, c)
			checkDemoFlow(t, c)
		})
	}
	t.Run("tools/list size", func(t *testing.T) { measureToolsList(t, p.base) })
}

// measureToolsList reports the size of the tools/list result on the wire,
// in tokens estimated as characters/4.
func measureToolsList(t *testing.T, base string) {
	post := func(session, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+testToken)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, _ := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+mcp.LATEST_LEGACY_PROTOCOL_VERSION+`","capabilities":{},"clientInfo":{"name":"measure","version":"1"}}}`)
	session := res.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize over streamable HTTP gave no Mcp-Session-Id (status %d)", res.StatusCode)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, body := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || len(msg.Result) == 0 {
		t.Fatalf("tools/list: %v: %.200s", err, body)
	}
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatalf("load cl100k: %v", err)
	}
	tokens := len(enc.Encode(string(msg.Result), nil, nil))
	t.Logf("tools/list result: %d characters, %d cl100k tokens", len(msg.Result), tokens)
	if tokens > 3400 {
		t.Errorf("tools/list is %d tokens, want ≤ 3,400", tokens)
	}
}

// TestTwoHTTPClients runs two clients at once on one server: each has its
// own browser context, their calls interleave without interference, and
// closing one closes only its context.
func TestTwoHTTPClients(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken},
		"serve", "--http", "127.0.0.1:0", "--url", site.URL+"/variants/cookies", "--profile", "none", "--log-level", "debug")
	a := servertest.Connect(t, servertest.Streamable, p.base, testToken)
	b := servertest.Connect(t, servertest.Streamable, p.base, testToken)

	// A sets a cookie on its page; B, opened after, does not see it.
	sa := getSnapshot(t, a)
	ra, after := click(t, a, browsertest.Ref(t, sa, "button", "Set cookie"))
	if !ra.Success || !strings.Contains(after.Text, "client=anonymous") {
		t.Fatalf("client A's cookie was not set: %+v\ntext: %s", ra, after.Text)
	}
	sb := getSnapshot(t, b)
	if !strings.Contains(sb.Text, "document.cookie") {
		t.Fatalf("client B's page text lacks the cookie line: %q", sb.Text)
	}
	if strings.Contains(sb.Text, "client=") {
		t.Fatalf("client B sees client A's cookie: %q", sb.Text)
	}

	// A walks to the demo flow while B keeps looking at its page.
	var wg sync.WaitGroup
	wg.Go(func() {
		s := getSnapshot(t, a)
		_, s = click(t, a, browsertest.Ref(t, s, "link", "Account"))
		if !strings.HasSuffix(s.Page.URL, "/account") {
			t.Errorf("client A: after clicking Account the page is %s", s.Page.URL)
			return
		}
		_, s = click(t, a, browsertest.Ref(t, s, "button", "Cancel Membership"))
		if !strings.HasSuffix(s.Page.URL, "/retention") {
			t.Errorf("client A: after Cancel Membership the page is %s", s.Page.URL)
		}
	})
	wg.Go(func() {
		for range 6 {
			s := getSnapshot(t, b)
			if !strings.Contains(s.Page.URL, "/variants/cookies") || strings.Contains(s.Text, "client=") {
				t.Errorf("client B's page changed under it: %s, %q", s.Page.URL, s.Text)
				return
			}
		}
	})
	wg.Wait()

	// Closing A closes A's browser session only.
	idA := a.GetSessionId()
	a.Close()
	closed := regexp.MustCompile(`msg="browser session closed" client=client1 mcp_session=` + regexp.QuoteMeta(server.ShortID(idA)))
	deadline := time.Now().Add(10 * time.Second)
	for !closed.MatchString(p.stderr.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("client A's browser session was not closed when it disconnected")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if strings.Contains(p.stderr.String(), "mcp_session="+server.ShortID(b.GetSessionId())+" why=") {
		t.Fatal("client B's session was closed with client A's")
	}
	if s := getSnapshot(t, b); !strings.Contains(s.Page.URL, "/variants/cookies") {
		t.Errorf("client B after A left: page %s", s.Page.URL)
	}
}

func httpGet(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	return res.StatusCode, string(b)
}

func TestHTTPSecurity(t *testing.T) {
	t.Parallel()
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken}, "serve", "--http", "127.0.0.1:0")
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	for _, c := range []struct {
		name   string
		path   string
		header map[string]string
		want   int
	}{
		{"foreign Host", "/mcp", map[string]string{"Host": "evil.example", "Authorization": "Bearer " + testToken}, 403},
		{"foreign Host on SSE", "/sse", map[string]string{"Host": "rebind.attacker.test:8931"}, 403},
		{"foreign Origin", "/mcp", map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer " + testToken}, 403},
		{"no token", "/mcp", nil, 401},
		{"no token on SSE", "/sse", nil, 401},
		{"wrong token", "/mcp", map[string]string{"Authorization": "Bearer not-the-token-0123456789"}, 401},
		{"health without token", "/healthz", nil, 200},
		{"token", "/healthz", auth, 200},
	} {
		if got, body := httpGet(t, p.base+c.path, c.header); got != c.want {
			t.Errorf("%s: GET %s: %d %q, want %d", c.name, c.path, got, body, c.want)
		}
	}
}

// run runs the binary to its end and returns its exit code and output.
func runBinary(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"beyond loopback without a token", nil, []string{"serve", "--http", "0.0.0.0:0"}, "refusing to listen on 0.0.0.0:0 without a token"},
		{"a short token", []string{"CHAPERONE_TOKEN=short"}, []string{"serve", "--http", "0.0.0.0:0"}, "at least 16"},
		{"file: start URL", nil, []string{"serve", "--url", "file:///etc/passwd"}, `--url: URL "file:///etc/passwd" refused: scheme "file" is not allowed`},
		{"chrome: start URL", nil, []string{"serve", "--url", "chrome://settings"}, `scheme "chrome" is not allowed`},
		{"file: snapshot", nil, []string{"snapshot", "file:///etc/passwd"}, `scheme "file" is not allowed`},
		{"bad viewport", nil, []string{"serve", "--viewport", "huge"}, "--viewport"},
		{"unknown capability", nil, []string{"serve", "--caps", "wait,teleport"}, `--caps: unknown capability "teleport": want one of`},
		{"bad env value", []string{"CHAPERONE_MAX_SESSIONS=many"}, []string{"serve"}, "CHAPERONE_MAX_SESSIONS"},
		{"a resource URL without an issuer", nil, []string{"serve", "--http", "127.0.0.1:0", "--resource-url", "https://mcp.example/mcp"}, "give --oauth-issuer too"},
		{"an issuer over plain http beyond loopback", []string{"CHAPERONE_OAUTH_ISSUER=http://as.example"}, []string{"serve", "--http", "127.0.0.1:0"}, `--oauth-issuer "http://as.example": use https`},
		{"a resource URL over plain http beyond loopback", nil, []string{"serve", "--http", "0.0.0.0:0", "--oauth-issuer", "https://as.example", "--resource-url", "http://mcp.example/mcp"}, "use https"},
		{"an issuer on every interface without a resource URL", nil, []string{"serve", "--http", "0.0.0.0:0", "--url", "http://127.0.0.1:1/", "--oauth-issuer", "http://127.0.0.1:1"}, "set --resource-url"},
		{"an issuer that does not answer", nil, []string{"serve", "--http", "127.0.0.1:0", "--url", "http://127.0.0.1:1/", "--oauth-issuer", "http://127.0.0.1:1"}, "--oauth-issuer: oauth: discover http://127.0.0.1:1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runBinary(t, c.env, c.args...)
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want a failure saying %q", code, stderr, c.want)
			}
			if strings.Contains(stderr, "serving") {
				t.Errorf("it started serving before refusing:\n%s", stderr)
			}
		})
	}
}

// TestDockerCommand runs the Dockerfile's CMD outside Docker: without a
// token it refuses to start with a clear message; with one it starts and
// /healthz answers, as the image's HEALTHCHECK asks it.
func TestDockerCommand(t *testing.T) {
	t.Parallel()
	dockerfile, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var cmdLine, healthLine []string
	for _, line := range strings.Split(string(dockerfile), "\n") {
		if rest, ok := strings.CutPrefix(line, "CMD "); ok {
			if err := json.Unmarshal([]byte(rest), &cmdLine); err != nil {
				t.Fatalf("CMD %s: %v", rest, err)
			}
		}
		if _, rest, ok := strings.Cut(line, "CMD "); ok && strings.HasPrefix(strings.TrimSpace(line), "HEALTHCHECK") {
			if err := json.Unmarshal([]byte(rest), &healthLine); err != nil {
				t.Fatalf("HEALTHCHECK CMD %s: %v", rest, err)
			}
		}
	}
	if len(cmdLine) < 2 || cmdLine[0] != "chaperone" || len(healthLine) < 2 || healthLine[0] != "chaperone" {
		t.Fatalf("the Dockerfile's CMD %q and HEALTHCHECK %q should run chaperone", cmdLine, healthLine)
	}
	want := []string{"serve", "--http", "0.0.0.0:8931"}
	if strings.Join(cmdLine[1:], " ") != strings.Join(want, " ") {
		t.Fatalf("CMD runs %q, want %q", cmdLine[1:], want)
	}

	code, _, stderr := runBinary(t, []string{"CHAPERONE_TOKEN="}, cmdLine[1:]...)
	if code == 0 || !strings.Contains(stderr, "refusing to listen on 0.0.0.0:8931 without a token") || !strings.Contains(stderr, "CHAPERONE_TOKEN") {
		t.Fatalf("without a token: exit %d, stderr %q; want a refusal naming CHAPERONE_TOKEN", code, stderr)
	}

	// With a token it starts. Port 0 instead of 8931, which may be taken here.
	args := append([]string{}, cmdLine[1:]...)
	args[2] = "0.0.0.0:0"
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken}, args...)
	if code, body := httpGet(t, p.base+"/healthz", nil); code != 200 || strings.TrimSpace(body) != "ok" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	// The HEALTHCHECK's command, pointed at this port.
	health := append([]string{}, healthLine[1:]...)
	health = append(health, "--url", p.base+"/healthz")
	if code, stdout, stderr := runBinary(t, nil, health...); code != 0 {
		t.Fatalf("HEALTHCHECK command %q: exit %d\n%s%s", health, code, stdout, stderr)
	}
	p.stop(t)
	if code, _, _ := runBinary(t, nil, health...); code == 0 {
		t.Fatal("the HEALTHCHECK command passes with the server down")
	}
}

// TestSIGTERMLeavesNoBrowser stops the server with SIGTERM while a client
// is connected, over HTTP and over stdio, and checks that no browser
// process of it is left.
func TestSIGTERMLeavesNoBrowser(t *testing.T) {
	t.Parallel()
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken, ownBrowser}, "serve", "--http", "127.0.0.1:0", "--log-level", "debug")
		c := servertest.Connect(t, servertest.SSE, p.base, testToken)
		getSnapshot(t, c)
		browsers, dirs := browserOf(t, p.cmd.Process.Pid)
		p.stop(t)
		if p.err != nil {
			t.Errorf("exit after SIGTERM: %v", p.err)
		}
		checkNoBrowserLeft(t, browsers, dirs)
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		c, cmd, stderr := stdioClient(t, []string{ownBrowser}, "serve", "--log-level", "debug")
		getSnapshot(t, c)
		browsers, dirs := browserOf(t, cmd.Process.Pid)
		cmd.Process.Signal(syscall.SIGTERM)
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(stderr.String(), "browser closed") {
			if time.Now().After(deadline) {
				t.Fatalf("the server did not close its browser after SIGTERM:\n%s", stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.Close() // waits for the process
		checkNoBrowserLeft(t, browsers, dirs)
	})
}

func TestSnapshotCommand(t *testing.T) {
	t.Parallel()
	t.Run("outline of the demo site", func(t *testing.T) {
		shot := filepath.Join(t.TempDir(), "account.png")
		code, stdout, stderr := runBinary(t, nil, "snapshot", "--screenshot", shot)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{"/account", "Elements", `button "Cancel Membership"`, "Page text", "[@e", "Screenshot written to"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("outline lacks %q:\n%s", want, stdout)
			}
		}
		png, err := os.ReadFile(shot)
		if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
			t.Errorf("screenshot %s: %v", shot, err)
		}
	})
	t.Run("JSON of a URL", func(t *testing.T) {
		site := httptest.NewServer(fixtures.Site())
		defer site.Close()
		code, stdout, stderr := runBinary(t, nil, "snapshot", site.URL+"/survey", "--json", "--all")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		validateSnapshot(t, []byte(stdout))
		var s snapshot.Snapshot
		json.Unmarshal([]byte(stdout), &s)
		if !strings.HasSuffix(s.Page.URL, "/survey") || len(s.Elements) == 0 {
			t.Errorf("snapshot of %s, %d elements", s.Page.URL, len(s.Elements))
		}
	})
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}, {"serve", "--version"}} {
		code, stdout, _ := runBinary(t, nil, args...)
		if code != 0 || !strings.HasPrefix(stdout, "chaperone ") {
			t.Errorf("%v: exit %d, %q", args, code, stdout)
		}
	}
}

// TestCancelStopsBrowserWork cancels a click on a page that freezes for 10
// s: over stdio and streamable HTTP the server's browser work ends with the
// cancellation, not with the page or the action timeout.
func TestCancelStopsBrowserWork(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	args := []string{"serve", "--url", site.URL + "/variants/busy", "--action-timeout", "30s", "--log-level", "debug"}
	check := func(t *testing.T, c *client.Client, stderr func() string) {
		s := getSnapshot(t, c)
		ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name = toolapi.Click
		req.Params.Arguments = map[string]any{"ref": browsertest.Ref(t, s, "button", "Freeze")}
		if _, err := c.CallTool(ctx, req); err == nil {
			t.Fatal("the cancelled call returned a result")
		}
		took := regexp.MustCompile(`msg="tool call" tool=` + toolapi.Click + ` took=(\S+)`)
		deadline := time.Now().Add(20 * time.Second)
		for {
			if m := took.FindStringSubmatch(stderr()); m != nil {
				t.Logf("the cancelled click took %s", m[1])
				d, err := time.ParseDuration(m[1])
				if err != nil || d > 5*time.Second {
					t.Errorf("the cancelled click ran for %s (%v); want it to end soon after the cancellation", m[1], err)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the server did not log the end of the cancelled click")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		c, _, stderr := stdioClient(t, nil, args...)
		check(t, c, stderr.String)
	})
	t.Run("streamable", func(t *testing.T) {
		p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken}, append(args, "--http", "127.0.0.1:0")...)
		check(t, servertest.Connect(t, servertest.Streamable, p.base, testToken), p.stderr.String)
	})
}
