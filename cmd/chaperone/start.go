package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// demoStartPath is the demo site's page sessions start at when nothing else
// names one.
const demoStartPath = "/account"

// start is where sessions start: the URL, the profile (its demo: URLs
// pointing at the demo site), the URL policy (the flags' and the profile's
// allowed origins), and the demo site when one is served.
type start struct {
	url     string
	profile *checkpoint.Profile
	policy  urlpolicy.Policy
	site    *demoSite
}

// resolveStart decides where sessions start: url when set, else the
// profile's start URL, else the embedded demo site's account page. It
// serves the demo site when sessions start there or when the profile names
// it (a demo: start URL), and rewrites the profile to point at it. A start
// URL someone gave, by flag or in a profile, must pass policy; it is checked
// before anything is served, and again once the profile's allowed origins
// have joined the policy. A url of the form demo:/path is that page of the
// demo site. The caller stops the start when done.
func resolveStart(log *slog.Logger, policy urlpolicy.Policy, url string, p *checkpoint.Profile) (*start, error) {
	demoPath, onDemo := strings.CutPrefix(url, checkpoint.DemoScheme)
	// Before the demo site is served, its origin is unknown: the check
	// takes the profile's other origins.
	pre := policy
	if p != nil {
		for _, o := range p.AllowedOrigins {
			if o != checkpoint.DemoScheme {
				pre = pre.WithAllowedOrigins(o)
			}
		}
	}
	switch {
	case onDemo:
		// Served below, at an address only known then.
	case url != "":
		if err := pre.Check(url); err != nil {
			return nil, fmt.Errorf("--url: %w", err)
		}
	case p != nil && !p.UsesDemoSite():
		if err := pre.Check(p.StartURL); err != nil {
			return nil, fmt.Errorf("--profile: start_url: %w", err)
		}
		url = p.StartURL
	}
	s := &start{url: url, profile: p, policy: policy}
	if url != "" && !onDemo && (p == nil || !p.UsesDemoSite()) {
		return s, s.withProfileOrigins()
	}
	site, err := startDemoSite(log)
	if err != nil {
		return nil, err
	}
	s.site = site
	if p != nil {
		if s.profile, err = p.WithDemoSite(site.URL); err != nil {
			site.stop()
			return nil, err
		}
	}
	if onDemo {
		s.url = site.URL + "/" + strings.TrimPrefix(demoPath, "/")
	}
	if s.url == "" {
		s.url = site.URL + demoStartPath
		if s.profile != nil {
			s.url = s.profile.StartURL
		}
	}
	if err := s.withProfileOrigins(); err != nil {
		site.stop()
		return nil, err
	}
	log.Info("serving the demo site", "url", site.URL)
	return s, nil
}

// withProfileOrigins adds the profile's allowed origins to the policy and
// checks the start URL (the demo site's, too) against the result.
func (s *start) withProfileOrigins() error {
	if s.profile != nil {
		s.policy = s.policy.WithAllowedOrigins(s.profile.AllowedOrigins...)
	}
	if err := s.policy.Check(s.url); err != nil {
		return fmt.Errorf("the start URL with the profile's allowed_origins: %w", err)
	}
	return nil
}

// portable is the start URL as a script records it: a page of the demo
// site as demo:/path, which a replay serves afresh on another port.
func (s *start) portable() string {
	if s.site == nil {
		return s.url
	}
	rest, ok := strings.CutPrefix(s.url, s.site.URL)
	if !ok || (rest != "" && rest[0] != '/') {
		return s.url
	}
	return checkpoint.DemoScheme + "/" + strings.TrimPrefix(rest, "/")
}

// stop stops serving the demo site, if one is served.
func (s *start) stop() {
	if s.site != nil {
		s.site.stop()
	}
}

// demoSite serves the embedded demo site on a loopback port until stop.
type demoSite struct {
	// URL is the site's base URL, without a trailing slash.
	URL string
	srv *http.Server
}

// startDemoSite serves the embedded demo site on 127.0.0.1.
func startDemoSite(log *slog.Logger) (*demoSite, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the demo site: %w", err)
	}
	srv := &http.Server{
		Handler:           fixtures.Site(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go srv.Serve(ln)
	return &demoSite{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// stop stops serving the demo site.
func (d *demoSite) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := d.srv.Shutdown(ctx); err != nil {
		d.srv.Close()
	}
}
