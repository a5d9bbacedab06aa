package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	// reason is why the member is down (its last failure, told without
	// credentials), "" while it is up.
	reason string
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
func EndpointName(endpoint string) string { return browser.EndpointName(endpoint) }

// connect launches or connects to a member's browser, or marks it down.
func (f *Fleet) connect(ctx context.Context, mb *member) error {
	b, err := browser.Launch(ctx, mb.opts)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.down(mb, err)
		if mb.endpoint == "" {
			return err
		}
		return fmt.Errorf("%s: %w", mb.name(), err)
	}
	if f.closed {
		b.Close()
		return fmt.Errorf("%s: fleet %w", mb.name(), browser.ErrClosed)
	}
	mb.b, mb.failures, mb.retryAt, mb.reason = b, 0, time.Time{}, ""
	if mb.endpoint != "" {
		f.config.Logger.Info("browser pool: endpoint up", "endpoint", mb.name())
		f.retries.Go(func() { f.watch(mb, b) })
	}
	return nil
}

// watch marks a pool endpoint down the moment its browser b is gone (it
// died, or the service ended the connection at its session timeout), so
// that it is retried at once rather than when the next session looks.
func (f *Fleet) watch(mb *member, b *browser.Browser) {
	select {
	case <-b.Gone():
	case <-f.life.Done():
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if mb.b == b && !f.closed {
		f.drop(mb)
	}
}

// down marks a member failed for the reason why and, for a pool endpoint,
// has it retried in the background with backoff until it is back or the
// Fleet closes. An endpoint that refuses (a wrong token, full, a queue that
// holds the handshake) is down like a dead one. m.mu is held.
func (f *Fleet) down(mb *member, why error) {
	mb.failures++
	wait := min(minBackoff<<min(mb.failures-1, 10), maxBackoff)
	mb.retryAt = time.Now().Add(wait)
	mb.reason = reason(why)
	if mb.endpoint == "" || f.closed {
		return
	}
	f.config.Logger.Warn("browser pool: endpoint down", "endpoint", mb.name(), "reason", mb.reason,
		"retry_in", wait, "failures", mb.failures)
	if mb.retrying {
		return
	}
	mb.retrying = true
	f.retries.Go(func() { f.retry(mb) })
}

// retry reconnects to a pool endpoint once its backoff has passed, again
// and again, until it is back or the Fleet closes.
func (f *Fleet) retry(mb *member) {
	for {
		f.mu.Lock()
		wait := time.Until(mb.retryAt)
		f.mu.Unlock()
		select {
		case <-time.After(wait):
		case <-f.life.Done():
			return
		}
		ctx, cancel := context.WithTimeout(f.life, startTimeout)
		err := f.connect(ctx, mb)
		cancel()
		f.mu.Lock()
		if err == nil || f.closed {
			mb.retrying = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
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
func (f *Fleet) reserve(avoid *member, tried []*member) *member {
	f.mu.Lock()
	defer f.mu.Unlock()
	var best *member
	for _, mb := range f.members {
		if (mb == avoid && len(f.members) > 1) || slices.Contains(tried, mb) {
			continue
		}
		switch {
		case mb.b != nil && (mb.endpoint == "" || mb.b.Alive()):
			// The Fleet's own browser relaunches itself (Context.Recover).
			if best == nil || mb.sessions < best.sessions {
				best = mb
			}
		case mb.b != nil:
			// It died since the last look: its sessions move as they
			// notice; new ones wait for the backoff.
			f.drop(mb)
		}
	}
	if best != nil {
		best.sessions++
	}
	return best
}

// errConnectionLost is why an endpoint whose browser was up is down: the
// browser died, or the endpoint ended the connection (a browser service
// does at its session timeout).
var errConnectionLost = errors.New("the connection to its browser was lost (the browser died, or the service ended the session, e.g. at its session timeout)")

// drop lets go of a pool endpoint's dead browser and marks it down. m.mu is
// held.
func (f *Fleet) drop(mb *member) {
	dead := mb.b
	mb.b = nil
	f.retries.Go(func() { dead.Close() })
	f.down(mb, errConnectionLost)
}

// reason is why a member is down, as logs and messages show it; errors of
// the browser package never hold an endpoint's credentials.
func reason(err error) string { return err.Error() }

// open opens a page in a new browser context on the best member that
// works, avoiding avoid where another is up.
func (f *Fleet) open(ctx context.Context, avoid *member) (*Lease, error) {
	var errs []error
	var tried []*member
	for {
		mb := f.reserve(avoid, tried)
		if mb == nil {
			break
		}
		tried = append(tried, mb)
		f.mu.Lock()
		b := mb.b
		f.mu.Unlock()
		if b == nil {
			f.release(mb) // dropped meanwhile
			continue
		}
		tab, err := b.NewContext(ctx)
		if err == nil {
			if mb.endpoint != "" {
				f.config.Logger.Info("browser pool: session placed", "endpoint", mb.name())
			}
			return &Lease{Context: tab, f: f, mb: mb, b: b}, nil
		}
		f.release(mb)
		errs = append(errs, fmt.Errorf("%s: %w", mb.name(), err))
		if mb.endpoint != "" && !b.Alive() {
			f.mu.Lock()
			if mb.b == b {
				f.drop(mb)
			}
			f.mu.Unlock()
		}
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("no browser is up: every pool endpoint is down and waiting to be retried (%s)", f.downReasons())
	}
	return nil, errors.Join(errs...)
}

// release gives back a session's place on a member.
func (f *Fleet) release(mb *member) {
	f.mu.Lock()
	mb.sessions--
	f.mu.Unlock()
}

// downReasons says, for each member that is down, why.
func (f *Fleet) downReasons() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rs []string
	for _, mb := range f.members {
		if mb.b == nil && mb.reason != "" {
			rs = append(rs, mb.name()+": "+mb.reason)
		}
	}
	if len(rs) == 0 {
		return "none has started yet"
	}
	return strings.Join(rs, "; ")
}
