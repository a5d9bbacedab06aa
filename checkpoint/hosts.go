package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/internal/weburl"
)

// hostInText matches a URL in text up to its host (group 1): a special
// scheme and any run of slashes ("http:host" is a URL to a browser), or
// two slashes, then user information if any.
var hostInText = regexp.MustCompile(`(?i)(?:(?:https?|wss?|ftp):[/\\]*|[/\\]{2})(?:[^\s/\\?#@]*@)?([^\s/\\?#:@"'<>]+)`)

// asciiHosts rewrites each URL's host in s that is not ASCII as the host
// the browser connects to (punycode), so that a person reads the real
// host: "http://аpple.com" with a Cyrillic а is http://xn--pple-43d.com,
// never a look-alike of apple.com. A host that has no ASCII form has its
// non-ASCII characters shown as escapes.
func asciiHosts(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range hostInText.FindAllStringSubmatchIndex(s, -1) {
		host := s[m[2]:m[3]]
		if !strings.ContainsFunc(host, func(r rune) bool { return r >= utf8.RuneSelf }) {
			continue
		}
		b.WriteString(s[last:m[2]])
		if ascii, err := weburl.DomainToASCII(host); err == nil {
			b.WriteString(ascii)
		} else {
			for _, r := range host {
				if r >= utf8.RuneSelf {
					fmt.Fprintf(&b, `\u%04x`, r)
				} else {
					b.WriteRune(r)
				}
			}
		}
		last = m[3]
	}
	b.WriteString(s[last:])
	return b.String()
}

// ASCIIHosts is s with every URL's host written in Unicode as the ASCII
// host the browser connects to (as Printable writes it), and nothing else
// changed: for text a person reads that is escaped otherwise, a log line.
func ASCIIHosts(s string) string { return asciiHosts(s) }

// ASCIIHostsJSON is a JSON document with the host of every URL in its
// strings written in Unicode rewritten as asciiHosts does, for what a
// person reads as JSON (the audit log, the webhook's payload): the raw
// fields of a request and a tool call's arguments hold the agent's and the
// page's text as it came. A document that is ASCII, or not JSON, is
// returned as it is.
func ASCIIHostsJSON(doc []byte) []byte {
	if !slices.ContainsFunc(doc, func(c byte) bool { return c >= utf8.RuneSelf }) && !bytes.Contains(doc, []byte(`\u`)) {
		return doc // neither a character outside ASCII nor an escape of one
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber() // an id past 2^53 stays what it was
	var v any
	if err := d.Decode(&v); err != nil {
		return doc
	}
	out, err := json.Marshal(asciiHostsIn(v))
	if err != nil {
		return doc
	}
	return out
}

// asciiHostsIn applies asciiHosts to every string in v, a decoded JSON
// value, its objects' keys included.
func asciiHostsIn(v any) any {
	switch x := v.(type) {
	case string:
		return asciiHosts(x)
	case []any:
		for i := range x {
			x[i] = asciiHostsIn(x[i])
		}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[asciiHosts(k)] = asciiHostsIn(e)
		}
		return m
	}
	return v
}
