package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
)

// Backoff after an endpoint fails: the first retry waits minBackoff, each
// failure in a row doubles the wait, up to maxBackoff.
const (
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
	// startTimeout bounds one reconnection.
	startTimeout = 30 * time.Second
)

// member is one browser of a Manager: the one it launched or connected to,
// or one endpoint of a pool.
type member struct {
	// endpoint is the DevTools address of a pool member; "" for the
	// browser the Manager launched or connected to itself.
	endpoint string
	opts     browser.Options

	// The fields below are guarded by the Manager's mu.
	b        *browser.Browser // nil until connected, and after it died
	sessions int              // sessions whose page is on b
	failures int              // failures in a row
	retryAt  time.Time        // when a down member may be tried again
	retrying bool             // a goroutine is bringing it back
}

// name is how logs and messages call the member: its endpoint without path,
// query or credentials (a browserless-style ?token=… stays out of logs).
func (mb *member) name() string {
	if mb.endpoint == "" {
		return "the browser"
	}
	return EndpointName(mb.endpoint)
}

// EndpointName is a DevTools endpoint as logs and messages may show it:
// scheme, host and port only, so that tokens in its path or query never
// reach a log.
func EndpointName(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "an endpoint"
	}
	return u.Scheme + "://" + u.Host
}

// StartPool connects to the browsers at the DevTools endpoints (Chrome with a
// debugging port, ws://… of a browserless-style service, a Selenium Grid
// node's CDP address) and returns at once. Each new session opens its
// browser context on the least-loaded endpoint that is up; an endpoint that
// dies ends only its own sessions, which move to another endpoint on their
// next call, and it is retried with backoff. opts applies to every endpoint
// (its CDPEndpoint is ignored). ctx bounds the first connections only.
func StartPool(ctx context.Context, endpoints []string, opts browser.Options, cfg Config) *Manager {
	members := make([]*member, len(endpoints))
	for i, e := range endpoints {
		o := opts
		o.CDPEndpoint = e
		members[i] = &member{endpoint: e, opts: o}
	}
	return start(ctx, members, cfg)
}

// start connects to or launches every member concurrently; the Manager has
// started when every attempt ended, and fails only if none succeeded.
func start(ctx context.Context, members []*member, cfg Config) *Manager {
	ctx, stop := context.WithCancel(ctx)
	check := cfg.URLPolicy.DocumentCheck(net.DefaultResolver)
	for _, m := range members {
		if m.opts.DocumentPolicy == nil {
			m.opts.DocumentPolicy = check
		}
	}
	m := &Manager{config: cfg.withDefaults(), started: make(chan struct{}), stop: stop, members: members}
	m.life, m.endLife = context.WithCancel(context.WithoutCancel(ctx))
	if members[0].opts.DefaultContext {
		m.oneSession = "--cdp-default-context"
		if members[0].opts.UserDataDir != "" {
			m.oneSession = "--user-data-dir"
		}
	}
	if path := m.config.StorageState; path != "" {
		st, err := browser.ReadStorageStateFile(path)
		if err != nil {
			m.err = err
			close(m.started)
			return m
		}
		m.storage = &st
		m.config.Logger.Info("storage state to load into every session", "file", path,
			"cookies", len(st.Cookies), "origins", len(st.Origins))
	}
	go func() {
		defer close(m.started)
		errs := make([]error, len(members))
		var wg sync.WaitGroup
		for i, mb := range members {
			wg.Go(func() { errs[i] = m.connect(ctx, mb) })
		}
		wg.Wait()
		if slices.ContainsFunc(errs, func(err error) bool { return err == nil }) {
			return
		}
		m.err = fmt.Errorf("start browser: %w", errors.Join(errs...))
	}()
	return m
}

// connect launches or connects to a member's browser, or marks it down.
func (m *Manager) connect(ctx context.Context, mb *member) error {
	b, err := browser.Launch(ctx, mb.opts)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.down(mb)
		if mb.endpoint == "" {
			return err
		}
		return fmt.Errorf("%s: %w", mb.name(), err)
	}
	if m.closed {
		b.Close()
		return fmt.Errorf("%s: manager %w", mb.name(), browser.ErrClosed)
	}
	mb.b, mb.failures, mb.retryAt = b, 0, time.Time{}
	if mb.endpoint != "" {
		m.config.Logger.Info("browser pool: endpoint up", "endpoint", mb.name())
	}
	return nil
}

// down marks a member failed and, for a pool endpoint, has it retried in
// the background with backoff until it is back or the Manager closes. m.mu
// is held.
func (m *Manager) down(mb *member) {
	mb.failures++
	wait := min(minBackoff<<min(mb.failures-1, 10), maxBackoff)
	mb.retryAt = time.Now().Add(wait)
	if mb.endpoint == "" || mb.retrying || m.closed {
		return
	}
	m.config.Logger.Warn("browser pool: endpoint down", "endpoint", mb.name(), "retry_in", wait, "failures", mb.failures)
	mb.retrying = true
	m.retries.Go(func() { m.retry(mb) })
}

