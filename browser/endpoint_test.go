package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
)

// devtoolsFake is a DevTools endpoint as a browser service shows it: a
// discovery (/json/version) that wants the token and names a WebSocket
// address of its own choosing, and a WebSocket handshake it refuses with a
// status, recording what reached it.
type devtoolsFake struct {
	srv *httptest.Server
	// said is the webSocketDebuggerUrl /json/version names; version is
	// its status when the token is right (0: 200).
	said    string
	version int
	// ws is the handshake's answer.
	ws int

	mu        sync.Mutex
	discovery int      // requests to /json/version
	handshake []string // host, path and query of each handshake
}

func newDevtoolsFake(t *testing.T, said string, version, ws int) *devtoolsFake {
	f := &devtoolsFake{said: said, version: version, ws: ws}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if r.URL.Path == "/json/version" {
			f.discovery++
			_, pass, _ := r.BasicAuth()
			if r.URL.Query().Get("token") != "s3cret" && pass != "s3cret" {
				http.Error(w, "Bad or missing authentication.", http.StatusUnauthorized)
				return
			}
			if f.version != 0 {
				if f.version/100 == 3 {
					w.Header().Set("Location", f.said)
				}
				w.WriteHeader(f.version)
				return
			}
			fmt.Fprintf(w, `{"Browser":"Chrome/156","webSocketDebuggerUrl":%q}`, f.said)
			return
		}
		seen := r.Host + " " + r.URL.RequestURI()
		if user, pass, ok := r.BasicAuth(); ok {
			seen += " basic=" + user + ":" + pass
		}
		f.handshake = append(f.handshake, seen)
		http.Error(w, "no", f.ws)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *devtoolsFake) seen() (int, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.discovery, append([]string(nil), f.handshake...)
}

// TestEndpointKeepsHostAndToken: an endpoint's discovery names its browser's
// WebSocket as the service sees itself (its own host, 0.0.0.0, localhost,
// another machine, no token); the connection goes to the host the operator
// named, with the operator's query (the token), on the path discovery named.
// A refusal (a wrong token, full) is a typed error that names the endpoint
// without its token; a redirect is not followed.
func TestEndpointKeepsHostAndToken(t *testing.T) {
	t.Parallel()
	other := newDevtoolsFake(t, "", 0, http.StatusTeapot)
	for _, tc := range []struct {
		name     string
		said     string // %s: the fake's own host:port
		version  int
		ws       int
		endpoint string // %s: the fake's host:port
		// want is the handshake the fake sees ("" for none), err the
		// refusal.
		want string
		err  error
	}{
		{"http:// with the token, browserless's own host and no token in discovery", "ws://localhost:3000", 0, http.StatusTooManyRequests,
			"http://%s/?token=s3cret", "%s /?token=s3cret", browser.ErrEndpointFull},
		{"ws:// with the token, discovery naming 0.0.0.0", "ws://0.0.0.0:9222/devtools/browser/abc", 0, http.StatusUnauthorized,
			"ws://%s/?token=s3cret", "%s /devtools/browser/abc?token=s3cret", browser.ErrEndpointRefused},
		{"discovery naming another machine", "ws://10.255.255.1:9222/devtools/browser/x", 0, http.StatusServiceUnavailable,
			"ws://%s?token=s3cret", "%s /devtools/browser/x?token=s3cret", browser.ErrEndpointFull},
		{"discovery naming localhost with a query of its own", "ws://localhost:9/devtools/browser/y?token=theirs&k=1", 0, http.StatusForbidden,
			"http://%s/?token=s3cret", "%s /devtools/browser/y?k=1&token=s3cret", browser.ErrEndpointRefused},
		{"a wrong token, refused at discovery", "ws://%s/devtools/browser/z", 0, http.StatusTeapot,
			"http://%s/?token=wrong-token", "", browser.ErrEndpointRefused},
		{"no token at all", "ws://%s/devtools/browser/z", 0, http.StatusTeapot,
			"ws://%s/", "", browser.ErrEndpointRefused},
		{"a ws:// service without discovery, used as it is", "", http.StatusNotFound, http.StatusTooManyRequests,
			"ws://%s/?token=s3cret", "%s /?token=s3cret", browser.ErrEndpointFull},
		{"a ws:// path of its own, no discovery", "", 0, http.StatusUnauthorized,
			"ws://%s/chromium?token=s3cret", "%s /chromium?token=s3cret", browser.ErrEndpointRefused},
		{"a user and password in the address, sent as basic authentication", "ws://0.0.0.0:9222/devtools/browser/u", 0, http.StatusUnauthorized,
			"http://alice:s3cret@%s/", "%s /devtools/browser/u basic=alice:s3cret", browser.ErrEndpointRefused},
		{"ws:// with a user and password and a path of its own", "", 0, http.StatusTooManyRequests,
			"ws://alice:s3cret@%s/chromium", "%s /chromium basic=alice:s3cret", browser.ErrEndpointFull},
		{"discovery redirecting elsewhere is not followed", other.srv.URL + "/json/version?x=1", http.StatusFound, http.StatusTeapot,
			"http://%s/?token=s3cret", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newDevtoolsFake(t, "", tc.version, tc.ws)
			host := strings.TrimPrefix(f.srv.URL, "http://")
			f.said = tc.said
			if strings.Contains(tc.said, "%s") {
				f.said = fmt.Sprintf(tc.said, host)
			}
			endpoint := fmt.Sprintf(tc.endpoint, host)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			b, err := browser.Launch(ctx, browser.Options{CDPEndpoint: endpoint})
			if err == nil {
				b.Close()
				t.Fatal("connected to a fake")
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("error %q is not %q", err, tc.err)
			}
			for _, secret := range []string{"s3cret", "wrong-token"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows the token: %q", err)
				}
			}
			if !strings.Contains(err.Error(), "ws://"+host) && !strings.Contains(err.Error(), "http://"+host) {
				t.Errorf("the error does not name the endpoint: %q", err)
			}
			_, got := f.seen()
			want := []string{}
			if tc.want != "" {
				want = []string{fmt.Sprintf(tc.want, host)}
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("handshakes %q, want %q", got, want)
			}
		})
	}
	if n, hs := other.seen(); n != 0 || len(hs) != 0 {
		t.Errorf("the host a redirect named was asked (%d discoveries, %q)", n, hs)
	}
}

// TestEndpointHandshakeNoAnswer: an endpoint that takes the connection and
// never completes the handshake (a browser service holding it in its
// queue) is a typed error, not a hang.
func TestEndpointHandshakeNoAnswer(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = browser.Launch(ctx, browser.Options{CDPEndpoint: "ws://" + l.Addr().String() + "/chromium?token=s3cret"})
	if !errors.Is(err, browser.ErrEndpointNoAnswer) {
		t.Fatalf("error %v, want %v", err, browser.ErrEndpointNoAnswer)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error shows the token: %q", err)
	}
}

// TestEndpointRefusalEchoingTheToken: a service whose refusal quotes the
// token back (in its status line) does not get it into the error.
func TestEndpointRefusalEchoingTheToken(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				c.Read(buf)
				fmt.Fprint(c, "HTTP/1.1 403 no s3cret-t0ken here\r\nContent-Length: 17\r\n\r\ntoken=s3cret-t0ken")
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = browser.Launch(ctx, browser.Options{CDPEndpoint: "ws://" + l.Addr().String() + "/chromium?token=s3cret-t0ken"})
	if !errors.Is(err, browser.ErrEndpointRefused) {
		t.Fatalf("error %v, want %v", err, browser.ErrEndpointRefused)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error shows the token: %q", err)
	}
}
