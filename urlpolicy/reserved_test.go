package urlpolicy

import (
	"context"
	"strings"
	"testing"
)

// The approval channel's addresses are refused in every spelling that
// reaches them, whatever else the policy allows (issue #22).
func TestURLPolicyReserved(t *testing.T) {
	r := fakeResolver{
		"rebind.example": {"127.0.0.1"},
		"v6.example":     {"::1"},
		"shop.example":   {"93.184.216.34"},
		"hooks.example":  {"203.0.113.7"},
		"alias.example":  {"203.0.113.7"},
	}
	wide := Policy{
		AllowMetadata:  true,
		AllowSchemes:   []string{"ftp", "view-source"},
		AllowedOrigins: []string{"http://127.0.0.1:4567", "http://localhost:4567", "https://hooks.example", "http://rebind.example:4567"},
	}
	for _, base := range []Policy{{}, wide} {
		p, err := base.WithReserved("127.0.0.1:4567", "0.0.0.0:4568", "hooks.example:443")
		if err != nil {
			t.Fatal(err)
		}
		check := p.DocumentCheck(r)
		for _, u := range []string{
			"http://127.0.0.1:4567/tok/",
			"http://127.0.0.1:4567",
			"HTTP://127.0.0.1:04567/tok/api/pending",
			"http://localhost:4567/",
			"http://LOCALHOST.:4567/",
			"http://app.localhost:4567/",
			"http://127.1:4567/",
			"http://2130706433:4567/",
			"http://0x7f.0.0.1:4567/",
			"http://127.0.0.2:4567/",
			"http://[::1]:4567/",
			"http://[::ffff:127.0.0.1]:4567/",
			"http://0.0.0.0:4567/",
			"http://rebind.example:4567/",
			"http://v6.example:4567/",
			"http://user:pw@127.0.0.1:4567/",
			"http://127.0.0.1:4568/",
			"http://[::1]:4568/",
			"https://hooks.example/approve",
			"https://HOOKS.example:443/",
			"https://alias.example/",
			// Spellings net/url reads without a host (issue 27).
			"http:127.0.0.1:4567/tok/",
			"http:/localhost:4567/",
			`http:\\127.1:4567/`,
			"http://local\thost:4567/",
			"ht\ntp://127.0.0.1:4567/",
			"http://%6c%6fcalhost:4567/",
		} {
			err := check(context.Background(), u)
			if err == nil || !strings.Contains(err.Error(), "approval channel") {
				t.Errorf("policy %+v: %s = %v, want refused as the approval channel", base, u, err)
			}
		}
		for _, u := range []string{
			"http://127.0.0.1:4569/",
			"http://shop.example:4567/",
			"https://shop.example/",
			"http://hooks.example/",
		} {
			if err := check(context.Background(), u); err != nil && strings.Contains(err.Error(), "approval channel") {
				t.Errorf("%s = %v, want it not taken for the approval channel", u, err)
			}
		}
	}
}

func TestURLPolicyReservedBadAddress(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "127.0.0.1:0", "127.0.0.1:http", ":99999", "[::1"} {
		if _, err := (Policy{}).WithReserved(a); err == nil {
			t.Errorf("WithReserved(%q) accepted it", a)
		}
		if err := (Policy{Reserved: []string{a}}).Validate(); err == nil {
			t.Errorf("Validate with reserved %q passed", a)
		}
	}
}

// A scheme that wraps a URL is judged by the URL it wraps.
func TestURLPolicyViewSource(t *testing.T) {
	p, err := Policy{AllowSchemes: []string{"view-source"}}.WithReserved("127.0.0.1:4567")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"view-source:http://127.0.0.1:4567/tok/", "VIEW-SOURCE:http://localhost:4567/", "view-source:view-source:http://127.0.0.1:4567/"} {
		if err := p.Check(u); err == nil || !strings.Contains(err.Error(), "approval channel") {
			t.Errorf("%s = %v, want refused as the approval channel", u, err)
		}
	}
	if err := p.Check("view-source:http://169.254.169.254/"); err == nil {
		t.Error("view-source of the metadata address passed")
	}
	if err := p.Check("view-source:https://example.com/"); err != nil {
		t.Errorf("view-source of a page: %v", err)
	}
}
