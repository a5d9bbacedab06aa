package devtoolsport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// checkTimeout bounds Check when its context has no deadline.
const checkTimeout = 3 * time.Second

// Info is what a live browser said of itself.
type Info struct {
	// Browser is its product and version ("Chrome/144.0.7559.59"), when it
	// answers DevTools' HTTP discovery; a browser allowed from
	// chrome://inspect serves only its WebSocket, and says nothing.
	Browser string
}

// StaleError means that a DevToolsActivePort file names a browser that no
// longer answers there: it quit or crashed after writing the file, or
// another program has its port now.
type StaleError struct {
	Port   Port
	Reason string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s's %s is stale: %s", e.Port.Browser, FileName, e.Reason)
}

// Check sees whether the browser the file names still answers on its port:
// something must accept a connection there, and if it answers DevTools'
// HTTP discovery (/json/version), its browser's WebSocket path must be the
// file's. It never opens the WebSocket, which a browser allowed from
// chrome://inspect asks the person about. A browser that is gone is a
// *StaleError.
func (p Port) Check(ctx context.Context) (Info, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, checkTimeout)
		defer cancel()
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return Info{}, &StaleError{Port: p, Reason: fmt.Sprintf("nothing answers on its port %d (%v): the browser quit or crashed after writing it", p.Port, unwrapOp(err))}
	}
	conn.Close()
	// Loopback only, never through a proxy the environment names.
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/json/version", nil)
	if err != nil {
		return Info{}, fmt.Errorf("check %s: %w", addr, err)
	}
	res, err := client.Do(req)
	if err != nil {
		// The port answers, but not over HTTP: the WebSocket alone.
		return Info{}, nil
	}
	defer res.Body.Close()
	var v struct {
		Browser   string `json:"Browser"`
		WebSocket string `json:"webSocketDebuggerUrl"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&v) != nil || v.WebSocket == "" {
		return Info{}, nil
	}
	if u, err := url.Parse(v.WebSocket); err != nil || u.Path != p.Path {
		return Info{}, &StaleError{Port: p, Reason: fmt.Sprintf("another browser answers on its port %d now (its DevTools path is not the file's)", p.Port)}
	}
	return Info{Browser: printable(v.Browser)}, nil
}

// unwrapOp drops the "dial tcp …:" prefix a net.OpError repeats.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// printable keeps what a browser said of itself to one short line a
// terminal shows as it is.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return clip(s)
}

// Locate finds the person's running browser: the first place, in the order
// of Places, whose DevToolsActivePort file names a browser that answers
// (Port.Check). When there is none the error is a *NotFoundError, which
// says where it looked and what the person must turn on.
func Locate(ctx context.Context, sys System) (Port, Info, error) {
	looks := Find(sys)
	for i, l := range looks {
		if l.Err != nil {
			continue
		}
		info, err := l.Found.Check(ctx)
		if err == nil {
			return l.Found, info, nil
		}
		looks[i].Err = err
	}
	return Port{}, Info{}, &NotFoundError{GOOS: sys.GOOS, Looks: looks}
}

// NotFoundError says that no running browser allows the connection, where
// Locate looked, what it found at each place, and how to turn remote
// debugging on.
type NotFoundError struct {
	GOOS  string
	Looks []Look
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	b.WriteString("found no running Chrome, Chromium or Edge of yours that allows remote debugging")
	if len(e.Looks) == 0 {
		fmt.Fprintf(&b, " (this system, %s, has no place known to hold one: give --connect the browser's DevTools endpoint instead)", e.GOOS)
		return b.String()
	}
	b.WriteString(".\nLooked for " + FileName + " in:")
	for _, l := range e.Looks {
		what := "none there: not running, or remote debugging is off"
		var stale *StaleError
		switch {
		case errors.As(l.Err, &stale):
			what = "stale: " + stale.Reason
		case l.Err != nil && !errors.Is(l.Err, ErrNoFile):
			what = l.Err.Error()
		}
		fmt.Fprintf(&b, "\n  %s: %s (%s)", l.Browser, printablePath(l.Dir), what)
	}
	b.WriteString("\nTo let Chaperone work in your own browser, turn remote debugging on in it, then try again:" +
		"\n  Chrome 144 or later: open chrome://inspect/#remote-debugging, turn on \"Allow remote debugging for this browser instance\", and allow the connection when Chrome asks (Edge: edge://inspect/#remote-debugging)." +
		"\n  Chromium, or another browser: quit it and start it again with --remote-debugging-port=0 added to its command line." +
		"\n  (Chrome 136 and later ignore --remote-debugging-port on the default profile; started with a --user-data-dir of its own, pass --connect its DevTools endpoint, e.g. http://127.0.0.1:9222, instead of auto.)")
	return b.String()
}

// printablePath shows a path from the environment on one line.
func printablePath(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return strconv.Quote(s)
	}
	return s
}
