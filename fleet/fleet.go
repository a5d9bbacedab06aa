// Package fleet holds the browsers sessions live on: the one browser it
// launched or connected to, or the endpoints of a pool, each new browser
// context placed on the least-loaded one that is up, and dead endpoints
// retried with backoff (docs/architecture.md, "Contracts").
package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// Config says which browsers a Fleet holds and what every browser context
// it opens gets.
type Config struct {
	// Pool lists remote DevTools endpoints to open contexts on,
	// least-loaded first, instead of the one browser of the browser
	// options.
	Pool []string
	// StorageState is a storage-state file in the format Playwright writes
	// (cookies and localStorage per origin), loaded into every new
	// context; empty loads nothing.
	StorageState string
	// URLPolicy is enforced by the browser on every document its pages
	// load (unless the browser options carry a DocumentPolicy).
	URLPolicy urlpolicy.Policy
	// Logger receives the fleet's log; nil discards it.
	Logger *slog.Logger
}

// Fleet opens isolated browser contexts on one browser, or on the browsers
// of a pool.
type Fleet struct {
	config Config
	// started is closed when the first start of every member has ended;
	// then err says why none started, if none did.
	started chan struct{}
	err     error
	// stop abandons a start under way.
	stop context.CancelFunc
	// storage is the parsed Config.StorageState, nil when there is none.
	storage *browser.StorageState
	// oneSession names the flag that limits the browser to one context at
	// a time (its default context holds one tab), or is "".
	oneSession string

	// life ends when the Fleet closes; pool endpoints are retried under
	// it, by goroutines that retries waits for.
	life    context.Context
	endLife context.CancelFunc
	retries sync.WaitGroup

	mu      sync.Mutex
	members []*member
	closed  bool
}

// Start starts launching or connecting to a browser as opts say, or to the
// endpoints of cfg.Pool, and returns at once; Open waits for the browser. A
// server starts the browser this way while its client connects, rather
// than after. ctx bounds the start only. A storage-state file that cannot
// be read fails the start (Started reports it) before any browser starts.
//
// A pool's endpoints are browsers with a debugging port, ws://… of a
// browserless-style service, or a Selenium Grid node's CDP address; opts
// applies to each (its CDPEndpoint is ignored). An endpoint that dies or
// refuses (a wrong token, full) ends only its own contexts, which move to
// another endpoint (Lease.Move), and it is retried with backoff; the start
// of a pool does not fail even when none is up.
func Start(ctx context.Context, opts browser.Options, cfg Config) *Fleet {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	members := []*member{{opts: opts}}
	if len(cfg.Pool) > 0 {
		members = make([]*member, len(cfg.Pool))
		for i, e := range cfg.Pool {
			o := opts
			o.CDPEndpoint = e
			members[i] = &member{endpoint: e, opts: o}
		}
	}
	return start(ctx, members, cfg)
}

// New launches or connects to a browser as Start does, and returns once it
// runs.
func New(ctx context.Context, opts browser.Options, cfg Config) (*Fleet, error) {
	f := Start(ctx, opts, cfg)
	if err := f.Started(ctx); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// start connects to or launches every member concurrently; the Fleet has
// started when every attempt ended. It fails only if none succeeded and
// it is not a pool: a pool's endpoints are retried until one is up.
func start(ctx context.Context, members []*member, cfg Config) *Fleet {
	ctx, stop := context.WithCancel(ctx)
	check := cfg.URLPolicy.DocumentCheck(net.DefaultResolver)
	for _, m := range members {
		if m.opts.DocumentPolicy == nil {
			m.opts.DocumentPolicy = check
		}
	}
	f := &Fleet{config: cfg, started: make(chan struct{}), stop: stop, members: members}
	f.life, f.endLife = context.WithCancel(context.WithoutCancel(ctx))
	if members[0].opts.DefaultContext {
		f.oneSession = "--cdp-default-context"
		if members[0].opts.UserDataDir != "" {
			f.oneSession = "--user-data-dir"
		}
	}
	if path := cfg.StorageState; path != "" {
		if members[0].opts.Attached {
			f.err = fmt.Errorf("--storage-state %s: %w", path, browser.ErrAttachedStorage)
			close(f.started)
			return f
		}
		st, err := browser.ReadStorageStateFile(path)
		if err != nil {
			f.err = err
			close(f.started)
			return f
		}
		f.storage = &st
		cfg.Logger.Info("storage state to load into every session", "file", path,
			"cookies", len(st.Cookies), "origins", len(st.Origins))
	}
	go func() {
		defer close(f.started)
		errs := make([]error, len(members))
		var wg sync.WaitGroup
		for i, mb := range members {
			wg.Go(func() { errs[i] = f.connect(ctx, mb) })
		}
		wg.Wait()
		if slices.ContainsFunc(errs, func(err error) bool { return err == nil }) {
			return
		}
		if len(cfg.Pool) > 0 {
			// A pool whose endpoints are all down (dead, refusing, full)
			// is retried like one that died later: the server keeps
			// serving, and sessions open once an endpoint is back.
			cfg.Logger.Warn("browser pool: no endpoint is up; each is retried with backoff", "reasons", f.downReasons())
			return
		}
		f.err = fmt.Errorf("start browser: %w", errors.Join(errs...))
	}()
	return f
}

// Started waits for the browser's start to end and reports why it failed,
// if it did.
func (f *Fleet) Started(ctx context.Context) error {
	select {
	case <-f.started:
		return f.err
	case <-ctx.Done():
		return fmt.Errorf("wait for the browser to start: %w", context.Cause(ctx))
	}
}

// Close closes every context and the browsers this process started; a
// start under way is abandoned.
func (f *Fleet) Close() error {
	f.stop()
	<-f.started
	f.mu.Lock()
	f.closed = true
	f.endLife()
	var browsers []*browser.Browser
	for _, mb := range f.members {
		if mb.b != nil {
			browsers = append(browsers, mb.b)
		}
	}
	f.mu.Unlock()
	f.retries.Wait()
	var errs []error
	for _, b := range browsers {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}

// Open waits for the browser, opens an isolated browser context on the
// least-loaded member that is up, and loads the storage state into it.
// The Lease holds the context's place until it is released.
func (f *Fleet) Open(ctx context.Context) (*Lease, error) {
	if err := f.Started(ctx); err != nil {
		return nil, err
	}
	l, err := f.open(ctx, nil)
	if errors.Is(err, browser.ErrContextBusy) {
		return nil, fmt.Errorf("%s allows one session at a time; another session is open, and this one was not "+
			"opened: end the other (close its MCP client) or wait until it idles out, then try again (%w)", f.oneSession, err)
	}
	if err != nil {
		return nil, err
	}
	if f.storage != nil {
		if err := l.Context.LoadStorageState(ctx, *f.storage); err != nil {
			l.Close()
			return nil, fmt.Errorf("load the storage state %s: %w", f.config.StorageState, err)
		}
	}
	return l, nil
}
