package weburl_test

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/weburl"
)

// Parse reads the spellings as Chromium does (the differential
// test checks the same against Chromium itself), and refuses what it
// cannot read for certain.
func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, href string }{
		{"http:localhost:23153/hit?leak=abc", "http://localhost:23153/hit?leak=abc"},
		{"http:/localhost:23153/hit?leak=abc", "http://localhost:23153/hit?leak=abc"},
		{`http:\\localhost:23153/hit?leak=abc`, "http://localhost:23153/hit?leak=abc"},
		{"http://%09localhost/", ""}, // a tab in the host, once decoded: no host
		{"http://\tlocal\nhost/x", "http://localhost/x"},
		{"http://127.0.0.1:8080/x/../private", "http://127.0.0.1:8080/private"},
		{"http://h/x/%2e%2E/private", "http://h/private"},
		{"HTTP://0x7f.1:0080/", "http://127.0.0.1/"},
		{"http://\u0430pple.com/\u0430?\u0430#\u0430", "http://xn--pple-43d.com/%D0%B0?%D0%B0#%D0%B0"},
		{"http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/"},
		{"http://1.2.3.4.5/", ""},
		{"http://ex*ample.com/", ""},
		{"http://xn--zz.com/", ""},
		{"http://[fe80::1%25eth0]/", ""},
		{"http://h:65536/", ""},
		{"about:blank", "about:blank"},
		{"relative/path", ""},
	}
	for _, tt := range tests {
		u, err := weburl.Parse(tt.in)
		switch {
		case tt.href == "" && err == nil:
			t.Errorf("Parse(%q) = %s, want an error", tt.in, u.Href())
		case tt.href != "" && err != nil:
			t.Errorf("Parse(%q): %v, want %s", tt.in, err, tt.href)
		case tt.href != "" && u.Href() != tt.href:
			t.Errorf("Parse(%q) = %s, want %s", tt.in, u.Href(), tt.href)
		}
	}
}

func TestParseRef(t *testing.T) {
	t.Parallel()
	base, err := weburl.Parse("http://127.0.0.1:8080/a/b?q#f")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, href string }{
		{"c", "http://127.0.0.1:8080/a/c"},
		{"../../../x", "http://127.0.0.1:8080/x"},
		{`\\localhost:9\x`, "http://localhost:9/x"},
		{"?z", "http://127.0.0.1:8080/a/b?z"},
		{"#g", "http://127.0.0.1:8080/a/b?q#g"},
		{"http:localhost/x", "http://localhost/x"}, // a scheme of its own: read as navigated to
	}
	for _, tt := range tests {
		u, err := weburl.ParseRef(tt.in, base)
		if err != nil {
			t.Errorf("ParseRef(%q): %v, want %s", tt.in, err, tt.href)
		} else if u.Href() != tt.href {
			t.Errorf("ParseRef(%q) = %s, want %s", tt.in, u.Href(), tt.href)
		}
	}
}
