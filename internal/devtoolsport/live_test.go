package devtoolsport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

const browserID = "/devtools/browser/11111111-2222-3333-4444-555555555555"

// devtools is a loopback server standing in for a browser's DevTools
// port: it answers /json/version with the browser path given, or 404 when
// it is empty (a browser allowed from chrome://inspect serves only the
// WebSocket).
func devtools(t *testing.T, path string) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if path == "" || r.URL.Path != "/json/version" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"Browser":"Chrome/144.0.7559.59","webSocketDebuggerUrl":"ws://%s%s"}`, r.Host, path)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	return port
}

// deadPort is a loopback port where nothing listens any more: the port of a
// browser that crashed.
func deadPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func withDeadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A file whose browser still answers is live; one whose browser is gone,
// or whose port another browser holds now, is stale and never connected to.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name        string
		port        int
		stale       bool
		wantBrowser string
	}{
		{"answers with its path", devtools(t, browserID), false, "Chrome/144.0.7559.59"},
		{"answers the WebSocket only", devtools(t, ""), false, ""},
		{"nothing listens: crashed", deadPort(t), true, ""},
		{"another browser's port now", devtools(t, "/devtools/browser/99999999-0000-0000-0000-000000000000"), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Port{Place: Place{Browser: "Google Chrome", Dir: "/d", sep: "/"}, Port: tc.port, Path: browserID}
			info, err := p.Check(withDeadline(t))
			var stale *StaleError
			if tc.stale != errors.As(err, &stale) {
				t.Fatalf("Check = %v, want stale %v", err, tc.stale)
			}
			if !tc.stale && (err != nil || info.Browser != tc.wantBrowser) {
				t.Errorf("Check = %+v %v, want browser %q", info, err, tc.wantBrowser)
			}
		})
	}
}

// Locate passes over a stale file to the next browser that answers, and
// when none does, says where it looked, what it found and what to turn on.
func TestLocate(t *testing.T) {
	home := "/home/p"
	env := envOf(map[string]string{"HOME": home})
	dead, live := deadPort(t), devtools(t, browserID)
	file := func(port int) string { return strconv.Itoa(port) + "\n" + browserID + "\n" }

	m := &memFS{files: map[string]string{
		home + "/.config/google-chrome/DevToolsActivePort": file(dead),
		home + "/.config/chromium/DevToolsActivePort":      file(live),
	}}
	p, info, err := Locate(withDeadline(t), System{GOOS: "linux", Getenv: env, ReadFile: m.ReadFile})
	if err != nil || p.Browser != "Chromium" || p.Endpoint() != "ws://127.0.0.1:"+strconv.Itoa(live)+browserID || info.Browser == "" {
		t.Fatalf("Locate = %+v %+v %v, want the live Chromium", p, info, err)
	}

	m = &memFS{files: map[string]string{home + "/.config/google-chrome/DevToolsActivePort": file(dead)}}
	_, _, err = Locate(withDeadline(t), System{GOOS: "linux", Getenv: env, ReadFile: m.ReadFile})
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("Locate with only a stale file = %v, want a NotFoundError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"Google Chrome: /home/p/.config/google-chrome (stale: nothing answers on its port " + strconv.Itoa(dead),
		"Chromium: /home/p/.config/chromium (none there",
		"Microsoft Edge: /home/p/.config/microsoft-edge",
		"chrome://inspect/#remote-debugging",
		"allow the connection",
		"--remote-debugging-port",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
}

// A path from the environment with a line break in it cannot forge lines
// of the message.
func TestNotFoundErrorQuotesOddPaths(t *testing.T) {
	env := envOf(map[string]string{"HOME": "/home/p\nChromium: found it"})
	_, _, err := Locate(withDeadline(t), System{GOOS: "linux", Getenv: env, ReadFile: (&memFS{}).ReadFile})
	if err == nil || strings.Contains(err.Error(), "\nChromium: found it") {
		t.Errorf("error:\n%v", err)
	}
}
