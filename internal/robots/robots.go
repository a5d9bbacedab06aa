// Package robots reads a robots.txt file (RFC 9309) for one user agent and
// says whether a URL's path may be opened. It is pure: fetching the file, and
// what to do when it cannot be fetched, belong to the caller.
package robots

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxSize is how much of a robots.txt is read; RFC 9309 asks crawlers to
// parse at least 500 KiB, and what lies beyond is ignored.
const MaxSize = 500 << 10

// Rules is what a robots.txt says to one user agent: the Allow and Disallow
// lines of the groups that name it, or of the "*" groups when none does.
// The zero value allows everything.
type Rules struct {
	rules []rule
	// all is set for a file that could not be read in a way that counts
	// as disallowing everything (RFC 9309: a server error).
	all bool
}

// rule is one Allow or Disallow line.
type rule struct {
	allow   bool
	pattern string // percent-encoding normalised (normalise)
}

// String says the rule as its line reads.
func (r rule) String() string {
	if r.allow {
		return "Allow: " + r.pattern
	}
	return "Disallow: " + r.pattern
}

// DisallowAll returns rules that disallow every path: what a robots.txt that
// the server failed to serve means (RFC 9309, section 2.3.1.4).
func DisallowAll() Rules { return Rules{all: true} }

// Parse reads body as a robots.txt and returns its rules for the user agent
// whose product token is agent (such as "Chaperone"), matched without
// regard to case. Lines it does not understand are skipped, as the RFC
// asks; only the first MaxSize bytes are read.
func Parse(body []byte, agent string) Rules {
	if len(body) > MaxSize {
		body = body[:MaxSize]
	}
	agent = strings.ToLower(strings.TrimSpace(agent))
	var mine, star []rule
	var foundMine bool
	// The user agents of the group being read; a User-agent line after a
	// rule line starts a new group.
	var agents []string
	inRules := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 4096), MaxSize+1)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		value = strings.TrimSpace(value)
		switch key {
		case "user-agent":
			if inRules {
				agents, inRules = nil, false
			}
			a := strings.ToLower(value)
			agents = append(agents, a)
			// A group that names the agent counts even with no rules.
			foundMine = foundMine || a == agent
		case "allow", "disallow":
			inRules = true
			if value == "" {
				// "Disallow:" with no path disallows nothing.
				continue
			}
			r := rule{allow: key == "allow", pattern: normalise(value)}
			for _, a := range agents {
				switch {
				case a == "*":
					star = append(star, r)
				case a == agent:
					mine = append(mine, r)
				}
			}
		}
	}
	if foundMine {
		return Rules{rules: mine}
	}
	return Rules{rules: star}
}

// Allowed reports whether the rules allow path, a URL's escaped path with
// its query ("/a/b?x=1"), and returns the rule that decided, "" when none
// did. The rule that matches the most octets wins; between an Allow and a
// Disallow that match as much, Allow wins. /robots.txt itself is always
// allowed.
func (r Rules) Allowed(path string) (bool, string) {
	if path == "" {
		path = "/"
	}
	if path == "/robots.txt" {
		return true, ""
	}
	if r.all {
		return false, "the whole site"
	}
	path = normalise(path)
	best, bestLen := -1, -1
	for i, ru := range r.rules {
		if !match(ru.pattern, path) {
			continue
		}
		n := len(ru.pattern)
		if n > bestLen || (n == bestLen && ru.allow && !r.rules[best].allow) {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		return true, ""
	}
	return r.rules[best].allow, r.rules[best].String()
}

// match reports whether pattern matches path from its start: "*" matches
// any run of characters, and a final "$" anchors the pattern at the end of
// the path.
func match(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	rest := path[len(parts[0]):]
	if len(parts) == 1 {
		return !anchored || rest == ""
	}
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	last := parts[len(parts)-1]
	if anchored {
		return strings.HasSuffix(rest, last)
	}
	return strings.Contains(rest, last)
}

// normalise writes a path or pattern with its percent-encoding in one form,
// so that the two compare octet by octet (RFC 9309, section 2.2.2): every
// character outside ASCII is percent-encoded as UTF-8, an escaped
// unreserved character is unescaped, and the hex digits of every other
// escape are upper case.
func normalise(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			// An unreserved character escaped is that character, as the
			// site reads it: /%70rivate is /private.
			if d := unhex(s[i+1])<<4 | unhex(s[i+2]); unreserved(d) {
				b.WriteByte(d)
			} else {
				b.WriteByte('%')
				b.WriteString(strings.ToUpper(s[i+1 : i+3]))
			}
			i += 3
		case c >= utf8.RuneSelf:
			fmt.Fprintf(&b, "%%%02X", c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// unreserved reports RFC 3986's unreserved characters, which mean the same
// escaped or not.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
