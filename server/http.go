package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/chaperone-mcp/chaperone/internal/oauth"
)

// MinTokenLength is the shortest bearer token the HTTP transports accept.
const MinTokenLength = 16

// maxBody bounds the size of a request body.
const maxBody = 4 << 20

// The default timeouts of the HTTP transports; see HTTPConfig.
const (
	defaultHeaderTimeout = 10 * time.Second
	defaultBodyTimeout   = 30 * time.Second
	defaultWriteTimeout  = 30 * time.Second
	defaultIdleTimeout   = 2 * time.Minute
)

// HTTPConfig says where the HTTP transports listen and whom they serve.
type HTTPConfig struct {
	// Addr is the listen address, host:port. A missing host ("8931" or
	// ":8931") means 127.0.0.1: listening beyond loopback must be asked for
	// by name, e.g. 0.0.0.0:8931.
	Addr string
	// Credentials, when set, are the bearer tokens requests must carry
	// (Authorization: Bearer …), except /healthz, each naming its client.
	// An MCP session belongs to the client that opened it: a request for it
	// with another client's token is answered 404, as if it did not exist.
	// Credentials or Token is required when Addr is beyond loopback.
	Credentials *Credentials
	// Token, when set and Credentials is not, is the one client's token,
	// named "client1".
	Token string
	// MaxSessionsPerClient bounds the browser sessions open at once for one
	// client (one credential); zero means no bound beyond the server's.
	MaxSessionsPerClient int
	// AllowedHosts widens the Host headers accepted beyond localhost,
	// 127.0.0.1, [::1] and the listen address's own host. An entry without a
	// port matches any port.
	AllowedHosts []string
	// BodyTimeout bounds the reading of one request's body (its headers
	// get 10 s); zero means 30 s. It is a deadline per request, not
	// http.Server's ReadTimeout: that one stays armed while the handler
	// runs and, once it passes, cancels a long call or stream.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of a response, not the response: an
	// SSE stream or a call that waits minutes for a person writes rarely,
	// and must not be cut, while a client that stops reading must not hold
	// the connection. Zero means 30 s.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection with no request for this
	// long; zero means 2 minutes.
	IdleTimeout time.Duration
	// OAuth, when set, also accepts the JWT access tokens its issuer signs
	// for its audience, the resource identifier (RFC 8707), and serves the
	// resource's metadata (RFC 9728) at /.well-known/oauth-protected-resource.
	// The token's sub names the client, which owns its sessions as a
	// credential's name does; its scopes bound the tools it may call
	// (ScopeRead, ScopeAct, ScopeCaps). Static credentials keep every scope.
	OAuth *oauth.Validator
	// AllowedOrigins lists the browser origins (scheme://host[:port]) whose
	// requests are served, with CORS for exactly those. A request with any
	// other Origin header is refused; requests without one (non-browser
	// clients) are not affected.
	AllowedOrigins []string
	// SessionRoute, when set, ends every streamable HTTP session id this
	// replica issues with "." and it, for a load balancer that routes by
	// the id's end (see packaging/nginx.conf). Letters, digits, '-' and '_'.
	SessionRoute string
	// Metrics, when set, is served as GET /metrics behind the same Host,
	// Origin and token checks as MCP (telemetry.Telemetry.Handler).
	Metrics http.Handler
}

