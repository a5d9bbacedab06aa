package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/weburl"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// navigateInput is the arguments of browser_navigate: a URL, or a history
// action (back, forward, reload), never both.
type navigateInput struct {
	URL    string `json:"url,omitempty"`
	Action string `json:"action,omitempty" schema:"enum=back|forward|reload"`
}

// destination is where a navigation goes: the absolute URL, and for a
// history step the entry; for a URL the agent composed, approved is the site
// outside the write set a person allowed it to send data to.
type destination struct {
	url      string
	entry    *browser.HistoryEntry
	approved string
}

// navigate runs browser_navigate: it checks the destination against the URL
// policy, asks the gate, and follows the navigation until the new page is
// ready.
func (s *Session) navigate(ctx context.Context, c *call, in navigateInput) (string, error) {
	in.URL, in.Action = strings.TrimSpace(in.URL), strings.TrimSpace(in.Action)
	s.typed.add(in.URL)
	switch {
	case in.URL != "" && in.Action != "":
		return "", fail(toolapi.InvalidParams, "browser_navigate takes url or action, not both.")
	case in.URL == "" && in.Action == "":
		return "", fail(toolapi.InvalidParams, "browser_navigate needs a url to open, or an action: back, forward or reload.")
	}
	dest, err := s.gatedDestination(ctx, c, in)
	if err != nil {
		return "", err
	}
	var act func(context.Context) error
	var done string
	switch {
	case in.Action == "reload":
		act, done = s.tab.Reload, "Reloaded "+dest.url+"."
	case dest.entry != nil:
		id := dest.entry.ID
		act = func(ctx context.Context) error { return s.tab.GoToHistory(ctx, id) }
		done = fmt.Sprintf("Went %s to %s.", in.Action, dest.url)
	default:
		act = func(ctx context.Context) error { return s.tab.GoChecked(ctx, dest.url, s.redirectCheck(ctx, dest)) }
		done = "Opened " + dest.url + "."
	}
	return s.settle(ctx, c, s.config.ActionTimeout, act, done)
}

// gatedDestination works out where a navigation goes and lets the gate
// decide on it. A URL the agent composed that sends data to a site outside
// the session's write set asks a person first, whatever the profile gates:
// pages tell agents to leak what they know this way. History steps and
// reloads go where the tab has already been, so only the profile's rules
// apply to them; so do links the page itself holds, which are clicks.
func (s *Session) gatedDestination(ctx context.Context, c *call, in navigateInput) (destination, error) {
	var dest destination
	plan := func(ctx context.Context) (planned, error) {
		var err error
		if dest, err = s.destination(ctx, in); err != nil {
			return planned{}, err
		}
		return planned{action: checkpoint.Action{Verb: checkpoint.VerbNavigate, Value: dest.url}}, nil
	}
	if in.URL == "" {
		_, err := s.gated(ctx, c, plan)
		return dest, err
	}
	p, err := plan(ctx)
	if err != nil {
		return dest, err
	}
	w := s.writeSet()
	site, sends := w.Sends(dest.url) // the canonical href (absolute)
	if !sends || s.gate.Profile() == nil {
		_, err := s.gated(ctx, c, plan)
		return dest, err
	}
	gctx, end := s.phase(ctx, PhaseGate)
	d, err := s.gate.AuthorizeSend(gctx, s.shown(gctx, nil), p.action, site, w)
	end()
	if err != nil {
		return dest, fail(toolapi.HumanRejected, "The approval request was withdrawn before a human answered (%v); %s was not performed.", err, p.action)
	}
	if !d.Approved {
		return dest, fail(toolapi.HumanRejected, "%s", d.Message())
	}
	c.approval = d.RequestID
	approved := site
	// A relative URL resolves against the page, which may have moved
	// while the person was asked.
	again, err := plan(ctx)
	if err != nil {
		return dest, err
	}
	if !again.action.Same(p.action) {
		return dest, fail(toolapi.ActionFailed, "The page changed while a human was asked: they approved %s, but it is now %s. Nothing was done.", p.action, again.action)
	}
	dest.approved = approved
	return dest, nil
}

