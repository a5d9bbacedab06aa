package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// Connecting to a DevTools endpoint an operator named (Options.CDPEndpoint):
// a browser's debugging port, or a browser service such as browserless that
// wants its token on every request and may be full.
//
// The endpoint's HTTP discovery (/json/version) says the browser's WebSocket
// path, but it says it as the browser or service sees itself: browserless
// answers ws://localhost:3000 (its own HOST, without the token), Chromium
// echoes the Host header, a container says 0.0.0.0 or its own name. Only the
// path is taken from it; the scheme's security, the host and port, and the
// query (the token) stay the operator's, so the token goes to no other host
// and is never dropped.

// Errors of a connection that an endpoint refused, possibly wrapped. Each is
// a reason to try the endpoint again later, as one that is down.
var (
	// ErrEndpointRefused means that the endpoint refused the credentials:
	// HTTP 401 or 403 (a wrong or missing token).
	ErrEndpointRefused = errors.New("refused the connection (a wrong or missing token?)")
	// ErrEndpointFull means that the endpoint is at its limit: HTTP 429 or
	// 503 (a browser service's concurrency limit and queue are full).
	ErrEndpointFull = errors.New("is full (its session limit and queue are taken)")
	// ErrEndpointNoAnswer means that the endpoint took the connection but
	// did not complete the WebSocket handshake in time, as a browser
	// service does while it holds the connection in its queue.
	ErrEndpointNoAnswer = errors.New("did not answer the WebSocket handshake in time (a browser service holds a queued connection that way)")
)

const (
	// discoveryTimeout bounds the request to /json/version.
	discoveryTimeout = 10 * time.Second
	// dialTimeout bounds the WebSocket dial and handshake.
	dialTimeout = 10 * time.Second
)

// EndpointName is a DevTools endpoint as logs and messages may show it:
// scheme, host and port only, so that credentials in its user info, path or
// query (a browserless ?token=…) never reach a log.
func EndpointName(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "an endpoint"
	}
	return u.Scheme + "://" + u.Host
}

// endpointError is a failure to reach an endpoint, told without its
// credentials; kind is one of the ErrEndpoint… errors or the cause.
type endpointError struct {
	msg  string
	kind error
}

func (e *endpointError) Error() string { return e.msg }
func (e *endpointError) Unwrap() error { return e.kind }

// endpointRefusal is the error of an endpoint that answered with an HTTP status
// other than success, during discovery or the handshake.
func endpointRefusal(what string, status int, statusText string) error {
	var kind error
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		kind = ErrEndpointRefused
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		kind = ErrEndpointFull
	default:
		return &endpointError{msg: fmt.Sprintf("answered %s to %s", statusText, what), kind: errUnexpectedStatus}
	}
	return &endpointError{msg: fmt.Sprintf("%s: %s to %s", kind, statusText, what), kind: kind}
}

// endpointWebSocket is the browser WebSocket address of a DevTools
// endpoint: a ws:// or wss:// address with a path of its own as it is, else
// the path its discovery (/json/version, asked with the endpoint's query)
// names, on the endpoint's own scheme, host and query. A ws:// endpoint
// without a path whose discovery is not there (a service that speaks only
// WebSocket) is used as it is.
func endpointWebSocket(ctx context.Context, endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "", errors.New("not a DevTools endpoint (want ws://, wss://, http:// or https://host:port)")
	}
	ws := *u
	switch u.Scheme {
	case "ws", "wss":
	case "http":
		ws.Scheme = "ws"
	case "https":
		ws.Scheme = "wss"
	default:
		return "", fmt.Errorf("the scheme %q is not ws, wss, http or https", u.Scheme)
	}
	ws.Fragment = ""
	if ws.Scheme == "ws" {
		// Chromium answers a Host header only when it is an IP address or
		// localhost; a TLS endpoint keeps its name for its certificate.
		if ws.Host, err = hostIP(ctx, ws.Host); err != nil {
			return "", err
		}
	}
	bare := u.Path == "" || u.Path == "/"
	if (u.Scheme == "ws" || u.Scheme == "wss") && !bare {
		return ws.String(), nil
	}
	said, err := discover(ctx, ws)
	if errors.Is(err, errNoDiscovery) && (u.Scheme == "ws" || u.Scheme == "wss") {
		return ws.String(), nil
	}
	if err != nil {
		return "", err
	}
	ws.Path, ws.RawPath = said.Path, ""
	if ws.Path == "" {
		ws.Path = "/"
	}
	if said.RawQuery != "" {
		// What the service adds is kept; what the operator gave wins.
		q := said.Query()
		for k, v := range u.Query() {
			q[k] = v
		}
		ws.RawQuery = q.Encode()
	}
	return ws.String(), nil
}

var (
	// errNoDiscovery is the failure of an endpoint that has no
	// /json/version.
	errNoDiscovery = errors.New("no /json/version")
	// errUnexpectedStatus is an HTTP answer that is neither success nor a
	// refusal.
	errUnexpectedStatus = errors.New("unexpected HTTP status")
)