// ListenAddr returns addr with a missing host made 127.0.0.1.
func ListenAddr(addr string) (string, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", addr, err)
	}
	if port == "" {
		return "", fmt.Errorf("listen address %q has no port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// IsLoopback reports whether the listen address addr reaches this machine
// only.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Check returns an error, meant for the person starting the server, when c
// must not be served: beyond loopback without a token, or with a token too
// short to resist guessing.
func (c HTTPConfig) Check() error {
	addr, err := ListenAddr(c.Addr)
	if err != nil {
		return err
	}
	if c.Token == "" && c.Credentials == nil && c.OAuth == nil && !IsLoopback(addr) {
		return fmt.Errorf("refusing to listen on %s without a token: anyone who can reach this address could drive the browser. "+
			"Set --token or CHAPERONE_TOKEN (e.g. CHAPERONE_TOKEN=$(openssl rand -hex 32)), or listen on 127.0.0.1", addr)
	}
	if c.Token != "" && c.Credentials == nil && len(c.Token) < MinTokenLength {
		return fmt.Errorf("the token is %d characters long; use at least %d (e.g. openssl rand -hex 32)", len(c.Token), MinTokenLength)
	}
	if c.MaxSessionsPerClient < 0 {
		return fmt.Errorf("at most %d sessions per client: want 0 (no bound) or more", c.MaxSessionsPerClient)
	}
	if err := checkRoute(c.SessionRoute); err != nil {
		return err
	}
	for _, o := range c.AllowedOrigins {
		if o == "*" || o == "null" {
			return fmt.Errorf("allowed origin %q would let any web page drive the browser; list the origins by name", o)
		}
	}
	return nil
}

// HTTPHandler returns the handler of the HTTP transports: streamable HTTP
// at /mcp, SSE at /sse and /message, and /healthz, all behind the Host,
// Origin and token checks. shutdown ends the transports' sessions (and so
// their browser sessions) and their open streams.
func (s *Server) HTTPHandler(c HTTPConfig) (h http.Handler, shutdown func(context.Context), err error) {
	if err := c.Check(); err != nil {
		return nil, nil, err
	}
	addr, _ := ListenAddr(c.Addr)
	streamOpts := []mcpserver.StreamableHTTPOption{
		// Only the revisions that carry Mcp-Session-Id: on 2026-07-28 there
		// is no session to hang a browser on. Modern clients negotiate down.
		mcpserver.WithStreamableHTTPProtocolVersions(mcp.LegacyProtocolVersions()...),
		// Unknown or ended session ids get 404, so clients re-initialize.
		mcpserver.WithStateful(true),
		// Our own Host check below is stricter and can be widened.
		mcpserver.WithDisableLocalhostProtection(true),
		mcpserver.WithStreamableHTTPLogger(s.log),
	}
	sseOpts := []mcpserver.SSEOption{
		mcpserver.WithSSEDisableLocalhostProtection(true),
		mcpserver.WithKeepAlive(true),
	}
	// The ids are ours to issue and check, so that the guard can check the
	// GET that opens a stream, which mcp-go does not.
	ids := newRoutedSessions(c.SessionRoute)
	streamOpts = append(streamOpts, mcpserver.WithSessionIdManager(ids))
	if s.idle > 0 {
		streamOpts = append(streamOpts, mcpserver.WithSessionIdleTTL(s.idle))
	}
	if len(c.AllowedOrigins) > 0 {
		streamOpts = append(streamOpts, mcpserver.WithStreamableHTTPCORS(mcpserver.WithCORSAllowedOrigins(c.AllowedOrigins...)))
		sseOpts = append(sseOpts, mcpserver.WithSSECORS(mcpserver.WithCORSAllowedOrigins(c.AllowedOrigins...)))
	}
	streamable := mcpserver.NewStreamableHTTPServer(s.mcp, streamOpts...)
	sse := mcpserver.NewSSEServer(s.mcp, sseOpts...)

	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable)
	mux.Handle("/sse", sse.SSEHandler())
	mux.Handle("/message", sse.MessageHandler())
	if c.Metrics != nil {
		mux.Handle("GET /metrics", c.Metrics)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	public := map[string]bool{"/healthz": true}
	hosts := allowedHosts(addr, c.AllowedHosts)
	var metaURL string
	if c.OAuth != nil {
		resource, err := url.Parse(c.OAuth.Audience())
		if err != nil {
			return nil, nil, fmt.Errorf("resource %q: %w", c.OAuth.Audience(), err)
		}
		metaURL = metadataURL(resource)
		meta := serveResourceMetadata(c.OAuth, s.scopes.supported)
		for _, p := range metadataPaths(resource) {
			mux.Handle("GET "+p, meta)
			public[p] = true
		}
		// Clients reach the server at its resource URL (a load balancer's
		// name, behind one): its host is this server's.
		hosts = append(hosts, resource.Host)
	}
	g := &guard{
		next:        mux,
		hosts:       hosts,
		origins:     append(ownOrigins(addr), c.AllowedOrigins...),
		creds:       c.Credentials,
		oauth:       c.OAuth,
		metadataURL: metaURL,
		scopes:      s.scopes,
		public:      public,
		owners:      s.owners,
		ids:         ids,
		log:         s.log,
		body:        cmp.Or(c.BodyTimeout, defaultBodyTimeout),
		write:       cmp.Or(c.WriteTimeout, defaultWriteTimeout),
	}
	if g.creds == nil && c.Token != "" {
		g.creds, err = NewCredentials([]Credential{{Name: "client1", Token: c.Token}})
		if err != nil {
			return nil, nil, err
		}
	}
	s.sessions.setPerClient(c.MaxSessionsPerClient)
	shutdown = func(ctx context.Context) {
		if err := streamable.Shutdown(ctx); err != nil {
			s.log.Warn("shut down streamable HTTP", "err", err)
		}
		sse.CloseSessions()
	}
	return g, shutdown, nil
}

// Serve serves the HTTP transports on ln until ctx ends, then shuts them
// down: every client's session ends and open streams close.
func (s *Server) Serve(ctx context.Context, ln net.Listener, c HTTPConfig) error {
	c.Addr = servedAddr(c.Addr, ln.Addr())
	h, shutdown, err := s.HTTPHandler(c)
	if err != nil {
		return err
	}
	// No ReadTimeout nor WriteTimeout: they bound a whole request and
	// response, which for a stream or a call awaiting a person is unbounded
	// by design. The guard sets per-request body and per-write deadlines
	// instead (see HTTPConfig).
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: defaultHeaderTimeout,
		IdleTimeout:       cmp.Or(c.IdleTimeout, defaultIdleTimeout),
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve http on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shutdown(sctx)
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve http on %s: %w", ln.Addr(), err)
	}
	return nil
}

// servedAddr is the address the listener serves, named as the configured
// addr names it: the configured host (which may be a name, like
// localhost) with the listener's port, which differs when addr asked for
// port 0.
func servedAddr(addr string, ln net.Addr) string {
	_, port, err := net.SplitHostPort(ln.String())
	if err != nil {
		return addr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || addr == "" {
		return ln.String()
	}
	return net.JoinHostPort(host, port)
}

// allowedHosts is the list of Host names a request may carry.
func allowedHosts(addr string, extra []string) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip, err := netip.ParseAddr(host); err != nil || !ip.IsUnspecified() {
			hosts = append(hosts, host)
		}
	}
	return append(hosts, extra...)
}