// redirectCheck judges the server redirects of the navigation to dest, a
// URL the agent composed, as that URL was judged: a server may pass on to
// another site what the agent wrote into a URL of its own site (an open
// redirect that decodes base64, or takes its target from a path), which
// no reading of the URL can see, or send the browser to a path robots.txt
// disallows. So a hop that sends data to a site outside the write set,
// other than the one a person allowed for this URL, or that robots.txt
// disallows (--respect-robots), is not followed: the interceptor refuses it
// before the browser sends it. With no profile the write set's rule is off,
// as for the URL itself.
func (s *Session) redirectCheck(ctx context.Context, dest destination) func(url string) error {
	writes := s.gate.Profile() != nil
	if !writes && !s.config.RespectRobots {
		return nil
	}
	w := s.writeSet()
	return func(hop string) error {
		if writes {
			outside := func(u string) (string, bool) {
				site, sends := w.Sends(u)
				return site, sends && site != dest.approved
			}
			site, refused := outside(hop)
			// A server that moves the browser to https sends nothing to
			// anyone new: such a hop is judged as the http URL it upgrades.
			if rest, ok := strings.CutPrefix(hop, "https:"); ok && refused {
				if _, plain := outside("http:" + rest); !plain {
					refused = false
				}
			}
			if refused {
				return fmt.Errorf("the server redirected the URL the agent opened to %s, a site outside this session's write set, with data the agent's URL may have given it; the redirect was not followed (open that URL itself to have a person asked)", site)
			}
		}
		if err := s.robotsAllow(ctx, hop); err != nil {
			return fmt.Errorf("a redirect of the URL the agent opened: %w", err)
		}
		return nil
	}
}

// writeSet is the sites the agent may send data to without a person: the
// start URL's, the profile's allowed origins, Config.WriteOrigins and the
// sites a person allowed for this session (Gate.Widen). An
// entry with no site (a demo: placeholder, about:blank) adds none.
func (s *Session) writeSet() checkpoint.WriteSet {
	entries := append([]string{s.config.StartURL}, s.config.WriteOrigins...)
	if p := s.gate.Profile(); p != nil {
		entries = append(entries, p.AllowedOrigins...)
	}
	var sites []string
	for _, e := range entries {
		c := urlpolicy.CanonicalHost(e)
		if _, err := checkpoint.Site(c); err == nil {
			sites = append(sites, c)
		}
	}
	w, _ := checkpoint.NewWriteSet(sites...) // each entry has a site
	return s.gate.Widen(w)
}

// destination works out where a navigation goes, and refuses what the URL
// policy does not allow.
func (s *Session) destination(ctx context.Context, in navigateInput) (destination, error) {
	var d destination
	switch in.Action {
	case "":
		abs, err := s.absolute(in.URL)
		if err != nil {
			return d, err
		}
		d.url = abs
	case "reload":
		d.url = s.tab.URL()
	case "back", "forward":
		delta := -1
		if in.Action == "forward" {
			delta = 1
		}
		e, err := s.tab.HistoryEntry(ctx, delta)
		if errors.Is(err, browser.ErrNoHistory) {
			return d, fail(toolapi.ActionFailed, "There is no page to go %s to in this tab's history.", in.Action)
		}
		if err != nil {
			return d, err
		}
		d.url, d.entry = e.URL, &e
	default:
		return d, fail(toolapi.InvalidParams, "action must be back, forward or reload, not %q.", in.Action)
	}
	if err := s.config.URLPolicy.Check(d.url); err != nil {
		return d, fail(toolapi.ActionFailed, "Not opened: blocked by policy: %v.", err)
	}
	if in.Action == "" {
		return d, s.robotsAllow(ctx, d.url) // polite.go
	}
	return d, nil
}

// absolute reads raw as Chromium reads it (internal/weburl), against the
// current page's URL when it is relative, and returns the canonical href:
// the URL the policy, the write set, robots.txt and the person judge, and
// the one Chromium is given, so that what is judged is what is requested.
// A URL that cannot be read the way the browser reads it is refused.
func (s *Session) absolute(raw string) (string, error) {
	var u *weburl.URL
	var err error
	if weburl.SchemeOf(raw) != "" {
		u, err = weburl.Parse(raw)
	} else {
		base, berr := weburl.Parse(s.tab.URL())
		if berr != nil || (base.Scheme != "http" && base.Scheme != "https") {
			return "", fail(toolapi.InvalidParams, "%q is relative, and the current page (%s) is no web page to resolve it against: give an absolute http or https URL.", raw, s.tab.URL())
		}
		u, err = weburl.ParseRef(raw, base)
	}
	if we, ok := errors.AsType[*weburl.Error](err); ok {
		return "", fail(toolapi.InvalidParams, "%q cannot be read the way the browser reads it (%s); nothing was opened. Give the URL in its plain form, such as https://example.com/path.", raw, we.Reason)
	}
	if err != nil {
		return "", fail(toolapi.InvalidParams, "%q is not a URL: %v.", raw, err)
	}
	return u.Href(), nil
}
