package tools

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// A host in any spelling a browser accepts is the site the browser will
// connect to: the write set compares what the browser will do, not how the
// agent wrote it.
func TestCanonicalHostSites(t *testing.T) {
	w, err := checkpoint.NewWriteSet(canonicalHost("http://127.0.0.1:8080/start"), canonicalHost("https://*.xn--bcher-kva.example"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url   string
		sends bool
	}{
		{"http://2130706433:8080/x?e=1", false}, // 127.0.0.1 as one number
		{"http://0x7f.1:9/x?e=1", false},
		{"http://127.1/x?e=1", false},
		{"http://localhost:8080/x?e=1", true},
		{"http://[::1]:8080/x?e=1", true},
		{"https://shop.bücher.example/x?e=1", false}, // the IDN of the pattern
		{"https://ＥＶＩＬ.example/x", true},             // full-width letters map to evil.example
	}
	for _, tt := range tests {
		if site, sends := w.Sends(canonicalHost(tt.url)); sends != tt.sends {
			t.Errorf("Sends(%q) = %q, %v; want %v (canonical %q)", tt.url, site, sends, tt.sends, canonicalHost(tt.url))
		}
	}
	if got := canonicalHost("not a url"); got != "not a url" {
		t.Errorf("canonicalHost changed a URL without a host: %q", got)
	}
}
