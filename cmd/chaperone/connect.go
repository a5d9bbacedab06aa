package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/fleet"
	"github.com/chaperone-mcp/chaperone/internal/devtoolsport"
)

// findPersonsBrowser finds the person's running browser for --connect
// auto: the first Chrome, Chromium or Edge of this user's default profiles
// whose DevToolsActivePort names a browser that still answers.
func findPersonsBrowser(ctx context.Context) (devtoolsport.Port, devtoolsport.Info, error) {
	return devtoolsport.Locate(ctx, devtoolsport.System{GOOS: runtime.GOOS, Getenv: os.Getenv, ReadFile: os.ReadFile})
}

// connectFix is what a person does to let Chaperone into their browser.
const connectFix = "in Chrome 144 or later open chrome://inspect/#remote-debugging, turn on \"Allow remote debugging for this browser instance\" and allow the connection when Chrome asks (Edge: edge://inspect/#remote-debugging); in Chromium or another browser, start it with --remote-debugging-port=0"

// checkConnect is doctor's look at the person's own browser (--connect):
// whether auto finds one that answers, or whether the endpoint given
// answers. It never opens the DevTools WebSocket, which Chrome asks the
// person to allow. Without --connect it only says what auto would find.
func checkConnect(ctx context.Context, connect string) finding {
	f := finding{check: "connect"}
	if connect != "" && connect != "auto" {
		if !isDevToolsEndpoint(connect) {
			f.status, f.detail = "FAIL", fmt.Sprintf("--connect %q is neither auto nor a DevTools endpoint", fleet.EndpointName(connect))
			f.fix = "give --connect auto, or the browser's endpoint: ws://127.0.0.1:PORT/devtools/browser/… or http://127.0.0.1:PORT"
			return f
		}
		if err := dialEndpoint(ctx, connect); err != nil {
			f.status, f.detail = "FAIL", fmt.Sprintf("nothing answers at %s: %v", fleet.EndpointName(connect), err)
			f.fix = "start the browser with remote debugging on and give its endpoint, or use --connect auto"
			return f
		}
		f.status, f.detail = "ok", fmt.Sprintf("the browser at %s answers (not connected to: the browser may ask you to allow each connection)", fleet.EndpointName(connect))
		return f
	}
	found, info, err := findPersonsBrowser(ctx)
	if err != nil {
		var nf *devtoolsport.NotFoundError
		if connect == "" && errors.As(err, &nf) {
			f.status, f.detail = "ok", "--connect auto would find no browser of yours (not needed unless you use it; to use it: "+connectFix+")"
			return f
		}
		f.status, f.fix = "FAIL", connectFix
		f.detail = "--connect auto: " + strings.ReplaceAll(err.Error(), "\n", "\n                ")
		return f
	}
	version := ""
	if info.Browser != "" {
		version = " (" + info.Browser + ")"
	}
	what := "--connect auto finds"
	if connect == "" {
		what = "--connect auto would find"
	}
	f.status = "ok"
	f.detail = fmt.Sprintf("%s %s%s, profile %s, answering on port %d (not connected to: Chrome asks you to allow each connection)", what, found.Browser, version, found.Dir, found.Port)
	return f
}

// dialEndpoint sees whether something accepts a connection at a DevTools
// endpoint's host and port.
func dialEndpoint(ctx context.Context, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return err
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" || u.Scheme == "wss" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return unwrapOp(err)
	}
	return conn.Close()
}