// retry reconnects to a pool endpoint once its backoff has passed, again
// and again, until it is back or the Manager closes.
func (m *Manager) retry(mb *member) {
	for {
		m.mu.Lock()
		wait := time.Until(mb.retryAt)
		m.mu.Unlock()
		select {
		case <-time.After(wait):
		case <-m.life.Done():
			return
		}
		ctx, cancel := context.WithTimeout(m.life, startTimeout)
		err := m.connect(ctx, mb)
		cancel()
		m.mu.Lock()
		if err == nil || m.closed {
			mb.retrying = false
			m.mu.Unlock()
			return
		}
		m.mu.Unlock()
	}
}

// reserve chooses the member a new page goes to and counts it there at
// once, so that sessions opening at the same moment spread over the members
// rather than all finding the same one least loaded: the least-loaded member
// that is up, counting sessions still opening, skipping avoid (the member a
// session is leaving, unless it is the only one) and tried. A pool endpoint
// found dead is marked down and retried in the background. It returns nil
// when no member is left to try; a reservation that does not become a
// session is given back with release.
func (m *Manager) reserve(avoid *member, tried []*member) *member {
	m.mu.Lock()
	defer m.mu.Unlock()
	var best *member
	for _, mb := range m.members {
		if (mb == avoid && len(m.members) > 1) || slices.Contains(tried, mb) {
			continue
		}
		switch {
		case mb.b != nil && (mb.endpoint == "" || mb.b.Alive()):
			// The Manager's own browser relaunches itself (Tab.Recover).
			if best == nil || mb.sessions < best.sessions {
				best = mb
			}
		case mb.b != nil:
			// It died since the last look: its sessions move as they
			// notice; new ones wait for the backoff.
			m.drop(mb)
		}
	}
	if best != nil {
		best.sessions++
	}
	return best
}

// drop lets go of a pool endpoint's dead browser and marks it down. m.mu is
// held.
func (m *Manager) drop(mb *member) {
	dead := mb.b
	mb.b = nil
	m.retries.Go(func() { dead.Close() })
	m.down(mb)
}

// openTab opens a page in a new browser context on the best member that
// works.
func (m *Manager) openTab(ctx context.Context, avoid *member) (*browser.Tab, *member, error) {
	var errs []error
	var tried []*member
	for {
		mb := m.reserve(avoid, tried)
		if mb == nil {
			break
		}
		tried = append(tried, mb)
		m.mu.Lock()
		b := mb.b
		m.mu.Unlock()
		if b == nil {
			m.release(mb) // dropped meanwhile
			continue
		}
		tab, err := b.NewTab(ctx)
		if err == nil {
			return tab, mb, nil
		}
		m.release(mb)
		errs = append(errs, fmt.Errorf("%s: %w", mb.name(), err))
		if mb.endpoint != "" && !b.Alive() {
			m.mu.Lock()
			if mb.b == b {
				m.drop(mb)
			}
			m.mu.Unlock()
		}
	}
	if len(errs) == 0 {
		return nil, nil, errors.New("no browser is up: every pool endpoint is down and waiting to be retried")
	}
	return nil, nil, errors.Join(errs...)
}

// release gives back a session's place on a member.
func (m *Manager) release(mb *member) {
	m.mu.Lock()
	mb.sessions--
	m.mu.Unlock()
}

// pooled reports whether a session on mb moves to another browser when its
// own dies, rather than relaunching or reconnecting to the same one.
func (m *Manager) pooled(mb *member) bool { return mb.endpoint != "" }

// home is where a session's page lives: its Manager and member. A session
// made by NewSession from a tab of its own has none.
type home struct {
	m  *Manager
	mb *member
}

// move reopens the session's page on another browser after its own died:
// a new isolated context, at the URL the page was on. It returns the message
// the agent must see.
func (s *Session) move(ctx context.Context) string {
	h := s.home
	from, url := h.mb.name(), s.tab.URL()
	s.tab.Close()
	h.m.release(h.mb)
	tab, mb, err := h.m.openTab(ctx, h.mb)
	if err != nil {
		s.home = nil
		return fmt.Sprintf("The browser at %s went away and no other browser of the pool could take this session: %v. Every ref from earlier snapshots is invalid.", from, err)
	}
	s.tab, s.home = tab, &home{h.m, mb}
	s.log.Warn("browser pool: session moved", "from", from, "to", mb.name())
	lost := "cookies and storage of the old one are lost"
	if h.m.storage != nil {
		lost = "the --storage-state login loaded again; what the old one added is lost"
		if err := tab.LoadStorageState(ctx, *h.m.storage); err != nil {
			lost = fmt.Sprintf("loading the --storage-state login into it failed: %v", err)
		}
	}
	msg := fmt.Sprintf("The browser at %s went away; this session moved to the browser at %s, in a fresh context (%s). Every ref from earlier snapshots is invalid.", from, mb.name(), lost)
	if url == "" || url == "about:blank" {
		return msg + " Read the new snapshot before acting."
	}
	if err := s.tab.Navigate(ctx, url); err != nil {
		return msg + fmt.Sprintf(" Reopening %s failed: %v.", url, err)
	}
	return msg + fmt.Sprintf(" The page was at %s and has been reopened: read the new snapshot before acting.", url)
}
