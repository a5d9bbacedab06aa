package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/pause"
	"github.com/chaperone-mcp/chaperone/internal/robots"
	"github.com/chaperone-mcp/chaperone/internal/weburl"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// Polite automation: a session may be held to a number of actions a
// minute (Config.MaxActionsPerMinute), and may honour the robots.txt of the
// sites the agent opens (Config.RespectRobots). See docs/architecture.md.

// polite is a session's state for both.
type polite struct {
	// last is when the last action that counted started.
	last time.Time
	// now and sleep are the clock, replaced in tests; nil means the real
	// one.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	// robots holds each origin's rules, fetched once in a while, under
	// robotsMu.
	robotsMu sync.Mutex
	robots   map[string]robotsEntry
	// client fetches robots.txt; nil means one made from the URL policy.
	client *http.Client
}

// paced runs a call under the session's action rate: an action (a tool
// that is not read-only: reading the page costs a site nothing) starts at
// least a minute / MaxActionsPerMinute after the one before it, waiting
// when it comes sooner, and its message says how long it waited. A call
// cancelled while it waits does nothing.
func (s *Session) paced(ctx context.Context, readOnly bool, run func(context.Context) Output) Output {
	if readOnly || s.config.MaxActionsPerMinute <= 0 {
		return run(ctx)
	}
	waited, err := s.polite.admit(ctx, time.Minute/time.Duration(s.config.MaxActionsPerMinute))
	if err != nil {
		s.log.Info("call cancelled while it waited for the action rate", "waited", waited)
		// The session is left as it was: no capture replaces the live
		// refs for a client that has gone.
		return s.output(toolapi.ActionResult{Snapshot: s.last, Error: code(toolapi.Timeout),
			Message: fmt.Sprintf("The call was cancelled after it waited %s for the action rate (at most %d actions a minute); nothing was done.", roundWait(waited), s.config.MaxActionsPerMinute)})
	}
	out := run(ctx)
	if waited <= 0 {
		return out
	}
	s.log.Debug("call waited for the action rate", "waited", waited)
	if r, ok := out.Value.(toolapi.ActionResult); ok {
		r.Message = joinMessage(r.Message, fmt.Sprintf("(Waited %s first: this session takes at most %d actions a minute.)", roundWait(waited), s.config.MaxActionsPerMinute))
		out.Value = r
	}
	return out
}

// roundWait says a wait in tenths of a second.
func roundWait(d time.Duration) string {
	return fmt.Sprintf("%.1f s", d.Round(100*time.Millisecond).Seconds())
}

// admit waits until an action may start, at least gap after the last one,
// and records its start. It returns how long it waited, and the context's
// error when it was cancelled first (then nothing is recorded).
func (p *polite) admit(ctx context.Context, gap time.Duration) (time.Duration, error) {
	now, sleep := p.now, p.sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = pause.For
	}
	start := now()
	wait := p.last.Add(gap).Sub(start)
	if p.last.IsZero() || wait <= 0 {
		p.last = start
		return 0, nil
	}
	if err := sleep(ctx, wait); err != nil {
		return now().Sub(start), err
	}
	p.last = now()
	return p.last.Sub(start), nil
}

// Robots.txt.

// robotsAgent is the product token Chaperone reads robots.txt groups for,
// and sends as its user agent when it fetches one.
const robotsAgent = "Chaperone"

// How long a robots.txt is fetched for, and kept: a site's answer for a
// day (RFC 9309 says no longer), a failure for a minute, so that a site
// that was down is asked again soon.
const (
	robotsTimeout  = 5 * time.Second
	robotsKeep     = 24 * time.Hour
	robotsKeepFail = time.Minute
	robotsHops     = 5
)

// robotsEntry is an origin's rules, and until when they hold.
type robotsEntry struct {
	rules robots.Rules
	// failed says why the file could not be read, when that made the
	// rules disallow everything.
	failed string
	until  time.Time
}

// robotsAllow refuses, when the session respects robots.txt, a URL the
// agent opens (browser_navigate, a new tab) that its site's robots.txt
// disallows to Chaperone: action_failed, saying so.
func (s *Session) robotsAllow(ctx context.Context, raw string) error {
	if !s.config.RespectRobots {
		return nil
	}
	// The URL as Chromium will request it: its host in any spelling, its
	// dot segments gone ("/x/../private" is /private).
	u, err := weburl.Parse(raw)
	if err != nil && weburl.Special(weburl.SchemeOf(raw)) {
		return fail(toolapi.ActionFailed, "Not opened: %v; this session respects robots.txt (--respect-robots), and no robots.txt can be asked about a URL that cannot be read.", err)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil // no site to ask: about:blank, or what the policy refused
	}
	origin := u.Origin()
	e := s.robotsOf(ctx, origin)
	query := ""
	if u.HasQuery {
		query = "?" + u.Query
	}
	// The path as sent, and as a server that normalises it reads it
	// ("/variants%2Fform" and "//variants/form" are /variants/form to
	// most, "/x/..%2Fvariants" /variants): disallowed in either reading,
	// it is not opened.
	path, ok, rule := u.Path+query, true, ""
	for _, p := range []string{u.Path, decodedPath(u)} {
		if p == "" {
			continue
		}
		if allowed, r := e.rules.Allowed(p + query); !allowed {
			path, ok, rule = p+query, false, r
			break
		}
	}
	if ok {
		return nil
	}
	if e.failed != "" {
		return fail(toolapi.ActionFailed, "Not opened: robots.txt disallows it: %s/robots.txt could not be read (%s), which counts as disallowing the whole site; this session respects robots.txt (--respect-robots).",
			s.clip(origin, urlLimit), e.failed)
	}
	return fail(toolapi.ActionFailed, "Not opened: robots.txt disallows it: %s/robots.txt says %q for %s; this session respects robots.txt (--respect-robots).",
		s.clip(origin, urlLimit), s.clip(rule, textLimit), s.clip(path, urlLimit))
}