// ownOrigins lists the origins of the server itself at addr, which a
// browser sends on requests it makes to this server from a page of this
// server: the listen host, and on a loopback listener every loopback name,
// each with the listen port over http. A loopback origin on another port is
// another program (a dev server, another local app) and is refused like any
// foreign origin: DNS rebinding and drive-by pages are refused by the port
// as much as by the name.
func ownOrigins(addr string) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	var hosts []string
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsUnspecified() {
		hosts = append(hosts, host)
	}
	if IsLoopback(addr) {
		hosts = append(hosts, "localhost", "127.0.0.1", "::1")
	}
	origins := make([]string, 0, len(hosts))
	for _, h := range hosts {
		origins = append(origins, "http://"+net.JoinHostPort(h, port))
	}
	return origins
}

// guard checks every request's Host, Origin and token before the
// transports see it, keeps each MCP session to the client that opened it,
// and keeps wildcard CORS off the responses.
type guard struct {
	next    http.Handler
	hosts   []string
	origins []string
	creds   *Credentials     // nil when no static token is accepted
	oauth   *oauth.Validator // nil when no access token is accepted
	// metadataURL is the address of the resource's metadata, which a
	// refusal names.
	metadataURL string
	scopes      *scopePolicy
	public      map[string]bool // paths served without a token
	owners      *owners
	ids         *routedSessions // the streamable HTTP ids issued; nil on the metrics listener
	log         *slog.Logger
	body        time.Duration // to read a request's body
	write       time.Duration // for each write of a response
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		g.log.Debug("refused: Host", "host", r.Host, "path", r.URL.Path)
		http.Error(w, fmt.Sprintf("403 forbidden: Host %q is not allowed (DNS rebinding protection); widen with --allowed-hosts", r.Host), http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin) {
		g.log.Debug("refused: Origin", "origin", origin, "path", r.URL.Path)
		http.Error(w, fmt.Sprintf("403 forbidden: Origin %q is not allowed; widen with --allowed-origins", origin), http.StatusForbidden)
		return
	}
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	var client string
	var scopes []string
	restricted := false
	if (g.creds != nil || g.oauth != nil) && !g.public[r.URL.Path] && !preflight {
		name, granted, limited, refused := g.authenticate(r)
		if refused != nil {
			g.log.Debug("refused: token", "path", r.URL.Path)
			g.challenge(w, *refused)
			return
		}
		client, scopes, restricted = name, granted, limited
		if restricted {
			if refused := g.admits(r.URL.Path, scopes); refused != nil {
				g.log.Info("refused: insufficient scope", "client", client, "path", r.URL.Path)
				g.challenge(w, *refused)
				return
			}
		}
	}
	who := identity{name: client, oauth: restricted}
	for _, id := range requestSessions(r) {
		if !g.owners.allows(id, who) {
			// As for an id that does not exist: another client's session is
			// not even confirmed to exist.
			g.log.Warn("refused: another client's session", "client", client, "mcp_session", ShortID(id), "path", r.URL.Path)
			http.Error(w, "404 not found: no such session", http.StatusNotFound)
			return
		}
	}
	if g.ids != nil && r.URL.Path == "/mcp" && r.Method == http.MethodGet {
		// A stream is for a session initialize opened: mcp-go would open
		// and register one for any id a GET names, or make one up.
		id := r.Header.Get("Mcp-Session-Id")
		if id == "" {
			http.Error(w, "400 bad request: a GET stream needs the Mcp-Session-Id that initialize answered", http.StatusBadRequest)
			return
		}
		if !g.ids.issued(id) {
			http.Error(w, "404 not found: no such session", http.StatusNotFound)
			return
		}
	}
	rc := http.NewResponseController(w)
	if r.Body != nil && r.Body != http.NoBody {
		// Only with a body: without one, net/http is already watching the
		// connection for the client leaving, and a deadline there would
		// end the request.
		rc.SetReadDeadline(time.Now().Add(g.body))
		r.Body = &deadlineBody{ReadCloser: http.MaxBytesReader(w, r.Body, maxBody), rc: rc}
	}
	if restricted {
		if !g.checkScopes(w, r, scopes) {
			return
		}
		r = r.WithContext(withGrant(r.Context(), scopes))
	}
	r = r.WithContext(withIdentity(r.Context(), who))
	rw := &responseWriter{ResponseWriter: w, rc: rc, write: g.write, owners: g.owners, client: who}
	rw.extend()
	g.next.ServeHTTP(rw, r)
	// What the handler left buffered is written after it returns, maybe
	// long after its last write.
	rw.extend()
}

