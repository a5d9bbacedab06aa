package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// A server redirect of a URL the agent composed is judged as that URL: a
// hop that carries data to a site outside the write set is refused, unless
// it is the site a person allowed for this URL, or the https form of a URL
// that would not be refused (a server that upgrades to TLS sends nothing to
// anyone new).
func TestRedirectCheck(t *testing.T) {
	t.Parallel()
	p, err := checkpoint.LoadProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(nil, Config{StartURL: "http://shop.example/start"}, WithGate(checkpoint.NewGate(p, nil, checkpoint.Options{})))
	tests := []struct {
		hop, approved string
		refused       bool
	}{
		{"http://shop.example/account?x=1", "", false},
		{"https://shop.example/account?x=1", "", false}, // upgraded to TLS
		{"https://www.shop.example/", "", false},
		{"http://evil.example/?leak=1", "", true},
		{"https://evil.example/?leak=1", "", true},
		{"http://evil.example/", "", false}, // a bare visit
		{"https://evil.example/?leak=1", "http://evil.example", false},
		{"https://evil.example/?leak=1", "https://evil.example", false},
		{"https://other.example/?leak=1", "https://evil.example", true},
		{"https://shop.example/r?to=http://evil.example/?leak=1", "", true},
	}
	for _, tt := range tests {
		check := s.redirectCheck(context.Background(), destination{approved: tt.approved})
		err := check(tt.hop)
		if (err != nil) != tt.refused {
			t.Errorf("hop %s (approved %q): %v, want refused %v", tt.hop, tt.approved, err, tt.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "a site outside this session's write set") {
			t.Errorf("hop %s: %v does not say why", tt.hop, err)
		}
	}
	none := NewSession(nil, Config{StartURL: "http://shop.example/start"})
	if none.redirectCheck(context.Background(), destination{}) != nil {
		t.Error("with no profile and no robots.txt, redirects are judged")
	}
}
