package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/ctxjoin"
	"github.com/chaperone-mcp/chaperone/tools"
)

// errSessionClosed reports a call on a browser session that closed while the
// call waited or ran.
var errSessionClosed = errors.New("the browser session closed")

// shutdownWait bounds how long shutdown waits for a running call to give
// back its session before closing the session under it.
const shutdownWait = 5 * time.Second

// registry holds the browser session of each MCP session: it opens one on a
// client's first call, runs a session's calls one at a time, and closes it
// when the client goes, when it idles too long, or at shutdown.
//
// Only a connected MCP session gets a browser session: a call that raced its
// client's disconnect finds its session gone and opens nothing, so no
// browser session outlives its client.
type registry struct {
	open func(context.Context) (Session, error)
	max  int
	idle time.Duration
	log  *slog.Logger

	stopReaper context.CancelFunc
	closing    sync.WaitGroup

	mu        sync.Mutex
	entries   map[string]*entry
	connected map[string]bool // MCP sessions between connect and close
	perClient int             // most entries of one client; 0: no bound
	down      bool
}

// entry is the browser session of one MCP session.
type entry struct {
	id     string
	client string // the credential's name; empty without tokens
	// turn holds a token while a call (or the opening, or the closing) uses
	// sess; it serialises the session's calls.
	turn chan struct{}
	// sess is nil until the first call opens it. Guarded by turn.
	sess Session
	// ctx ends when the entry closes, cancelling its running call.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// used is when a call last ended or began, in Unix nanoseconds.
	used atomic.Int64
}

func newRegistry(open func(context.Context) (Session, error), max int, idle time.Duration, log *slog.Logger) *registry {
	r := &registry{open: open, max: max, idle: idle, log: log, entries: make(map[string]*entry), connected: make(map[string]bool)}
	ctx, cancel := context.WithCancel(context.Background())
	r.stopReaper = cancel
	if idle > 0 {
		go r.reap(ctx)
	}
	return r
}

// setPerClient bounds the browser sessions one client may have open.
func (r *registry) setPerClient(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.perClient = n
}

// connect records that the MCP session id is connected: it may get a
// browser session until close.
func (r *registry) connect(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.connected[id] = true
}

// call runs the tool on the browser session of the MCP session id, opening
// it first if need be, for client. It waits for the session's previous call
// to end.
func (r *registry) call(ctx context.Context, id, client, name string, args json.RawMessage) (tools.Output, error) {
	e, err := r.entry(id, client)
	if err != nil {
		return tools.Output{}, err
	}
	select {
	case e.turn <- struct{}{}:
	case <-ctx.Done():
		return tools.Output{}, fmt.Errorf("call %s: %w", name, ctx.Err())
	case <-e.ctx.Done():
		return tools.Output{}, fmt.Errorf("call %s: %w: %v", name, errSessionClosed, context.Cause(e.ctx))
	}
	defer func() {
		e.used.Store(time.Now().UnixNano())
		<-e.turn
	}()
	e.used.Store(time.Now().UnixNano())
	if e.ctx.Err() != nil {
		return tools.Output{}, fmt.Errorf("call %s: %w: %v", name, errSessionClosed, context.Cause(e.ctx))
	}
	ctx, stop := ctxjoin.Join(ctx, e.ctx)
	defer stop()
	if e.sess == nil {
		start := time.Now()
		sess, err := r.open(withClient(ctx, e.client))
		if err != nil {
			r.drop(e, fmt.Errorf("opening failed: %w", err))
			return tools.Output{}, fmt.Errorf("open a browser session: %w", err)
		}
		e.sess = sess
		r.log.Info("browser session opened", "client", e.client, "mcp_session", ShortID(id), "took", time.Since(start).Round(time.Millisecond))
	}
	return e.sess.Call(ctx, name, args)
}

// prepare opens the browser session of the MCP session id ahead of its first
// call, in the background, so that the opening overlaps the client's
// initialization; that call waits for the opening to end. A failed opening
// is left to the first call, which tries again and reports it.
func (r *registry) prepare(id string) {
	e, err := r.entry(id, "")
	if err != nil {
		r.log.Warn("cannot open the browser session ahead of the first call", "mcp_session", ShortID(id), "err", err)
		return
	}
	select {
	case e.turn <- struct{}{}:
	default:
		return // a call has it already
	}
	go func() {
		defer func() {
			e.used.Store(time.Now().UnixNano())
			<-e.turn
		}()
		if e.sess != nil || e.ctx.Err() != nil {
			return
		}
		start := time.Now()
		sess, err := r.open(withClient(e.ctx, e.client))
		if err != nil {
			r.log.Warn("opening the browser session ahead of the first call failed; the first call tries again",
				"mcp_session", ShortID(id), "err", err)
			return
		}
		e.sess = sess
		r.log.Info("browser session opened", "client", e.client, "mcp_session", ShortID(id), "took", time.Since(start).Round(time.Millisecond), "ahead", true)
	}()
}