// deadlineBody lifts the body's read deadline once the whole body is read,
// so that the deadline cannot end the call the body asked for. A body that
// fails (its deadline passed) keeps it: net/http then gives up on the
// connection instead of waiting for the rest.
type deadlineBody struct {
	io.ReadCloser
	rc *http.ResponseController
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// requestSessions returns every MCP session id a request names, on any
// path: each Mcp-Session-Id header (streamable HTTP routes by it) and each
// sessionId parameter (SSE's /message routes by it). All are checked, not
// the first one found: a request that names one session to the check and
// routes by another would act in a session that is not its client's.
func requestSessions(r *http.Request) []string {
	var ids []string
	for _, id := range r.Header.Values("Mcp-Session-Id") {
		if id != "" {
			ids = append(ids, id)
		}
	}
	for _, id := range r.URL.Query()["sessionId"] {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

func (g *guard) hostAllowed(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	for _, a := range g.hosts {
		if _, _, err := net.SplitHostPort(a); err == nil {
			// host:port: the port must match too.
			if strings.EqualFold(a, hostport) {
				return true
			}
			continue
		}
		if strings.EqualFold(strings.Trim(a, "[]"), host) {
			return true
		}
	}
	return false
}

func (g *guard) originAllowed(origin string) bool {
	origin = strings.TrimSuffix(origin, "/")
	for _, a := range g.origins {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	return false
}

// responseWriter binds a new MCP session to its client before the client
// can learn the session's id, and drops "Access-Control-Allow-Origin: *",
// which mcp-go's SSE transport sets when no CORS is configured: any web
// page could read the stream otherwise.
type responseWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	write   time.Duration
	owners  *owners
	client  identity
	checked bool
}

// extend gives the next write its time.
func (w *responseWriter) extend() {
	w.rc.SetWriteDeadline(time.Now().Add(w.write))
}

func (w *responseWriter) check() {
	if w.checked {
		return
	}
	w.checked = true
	if w.Header().Get("Access-Control-Allow-Origin") == "*" {
		w.Header().Del("Access-Control-Allow-Origin")
	}
	// mcp-go registers a streamable HTTP session only after writing the
	// initialize response that names it; binding here, before the header
	// leaves, leaves no moment when the id is known and unbound. (SSE
	// sessions are bound as they register, before the id is sent.)
	if id := w.Header().Get("Mcp-Session-Id"); id != "" {
		w.owners.bind(id, w.client)
	}
}

// WriteHeader implements http.ResponseWriter.
func (w *responseWriter) WriteHeader(code int) {
	w.check()
	w.extend()
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *responseWriter) Write(b []byte) (int, error) {
	w.check()
	w.extend()
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher, which the SSE transports require.
func (w *responseWriter) Flush() {
	w.check()
	w.extend()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
