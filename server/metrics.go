package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// OpenSessions reports the browser sessions open or opening now.
func (s *Server) OpenSessions() int { return s.sessions.count() }

// MetricsConfig says where a metrics listener of its own listens
// (--metrics-listen) and what it serves.
type MetricsConfig struct {
	// Addr is the listen address, host:port; a missing host means
	// 127.0.0.1, as for HTTPConfig.Addr.
	Addr string
	// AllowedHosts widens the Host headers accepted beyond localhost,
	// 127.0.0.1, [::1] and the listen address's own host.
	AllowedHosts []string
	// Handler serves GET /metrics.
	Handler http.Handler
	// Logger receives the listener's log; nil discards it.
	Logger *slog.Logger
}

// ServeMetrics serves GET /metrics on ln until ctx ends, with no MCP
// token: what it shows is counts by tool, code and endpoint, no session's
// content. The Host and Origin checks still apply, so a web page cannot
// read it through DNS rebinding; nothing else is served there.
func ServeMetrics(ctx context.Context, ln net.Listener, c MetricsConfig) error {
	if c.Handler == nil {
		return errors.New("serve metrics: no handler")
	}
	log := cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	addr := servedAddr(c.Addr, ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", c.Handler)
	g := &guard{
		next:    mux,
		hosts:   allowedHosts(addr, c.AllowedHosts),
		origins: ownOrigins(addr),
		owners:  newOwners(),
		log:     log,
		body:    defaultBodyTimeout,
		write:   defaultWriteTimeout,
	}
	srv := &http.Server{
		Handler:           g,
		ReadHeaderTimeout: defaultHeaderTimeout,
		IdleTimeout:       defaultIdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve metrics on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve metrics on %s: %w", ln.Addr(), err)
	}
	return nil
}