// decodedPath is u's path as a server that normalises it before it routes
// reads it: percent-decoded, runs of slashes merged, dot segments then
// removed; "" when that is the path as sent.
func decodedPath(u *weburl.URL) string {
	p := u.Path
	if dec, err := url.PathUnescape(p); err == nil {
		p = dec
	}
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	d, err := weburl.Parse(u.Scheme + "://" + u.Host + p)
	if err != nil || d.Path == u.Path {
		return ""
	}
	return d.Path
}

// robotsOf returns the rules of origin, fetching its robots.txt when they
// are not known or too old. A redirect's hop is judged from the browser's
// interceptor while the call that navigates waits: one at a time.
func (s *Session) robotsOf(ctx context.Context, origin string) robotsEntry {
	p := &s.polite
	p.robotsMu.Lock()
	defer p.robotsMu.Unlock()
	if e, ok := p.robots[origin]; ok && time.Now().Before(e.until) {
		return e
	}
	if p.robots == nil {
		p.robots = make(map[string]robotsEntry)
	}
	if p.client == nil {
		p.client = robotsClient(s.config.URLPolicy)
	}
	e := fetchRobots(ctx, p.client, origin+"/robots.txt", s.config.URLPolicy)
	if e.failed != "" {
		s.log.Info("robots.txt not read: the site counts as disallowed", "origin", origin, "why", e.failed)
	}
	if ctx.Err() == nil {
		if len(p.robots) > 1000 {
			clear(p.robots)
		}
		p.robots[origin] = e
	}
	return e
}

// fetchRobots reads one robots.txt (RFC 9309, section 2.3.1): a file the
// server has gives the rules; one it says it has not (a 4xx status) allows
// everything; a server or network error disallows everything.
func fetchRobots(ctx context.Context, client *http.Client, robotsURL string, policy urlpolicy.Policy) robotsEntry {
	failed := func(format string, a ...any) robotsEntry {
		return robotsEntry{rules: robots.DisallowAll(), failed: fmt.Sprintf(format, a...), until: time.Now().Add(robotsKeepFail)}
	}
	if err := policy.CheckResolved(ctx, robotsURL, net.DefaultResolver); err != nil {
		return failed("%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, robotsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, robotsURL, nil)
	if err != nil {
		return failed("%v", err)
	}
	req.Header.Set("User-Agent", robotsAgent)
	resp, err := client.Do(req)
	if err != nil {
		return failed("%v", errors.Unwrap(err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		body, err := io.ReadAll(io.LimitReader(resp.Body, robots.MaxSize))
		if err != nil {
			return failed("reading it: %v", err)
		}
		return robotsEntry{rules: robots.Parse(body, robotsAgent), until: time.Now().Add(robotsKeep)}
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return robotsEntry{until: time.Now().Add(robotsKeep)}
	}
	return failed("status %d", resp.StatusCode)
}

// robotsClient is the HTTP client robots.txt is fetched with: it honours
// the URL policy at every redirect, and at every connection by the address
// it connects to, so a name that resolves elsewhere by the time of the
// connection cannot take it to an address the policy refuses.
func robotsClient(policy urlpolicy.Policy) *http.Client {
	// Origins were checked by name; the connection is checked by address
	// alone (metadata, link-local, reserved).
	byAddr := policy
	byAddr.AllowedOrigins, byAddr.BlockedOrigins = nil, nil
	dialer := &net.Dialer{
		Timeout: robotsTimeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			return byAddr.Check("http://" + address)
		},
	}
	tr := &http.Transport{
		Proxy:               nil, // the policy judges the site, not a proxy
		DialContext:         dialer.DialContext,
		TLSHandshakeTimeout: robotsTimeout,
		MaxIdleConns:        4,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   robotsTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= robotsHops {
				return fmt.Errorf("more than %d redirects", robotsHops)
			}
			return policy.CheckResolved(req.Context(), req.URL.String(), net.DefaultResolver)
		},
	}
}