// discoveryClient follows no redirect: the token in the query must reach
// the host the operator named and no other.
var discoveryClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// discover asks the endpoint ws (already on its WebSocket scheme), with
// the endpoint's query, for its browser's WebSocket address, of which only
// the path and query are used.
func discover(ctx context.Context, ws url.URL) (*url.URL, error) {
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	q := ws
	q.Scheme = strings.Replace(ws.Scheme, "ws", "http", 1)
	q.Path, q.RawPath = "/json/version", ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, q.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("ask /json/version: %w", err)
	}
	res, err := discoveryClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text holds the URL, query and all
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, &endpointError{msg: fmt.Sprintf("no answer to /json/version within %s", discoveryTimeout), kind: ErrEndpointNoAnswer}
		}
		return nil, &endpointError{msg: err.Error(), kind: err}
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		return nil, &endpointError{msg: "no /json/version (404)", kind: errNoDiscovery}
	}
	if res.StatusCode != http.StatusOK {
		return nil, endpointRefusal("/json/version", res.StatusCode, res.Status)
	}
	var v struct {
		WebSocket string `json:"webSocketDebuggerUrl"`
	}
	err = json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&v)
	if err != nil || v.WebSocket == "" {
		return nil, &endpointError{msg: "/json/version names no webSocketDebuggerUrl", kind: errNoDiscovery}
	}
	said, err := url.Parse(v.WebSocket)
	if err != nil {
		return nil, errors.New("/json/version names an unreadable webSocketDebuggerUrl")
	}
	return said, nil
}

// hostIP is hostport with its host name resolved to an IP address, as
// chromedp does; localhost and IP addresses stay as they are.
func hostIP(ctx context.Context, hostport string) (string, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport, nil // no port: the scheme's own
	}
	if host == "localhost" || net.ParseIP(host) != nil {
		return hostport, nil
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return "", fmt.Errorf("look up %s: %w", host, err)
	}
	return net.JoinHostPort(addrs[0].IP.String(), port), nil
}

// handshakeStatus reads the HTTP status out of chromedp's error for a
// handshake the server did not accept ("unexpected status \"401 …\"").
var handshakeStatus = regexp.MustCompile(`unexpected status "((\d{3})[^"]*)"`)

// dialError is a failed WebSocket dial told without the address (whose
// query holds the token) and classified.
func dialError(ctx context.Context, err error) error {
	if m := handshakeStatus.FindStringSubmatch(err.Error()); m != nil {
		status, _ := strconv.Atoi(m[2])
		return endpointRefusal("the WebSocket handshake", status, m[1])
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return &endpointError{msg: fmt.Sprintf("%s (%s)", ErrEndpointNoAnswer, dialTimeout), kind: ErrEndpointNoAnswer}
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		err = ne.Err
	}
	return &endpointError{msg: err.Error(), kind: err}
}

// dialOptions sends the user and password of an endpoint's address
// (ws://user:pass@host/…) as basic authentication, as the discovery
// request does.
func dialOptions(ws string) []remote.DialOption {
	u, err := url.Parse(ws)
	if err != nil || u.User == nil {
		return nil
	}
	pass, _ := u.User.Password()
	auth := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pass))
	return []remote.DialOption{remote.WithConnHTTPHeader(http.Header{"Authorization": {"Basic " + auth}})}
}

// scrub keeps an endpoint's credentials (its query's values, its user
// and password) out of an error's text, whatever put them there (a
// service that echoes them in its answer).
func scrub(err error, endpoint string) error {
	u, perr := url.Parse(endpoint)
	if err == nil || perr != nil {
		return err
	}
	var secrets []string
	for _, vs := range u.Query() {
		secrets = append(secrets, vs...)
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		secrets = append(secrets, u.User.Username(), pass)
	}
	msg := err.Error()
	for _, v := range secrets {
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "…")
			msg = strings.ReplaceAll(msg, url.QueryEscape(v), "…")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &endpointError{msg: msg, kind: err}
}

// endpointAllocator is a chromedp.Allocator that connects to an endpoint
// through endpointWebSocket, and whose errors never show the endpoint's
// credentials.
type endpointAllocator struct {
	endpoint string
	wg       sync.WaitGroup
}

// Allocate finds the endpoint's browser WebSocket and connects to it; the
// connection lives until ctx ends.
func (a *endpointAllocator) Allocate(ctx context.Context, opts ...chromedp.BrowserOption) (*chromedp.Browser, error) {
	ws, err := endpointWebSocket(ctx, a.endpoint)
	if err != nil {
		return nil, scrub(err, a.endpoint)
	}
	dial, cancelDial := context.WithTimeout(ctx, dialTimeout)
	defer cancelDial()
	conn, err := remote.DialContext(dial, ws, dialOptions(ws)...)
	if err != nil {
		return nil, scrub(dialError(dial, err), a.endpoint)
	}
	// The connection has a context of its own, so that the pages are
	// closed before it is (as chromedp's remote allocator does).
	wctx, cancel := context.WithCancel(context.Background())
	a.wg.Go(func() {
		<-ctx.Done()
		chromedp.Cancel(ctx)
		cancel()
	})
	return chromedp.NewBrowserTransport(wctx, conn, opts...)
}

// Wait waits for the connections to close.
func (a *endpointAllocator) Wait() { a.wg.Wait() }

// Attaches reports that the browser runs already.
func (a *endpointAllocator) Attaches() bool { return true }
