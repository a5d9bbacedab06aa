package weburl

import (
	"strings"
)

// pathQueryFragment reads what follows a special URL's authority (or a
// relative reference): the path, resolved against baseSegs when it does
// not start with a slash, its dot segments removed, then the query and
// the fragment.
func (u *URL) pathQueryFragment(rest string, baseSegs []string) {
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		u.fragment(rest[i+1:])
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		u.Query, u.HasQuery = encode(rest[i+1:], querySet), true
		rest = rest[:i]
	}
	segs := baseSegs
	if rest != "" && (rest[0] == '/' || rest[0] == '\\') {
		segs, rest = nil, rest[1:]
	}
	segs = append([]string(nil), segs...)
	if rest != "" {
		parts := splitSlashes(rest)
		for i, p := range parts {
			last := i == len(parts)-1
			switch {
			case doubleDot(p):
				if len(segs) > 0 {
					segs = segs[:len(segs)-1]
				}
				if last {
					segs = append(segs, "")
				}
			case singleDot(p):
				if last {
					segs = append(segs, "")
				}
			default:
				segs = append(segs, pathSegment(p))
			}
		}
	}
	u.Path = "/" + strings.Join(segs, "/")
}

// splitSlashes splits s at every slash and backslash, keeping empty
// segments; "" is one empty segment.
func splitSlashes(s string) []string {
	var out []string
	for {
		i := strings.IndexAny(s, `/\`)
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
}

func (u *URL) fragment(s string) {
	u.Fragment, u.HasFragment = encode(s, fragmentSet), true
}

func singleDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func doubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

// pathSegment percent-encodes one path segment as Chromium does.
func pathSegment(s string) string {
	return encode(s, pathSet)
}

// The percent-encode sets: which bytes beyond the C0 controls, DEL and
// non-ASCII a part of the URL encodes.
const (
	c0Set       = ""
	fragmentSet = " \"<>`"
	querySet    = " \"#<>'"
	pathSet     = " \"#<>?`{}|^"
	userinfoSet = " \"#<>?`{}/:;=@[\\]^|"
)

// encode percent-encodes the bytes of s in set, the C0 controls, DEL and
// every byte of a non-ASCII character, with upper-case hex.
func encode(s, set string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte(set, c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// percentDecode decodes every %XX of s; ok is false when a "%" is not
// followed by two hex digits, which in a host no browser reads the same.
func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		i += 2
	}
	return b.String(), true
}

func isHex(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}
