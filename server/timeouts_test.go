package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// shortTimeouts makes every HTTP timeout tiny, so that a call or stream
// that outlives them many times over shows they spare it.
const shortTimeout = 50 * time.Millisecond

func shortTimeouts(c HTTPConfig) HTTPConfig {
	c.BodyTimeout, c.WriteTimeout, c.IdleTimeout = shortTimeout, shortTimeout, shortTimeout
	return c
}

// A call that waits (as for a person) far longer than every timeout ends
// with its result, over both transports, and an SSE stream idle as long
// stays open.
func TestTimeoutsSpareLongCallsAndStreams(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{servertest.Streamable, servertest.SSE} {
		t.Run(kind, func(t *testing.T) {
			f := &fakes{hold: make(chan struct{})}
			s := newTestServer(t, f, Config{})
			base := serveHTTP(t, s, shortTimeouts(HTTPConfig{Token: testToken}))
			c := servertest.Connect(t, kind, base, testToken)
			done := make(chan error, 1)
			go func() {
				res, err := c.CallTool(context.Background(), clickRequest())
				if err == nil && res.IsError {
					err = fmt.Errorf("error result %+v", res)
				}
				done <- err
			}()
			waitFor(t, "the call to start", func() bool { return f.inCall.Load() == 1 })
			// Not a speed threshold: time must pass for a timeout to fire,
			// and a loaded machine only lets more pass.
			time.Sleep(10 * shortTimeout)
			close(f.hold)
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("the long call failed: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the long call never answered")
			}
			time.Sleep(10 * shortTimeout)
			if res := callTool(t, context.Background(), c, toolapi.GetSnapshot, nil); res.IsError {
				t.Errorf("a call after an idle spell failed: %+v", res)
			}
		})
	}
}

// A client that sends headers and then trickles its body, or stops, is cut
// off: it cannot hold a connection and a goroutine for ever.
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, &fakes{}, Config{})
	base := serveHTTP(t, s, shortTimeouts(HTTPConfig{}))
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		res.Body.Close()
		if res.StatusCode < 400 {
			t.Fatalf("a stalled body got %d", res.StatusCode)
		}
		return
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server kept the stalled connection open")
	}
	// Closed without a response: cut off, as wanted.
}
