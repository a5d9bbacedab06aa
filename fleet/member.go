package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
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

// connect launches or connects to a member's browser, or marks it down.
func (f *Fleet) connect(ctx context.Context, mb *member) error {
	b, err := browser.Launch(ctx, mb.opts)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.down(mb)
		if mb.endpoint == "" {
			return err
		}
		return fmt.Errorf("%s: %w", mb.name(), err)
	}
	if f.closed {
		b.Close()
		return fmt.Errorf("%s: fleet %w", mb.name(), browser.ErrClosed)
	}
	mb.b, mb.failures, mb.retryAt = b, 0, time.Time{}
	if mb.endpoint != "" {
		f.config.Logger.Info("browser pool: endpoint up", "endpoint", mb.name())
	}
	return nil
}

// down marks a member failed and, for a pool endpoint, has it retried in
// the background with backoff until it is back or the Fleet closes. m.mu
// is held.
func (f *Fleet) down(mb *member) {
	mb.failures++
	wait := min(minBackoff<<min(mb.failures-1, 10), maxBackoff)
	mb.retryAt = time.Now().Add(wait)
	if mb.endpoint == "" || mb.retrying || f.closed {
		return
	}
	f.config.Logger.Warn("browser pool: endpoint down", "endpoint", mb.name(), "retry_in", wait, "failures", mb.failures)
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

// drop lets go of a pool endpoint's dead browser and marks it down. m.mu is
// held.
func (f *Fleet) drop(mb *member) {
	dead := mb.b
	mb.b = nil
	f.retries.Go(func() { dead.Close() })
	f.down(mb)
}

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
		return nil, errors.New("no browser is up: every pool endpoint is down and waiting to be retried")
	}
	return nil, errors.Join(errs...)
}

// release gives back a session's place on a member.
func (f *Fleet) release(mb *member) {
	f.mu.Lock()
	mb.sessions--
	f.mu.Unlock()
}
