package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// cookieSecret is the value of the saved login's cookie, which no log may
// show.
const cookieSecret = "pw-session-e2e-5ad1"

// playwrightFile writes a storage state as Playwright saves it, for the site
// base: a session cookie sid and a localStorage item, and returns its path.
func playwrightFile(t *testing.T, base string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.json")
	state := `{
  "cookies": [
    {
      "name": "sid",
      "value": "` + cookieSecret + `",
      "domain": "127.0.0.1",
      "path": "/",
      "expires": -1,
      "httpOnly": true,
      "secure": false,
      "sameSite": "Lax"
    }
  ],
  "origins": [
    {
      "origin": "` + base + `",
      "localStorage": [
        {
          "name": "user",
          "value": "ada@example.com"
        }
      ]
    }
  ]
}`
	if err := os.WriteFile(path, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The saved login reaches the session: the site gets its cookie, and the
// debug log names it without its value.
func TestServeStorageStateOverStdio(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	c, _, stderr := stdioClient(t, nil, "serve", "--profile", "none", "--log-level", "debug",
		"--url", site+"/echo/cookies", "--storage-state", playwrightFile(t, site))
	s := getSnapshot(t, c)
	if !strings.Contains(s.Text, "sid="+cookieSecret) {
		t.Errorf("/echo/cookies shows %q, want the saved cookie", s.Text)
	}
	c.Close()
	if !strings.Contains(stderr.String(), "cookie_names=[sid]") {
		t.Errorf("the debug log does not name the loaded cookie:\n%s", stderr)
	}
	if strings.Contains(stderr.String(), cookieSecret) {
		t.Errorf("the debug log shows the cookie's value:\n%s", stderr)
	}
}

// Command lines that cannot work fail at once, before a browser starts,
// and say why.
func TestLoginAndStorageStateRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"cookies":[{"name":"sid","value":"`+cookieSecret+`","domain":"127.0.0.1","sameSite":"lax"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"serve with a bad file", []string{"serve", "--storage-state", bad}, `--storage-state: storage state ` + bad + `: cookie 0 ("sid"): sameSite "lax"`},
		{"serve with no file", []string{"serve", "--storage-state", filepath.Join(dir, "none.json")}, "no such file"},
		{"a default context with nothing to connect to", []string{"serve", "--cdp-default-context"}, "--cdp-default-context needs --cdp-endpoint"},
		{"login without --save", []string{"login", "http://127.0.0.1:1/"}, "--save FILE is required"},
		{"login without a URL", []string{"login", "--save", filepath.Join(dir, "s.json")}, "say where to sign in"},
		{"login at a refused URL", []string{"login", "file:///etc/passwd", "--save", filepath.Join(dir, "s.json")}, `scheme "file"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, append(tt.args, "--browser-path", "/nonexistent/chromium")...)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), tt.want) {
				t.Fatalf("exit %v, output:\n%s\nwant it to say %q", err, out, tt.want)
			}
			if strings.Contains(string(out), cookieSecret) || strings.Contains(string(out), "no Chromium") {
				t.Errorf("output shows a cookie value or a browser start:\n%s", out)
			}
		})
	}
}

// chaperone login opens the page, waits for Enter on stdin, and saves the
// login, which a session then starts with: signed in.
func TestLoginRoundTrip(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	save := filepath.Join(t.TempDir(), "login.json")
	cmd := exec.Command(bin, "login", site+"/variants/signin?as=ada", "--save", save, "--headed=false", "--log-level", "debug")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	var said strings.Builder
	sc := bufio.NewScanner(stderrPipe)
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "press Enter") {
			break
		}
	}
	if !strings.Contains(said.String(), "Sign in to "+site) {
		t.Fatalf("login did not ask the person to sign in:\n%s", said.String())
	}
	if _, err := io.WriteString(stdin, "\n"); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("login: %v\n%s", err, said.String())
	}
	if !strings.Contains(said.String(), "Saved 1 cookies and the localStorage of 1 origins to "+save) ||
		!strings.Contains(said.String(), "cookie_names=[sid]") {
		t.Errorf("login said:\n%s", said.String())
	}
	if strings.Contains(said.String(), "sess-ada") {
		t.Errorf("login's debug log shows the cookie's value:\n%s", said.String())
	}
	fi, err := os.Stat(save)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the saved file: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
	st, err := browser.ReadStorageStateFile(save)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Cookies) != 1 || st.Cookies[0].Name != "sid" || st.Cookies[0].Value != "sess-ada" ||
		len(st.Origins) != 1 || st.Origins[0].Origin != site || st.Origins[0].LocalStorage[0] != (browser.NameValue{Name: "user", Value: "ada"}) {
		t.Fatalf("saved %+v", st)
	}

	c, _, _ := stdioClient(t, nil, "serve", "--profile", "none", "--url", site+"/variants/signin", "--storage-state", save)
	if s := getSnapshot(t, c); !strings.Contains(s.Text, "Signed in as ada") {
		t.Errorf("a session from the saved login shows %q, want signed in", s.Text)
	}
}

// A persistent profile keeps a session's login across restarts of the
// command. The first run ends as a client's leaving ends it, with its stdin
// and stderr closed, and must still close the browser, which writes the
// profile's cookies.
func TestUserDataDirKeepsLoginAcrossRestarts(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "serve", "--profile", "none", "--user-data-dir", dir, "--url", site+"/variants/signin?as=grace")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	c := client.NewClient(transport.NewIO(stdout, stdin, stderr))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	servertest.Initialize(t, c)
	if s := getSnapshot(t, c); !strings.Contains(s.Text, "Signed in as grace") {
		t.Fatalf("the first run shows %q", s.Text)
	}
	c.Close() // closes the server's stdin and stderr
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the first run did not end cleanly after its client left: %v", err)
	}

	c, _, _ = stdioClient(t, nil, "serve", "--profile", "none", "--user-data-dir", dir, "--url", site+"/echo/cookies")
	if s := getSnapshot(t, c); !strings.Contains(s.Text, "sid=sess-grace") {
		t.Errorf("after a restart /echo/cookies shows %q, want the cookie of the first run", s.Text)
	}
}

// With a persistent profile a second HTTP client is refused with a clear
// error while the first runs; the first is unaffected, and once it ends a
// new client gets the profile.
func TestUserDataDirSecondHTTPSessionRefused(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken}, "serve", "--http", "127.0.0.1:0", "--profile", "none",
		"--user-data-dir", t.TempDir(), "--url", site+"/variants/signin?as=ada")
	first := servertest.Connect(t, servertest.Streamable, p.base, testToken)
	if s := getSnapshot(t, first); !strings.Contains(s.Text, "Signed in as ada") {
		t.Fatalf("the first client shows %q", s.Text)
	}

	second := servertest.Connect(t, servertest.Streamable, p.base, testToken)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = toolapi.GetSnapshot
	res, err := second.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(textOf(t, res), "--user-data-dir allows one session at a time; ") {
		t.Fatalf("the second client got %+v, want the one-session error", res.Content)
	}
	if s := getSnapshot(t, first); !strings.Contains(s.Text, "Signed in as ada") {
		t.Errorf("the first client shows %q after the second was refused", s.Text)
	}
	second.Close()

	closed := strings.Count(p.stderr.String(), "browser session closed")
	first.Close()
	deadline := time.After(30 * time.Second)
	for strings.Count(p.stderr.String(), "browser session closed") == closed {
		select {
		case <-deadline:
			t.Fatalf("the first session was not closed after its client left:\n%s", p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	next := servertest.Connect(t, servertest.Streamable, p.base, testToken)
	if s := getSnapshot(t, next); !strings.Contains(s.Text, "Signed in as ada") {
		t.Errorf("a client after the first ended shows %q", s.Text)
	}
}