// entry finds or adds the entry of id, for client, keeping to the session
// limits.
func (r *registry) entry(id, client string) (*entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		return nil, errors.New("the server is shutting down")
	}
	if e, ok := r.entries[id]; ok {
		return e, nil
	}
	if !r.connected[id] {
		return nil, fmt.Errorf("the MCP session %s… has ended: its client disconnected", ShortID(id))
	}
	if r.max > 0 && len(r.entries) >= r.max {
		return nil, fmt.Errorf("chaperone already runs %d browser sessions, its limit (--max-sessions); "+
			"close another client's connection or wait for an idle session to time out, then call again", r.max)
	}
	if r.perClient > 0 {
		n := 0
		for _, e := range r.entries {
			if e.client == client {
				n++
			}
		}
		if n >= r.perClient {
			return nil, fmt.Errorf("this client already has %d browser sessions open, its limit (--max-sessions-per-client); "+
				"close one of its other MCP connections or wait for an idle one to time out, then call again", n)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	e := &entry{id: id, client: client, turn: make(chan struct{}, 1), ctx: ctx, cancel: cancel}
	e.used.Store(time.Now().UnixNano())
	r.entries[id] = e
	return e, nil
}

// drop forgets e, if it is still the entry of its id, and cancels it.
func (r *registry) drop(e *entry, cause error) {
	r.mu.Lock()
	if r.entries[e.id] == e {
		delete(r.entries, e.id)
	}
	r.mu.Unlock()
	e.cancel(cause)
}

// close closes the browser session of the MCP session id, if it has one,
// cancelling its running call. It does not wait.
func (r *registry) close(id, why string) {
	r.mu.Lock()
	delete(r.connected, id)
	e, ok := r.entries[id]
	r.mu.Unlock()
	if !ok {
		return
	}
	r.drop(e, errors.New(why))
	r.closing.Go(func() {
		// A running call ends soon: its context is cancelled.
		select {
		case e.turn <- struct{}{}:
			r.closeSession(e, why)
			return
		case <-time.After(shutdownWait):
		}
		// A call that ignores its context must not hold up shutdown; its
		// session closes when the call ends, or with the browser.
		r.log.Warn("a call did not end after its session was closed; closing the session when it does", "mcp_session", ShortID(e.id))
		go func() {
			e.turn <- struct{}{}
			r.closeSession(e, why)
		}()
	})
}

// closeSession closes e's browser session; the caller holds e's turn.
func (r *registry) closeSession(e *entry, why string) {
	if e.sess == nil {
		return
	}
	if err := e.sess.Close(); err != nil {
		r.log.Warn("close browser session", "client", e.client, "mcp_session", ShortID(e.id), "err", err)
	}
	e.sess = nil
	r.log.Info("browser session closed", "client", e.client, "mcp_session", ShortID(e.id), "why", why)
}

// reap closes sessions idle for longer than r.idle, until ctx ends.
func (r *registry) reap(ctx context.Context) {
	tick := time.NewTicker(max(r.idle/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		r.mu.Lock()
		var idle []*entry
		for _, e := range r.entries {
			if time.Since(time.Unix(0, e.used.Load())) > r.idle {
				idle = append(idle, e)
			}
		}
		r.mu.Unlock()
		for _, e := range idle {
			select {
			case e.turn <- struct{}{}: // not in a call
			default:
				continue
			}
			if time.Since(time.Unix(0, e.used.Load())) <= r.idle {
				<-e.turn
				continue
			}
			why := fmt.Sprintf("idle for more than %s (--session-idle)", r.idle)
			r.drop(e, errors.New(why))
			r.closeSession(e, why)
			// The turn stays taken: the entry is gone for good.
		}
	}
}

// shutdown closes every session, waiting a little for running calls, and
// refuses new ones.
func (r *registry) shutdown() error {
	r.stopReaper()
	r.mu.Lock()
	r.down = true
	entries := make([]*entry, 0, len(r.entries))
	for id, e := range r.entries {
		entries = append(entries, e)
		delete(r.entries, id)
	}
	r.mu.Unlock()
	for _, e := range entries {
		e.cancel(errors.New("the server is shutting down"))
		r.closing.Go(func() {
			select {
			case e.turn <- struct{}{}:
				r.closeSession(e, "shutdown")
			case <-time.After(shutdownWait):
				// Closing the browser ends the session with the rest.
				r.log.Warn("a call did not end in time; leaving its session to the browser's close", "mcp_session", ShortID(e.id))
			}
		})
	}
	r.closing.Wait()
	return nil
}

// count reports the number of open or opening sessions.
func (r *registry) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}
