package checkpoint_test

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// A person reads the real host: every URL's host written in Unicode, at
// the top or nested, in the ASCII form the browser connects to.
func TestPrintableShowsTheRealHost(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Open http://\u0430pple.com/login", "Open http://xn--pple-43d.com/login"},
		{"http://127.0.0.1:8080/r?to=http://\u0430pple.com/?e=1", "http://127.0.0.1:8080/r?to=http://xn--pple-43d.com/?e=1"},
		{"https:\u0430pple.com", "https:xn--pple-43d.com"},
		{"go to \\\\\u0430pple.com\\x", `go to \\xn--pple-43d.com\x`},
		{"https://user@b\u00fccher.example:8080/", "https://user@xn--bcher-kva.example:8080/"},
		{"link \"//\uff41pple.com\"", "link \"//apple.com\""},
		{"plain \u0430pple text and http://apple.com/", "plain \u0430pple text and http://apple.com/"},
		{"http://a\u200bb.com/", "http://ab.com/"},     // the browser drops the zero-width space
		{"http://a\u05d0.com/", `http://a\u05d0.com/`}, // no ASCII form: escaped
	}
	for _, tt := range tests {
		if got := checkpoint.Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := checkpoint.OneLine(tt.in); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The JSON a person reads (the audit log, the webhook's payload) holds the
// agent's and the page's text as it came: every URL's host in it is
// rewritten all the same, in every string at any depth, and the rest of
// the document is kept (a large number exactly).
func TestASCIIHostsJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"args":{"url":"https://\u0430pple.com/login?e=a"},"n":9007199254740993}`,
			`{"args":{"url":"https://xn--pple-43d.com/login?e=a"},"n":9007199254740993}`},
		{"{\"action\":\"send to http://\u0430pple.com/x\",\"list\":[\"//\u0430pple.com\",1,true,null]}",
			`{"action":"send to http://xn--pple-43d.com/x","list":["//xn--pple-43d.com",1,true,null]}`},
		{`{"title":"caf\u00e9 menu"}`, `{"title":"café menu"}`}, // no URL: as it was
		{`{"ascii":"http://apple.com/"}`, `{"ascii":"http://apple.com/"}`},
		{"not json http://\u0430pple.com", "not json http://\u0430pple.com"},
	}
	for _, tt := range tests {
		if got := string(checkpoint.ASCIIHostsJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("ASCIIHostsJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
