package main

import (
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// serve --blocked-origins refuses a click on a link there: the agent gets
// action_failed "blocked by policy", the page stays, and the log says what
// was blocked without the query string.
func TestServeBlockedOrigins(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	other := strings.Replace(site, "127.0.0.1", "localhost", 1)
	start := site + "/variants/offsite?to=" + url.QueryEscape(other+"/help?token=s3cret")
	c, _, stderr := stdioClient(t, nil, "serve", "--profile", "none", "--url", start, "--blocked-origins", other, "--log-level", "info")
	s := getSnapshot(t, c)
	r, next := click(t, c, browsertest.Ref(t, s, "link", "Visit partner"))
	want := "blocked by policy: " + other + " is a blocked origin (" + other + "/help)"
	if r.Success || r.Error == nil || *r.Error != "action_failed" || !strings.HasPrefix(r.Message, want) {
		t.Errorf("click: success %v, error %v, message %q; want action_failed %q", r.Success, r.Error, r.Message, want)
	}
	if next.Page.URL != start {
		t.Errorf("the page went to %s, want it to stay at %s", next.Page.URL, start)
	}
	_, line, _ := strings.Cut(stderr.String(), "document blocked by policy")
	line, _, _ = strings.Cut(line, "\n")
	if !strings.Contains(line, "url="+other+"/help ") || strings.Contains(line, "s3cret") {
		t.Errorf("the refusal is logged as %q, want its URL without the query string", line)
	}
}

// A profile's allowed_origins join the flags' in the policy of serve and
// run, and the start URL must pass it.
func TestResolveStartProfileOrigins(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.DiscardHandler)
	flags := urlpolicy.Policy{AllowedOrigins: []string{"https://flag.example"}}
	p := &checkpoint.Profile{Name: "shop", StartURL: "https://shop.example/cart", AllowedOrigins: []string{"https://shop.example", "https://*.pay.example"}}
	s, err := resolveStart(log, flags, "", p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	for u, ok := range map[string]bool{
		"https://shop.example/x":        true,
		"https://flag.example/":         true,
		"https://checkout.pay.example/": true,
		"https://evil.example/":         false,
	} {
		if err := s.policy.Check(u); (err == nil) != ok {
			t.Errorf("policy.Check(%q) = %v, want allowed %v", u, err, ok)
		}
	}
	if _, err := resolveStart(log, urlpolicy.Policy{}, "https://elsewhere.example/", p); err == nil ||
		!strings.Contains(err.Error(), "https://elsewhere.example is not an allowed origin (allowed: https://shop.example, https://*.pay.example)") {
		t.Errorf("a --url outside the profile's origins: %v", err)
	}
	// The demo profile's demo: origin becomes the demo site's.
	demo := &checkpoint.Profile{Name: "demo", StartURL: "demo:/account", AllowedOrigins: []string{"demo:"}}
	s, err = resolveStart(log, urlpolicy.Policy{}, "", demo)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	if err := s.policy.Check(s.url); err != nil {
		t.Errorf("the demo start URL is refused: %v", err)
	}
	if err := s.policy.Check("https://example.com/"); err == nil {
		t.Error("with the demo profile, another origin is allowed")
	}
}
