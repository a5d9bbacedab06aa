package tools

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// A host in any spelling a browser accepts is the site the browser will
// connect to: the write set compares what the browser will do, not how the
// agent wrote it.
func TestCanonicalHostSites(t *testing.T) {
	t.Parallel()
	w, err := checkpoint.NewWriteSet(urlpolicy.CanonicalHost("http://127.0.0.1:8080/start"), urlpolicy.CanonicalHost("https://*.xn--bcher-kva.example"))
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
		if site, sends := w.Sends(urlpolicy.CanonicalHost(tt.url)); sends != tt.sends {
			t.Errorf("Sends(%q) = %q, %v; want %v (canonical %q)", tt.url, site, sends, tt.sends, urlpolicy.CanonicalHost(tt.url))
		}
	}
	if got := urlpolicy.CanonicalHost("not a url"); got != "not a url" {
		t.Errorf("CanonicalHost changed a URL without a host: %q", got)
	}
}
