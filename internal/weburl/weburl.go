// Package weburl reads a URL as Chromium does (the WHATWG URL standard, in
// the few places where Chromium departs from it, as Chromium): the one
// reading every judgment about a URL the agent gives or composes is made on
// (the URL policy, the write set, robots.txt, what a person is shown), so
// that the server judges the request the browser will make, not Go's
// net/url reading of it (docs/architecture.md, "URL policy").
//
// Where Chromium's reading is not known for certain (a host with characters
// no real host has, a Windows drive letter in a file URL, a scheme that is
// not special with an authority), Parse refuses the URL instead of guessing:
// a URL that cannot be read the same way by both is never waved through.
// A test compares this reading with real Chromium's on thousands of
// generated spellings.
package weburl

import (
	"cmp"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// URL is a URL as Chromium reads it, in its canonical parts.
type URL struct {
	// Scheme is the scheme, lower case, without its colon.
	Scheme string
	// Username and Password are the user information, percent-encoded.
	Username, Password string
	// Host is the host as serialised: an ASCII (punycode) domain name in
	// lower case, a dotted IPv4 address, or a bracketed IPv6 address; ""
	// when the URL has none.
	Host string
	// Addr is the host's address when it is one.
	Addr netip.Addr
	// GivenHost is the host as written (tabs and newlines removed), for
	// messages: "0xa9fea9fe is 169.254.169.254".
	GivenHost string
	// Port is the port, "" for the scheme's default.
	Port string
	// Path is the serialised path; for a scheme that is not special
	// (about:, data:, javascript:, mailto:…) everything after the colon
	// up to the query or fragment, as Opaque says.
	Path string
	// Opaque is true for a URL whose scheme is not special: it has no
	// host, and Path is its opaque path.
	Opaque bool
	// Query and Fragment are the query and fragment, percent-encoded,
	// without their "?" and "#"; HasQuery and HasFragment tell an empty
	// one from none.
	Query, Fragment       string
	HasQuery, HasFragment bool
}

// Error is a URL that cannot be read, or cannot be read with certainty the
// way Chromium reads it.
type Error struct {
	Input  string
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%q is not a URL a browser reads: %s", e.Input, e.Reason)
}

// defaultPorts are the special schemes and their default ports ("" for
// file, which has none).
var defaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21", "file": ""}

// Special reports whether scheme (lower case) is one of the WHATWG special
// schemes, whose URLs have a host and a hierarchical path.
func Special(scheme string) bool {
	_, ok := defaultPorts[scheme]
	return ok
}

// Parse reads an absolute URL as Chromium reads one that is navigated to
// (Page.navigate, the address bar's exact text): "http:host", "http:/host"
// and "http:\\host" are all http://host/.
func Parse(raw string) (*URL, error) {
	return parse(raw, nil)
}

// ParseRef reads raw, which may be relative, against base, as a link on the
// page at base is read. A raw with a scheme of its own is read as Parse
// reads it, whatever base is: the server always hands Chromium the absolute
// result.
func ParseRef(raw string, base *URL) (*URL, error) {
	return parse(raw, base)
}

// Href is the URL serialised as Chromium serialises it: the URL it
// requests.
func (u *URL) Href() string {
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteByte(':')
	if !u.Opaque {
		b.WriteString("//")
		if u.Username != "" || u.Password != "" {
			b.WriteString(u.Username)
			if u.Password != "" {
				b.WriteByte(':')
				b.WriteString(u.Password)
			}
			b.WriteByte('@')
		}
		b.WriteString(u.Host)
		if u.Port != "" {
			b.WriteByte(':')
			b.WriteString(u.Port)
		}
	}
	b.WriteString(u.Path)
	if u.HasQuery {
		b.WriteByte('?')
		b.WriteString(u.Query)
	}
	if u.HasFragment {
		b.WriteByte('#')
		b.WriteString(u.Fragment)
	}
	return b.String()
}

func (u *URL) String() string { return u.Href() }

// Hostname is Host without the brackets of an IPv6 address.
func (u *URL) Hostname() string { return strings.Trim(u.Host, "[]") }

// Origin is the URL's scheme, host and port ("http://127.0.0.1:8080"), or
// "" for a URL without a host.
func (u *URL) Origin() string {
	if u.Opaque || u.Host == "" {
		return ""
	}
	o := u.Scheme + "://" + u.Host
	if u.Port != "" {
		o += ":" + u.Port
	}
	return o
}

// EffectivePort is the port a connection goes to: Port, or the scheme's
// default.
func (u *URL) EffectivePort() string {
	if u.Port != "" {
		return u.Port
	}
	return defaultPorts[u.Scheme]
}

// maxInput bounds what is read: longer URLs are refused, as Chromium
// refuses a URL over 2 MB (url::kMaxURLChars).
const maxInput = 2 << 20

func parse(raw string, base *URL) (*URL, error) {
	bad := func(format string, a ...any) (*URL, error) {
		return nil, &Error{Input: raw, Reason: fmt.Sprintf(format, a...)}
	}
	if len(raw) > maxInput {
		return bad("longer than %d bytes", maxInput)
	}
	if !utf8.ValidString(raw) {
		return bad("not valid UTF-8")
	}
	// Leading and trailing C0 controls and spaces go, and every tab and
	// newline anywhere: "ht\ntp://lo\tcalhost/" is http://localhost/.
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	u := &URL{}
	rest, hasScheme := "", false
	if i := schemeEnd(s); i > 0 {
		u.Scheme, rest, hasScheme = strings.ToLower(s[:i]), s[i+1:], true
	}
	if !hasScheme {
		if base == nil {
			return bad("it has no scheme")
		}
		if base.Opaque {
			return bad("relative to %s, which has no path to resolve it against", base.Scheme+":")
		}
		return relative(raw, s, base)
	}
	if !Special(u.Scheme) {
		return opaque(raw, u, rest)
	}
	if u.Scheme == "file" {
		return file(raw, u, rest)
	}
	// A special scheme's authority follows any run of slashes and
	// backslashes, none at all included.
	rest = strings.TrimLeft(rest, `/\`)
	if err := u.authority(raw, &rest); err != nil {
		return nil, err
	}
	if u.Host == "" {
		return bad("it has no host")
	}
	u.pathQueryFragment(rest, nil)
	return u, nil
}

// SchemeOf is raw's scheme, lower case, as a browser reads it (tabs and
// newlines removed), or "" when it has none; for messages about a URL
// Parse refuses.
func SchemeOf(raw string) string {
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	if i := schemeEnd(s); i > 0 {
		return strings.ToLower(s[:i])
	}
	return ""
}

// schemeEnd returns the index of the colon ending s's scheme, or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c):
		case i > 0 && (isDigit(c) || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// relative resolves s, which has no scheme, against base.
func relative(raw, s string, base *URL) (*URL, error) {
	u := *base
	u.HasQuery, u.Query, u.HasFragment, u.Fragment = false, "", false, ""
	special := Special(base.Scheme)
	isSlash := func(c byte) bool { return c == '/' || (special && c == '\\') }
	switch {
	case len(s) >= 2 && isSlash(s[0]) && isSlash(s[1]):
		if base.Scheme == "file" {
			return file(raw, &URL{Scheme: "file"}, s)
		}
		rest := strings.TrimLeft(s, `/\`)
		u = URL{Scheme: base.Scheme}
		if err := u.authority(raw, &rest); err != nil {
			return nil, err
		}
		if u.Host == "" {
			return nil, &Error{Input: raw, Reason: "it has no host"}
		}
		u.pathQueryFragment(rest, nil)
		return &u, nil
	case s != "" && isSlash(s[0]):
		u.pathQueryFragment(s, nil)
	case s == "":
		u.Query, u.HasQuery = base.Query, base.HasQuery
	case s[0] == '?':
		u.pathQueryFragment(s, nil)
		u.Path = base.Path
	case s[0] == '#':
		u.Query, u.HasQuery = base.Query, base.HasQuery
		u.Path = base.Path
		u.fragment(s[1:])
	default:
		segs := splitPath(base.Path)
		if len(segs) > 0 {
			segs = segs[:len(segs)-1]
		}
		u.pathQueryFragment(s, segs)
	}
	return &u, nil
}

// splitPath is a serialised path's segments: "/a/b/" is a, b and "".
func splitPath(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

// opaqueAuthority is the authority of a URL whose scheme is not special
// that is read the same way by every reader: a host of the characters a
// host name has, or their escapes, and a port; group 1 is the port.
var opaqueAuthority = regexp.MustCompile(`^(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+(?::([0-9]{0,5}))?$`)

// chromiumStandard are schemes Chromium, unlike the standard, reads with an
// authority (url::AddStandardScheme).
var chromiumStandard = map[string]bool{"chrome": true, "chrome-extension": true, "chrome-untrusted": true,
	"chrome-search": true, "devtools": true, "isolated-app": true, "chrome-native": true}

// opaque reads a URL whose scheme is not special: about:blank, data:,
// javascript:, mailto:, chrome://settings. Only its scheme is judged (a
// host in it, which Chromium reads differently for its own schemes, is
// not): the URL policy refuses these schemes unless the operator allows
// them, and the write set counts them as sending anywhere.
func opaque(raw string, u *URL, rest string) (*URL, error) {
	u.Opaque = true
	auth, hasAuth := strings.CutPrefix(rest, "//")
	if chromiumStandard[u.Scheme] && (!hasAuth || strings.IndexAny(auth, "/?#") == 0 || auth == "") {
		// Chromium reads its own schemes as it reads http: with a host,
		// and refuses one without ("chrome:").
		return nil, &Error{Input: raw, Reason: fmt.Sprintf("a %s: URL without a host after //", u.Scheme)}
	}
	if hasAuth {
		// An authority Chromium reads as the standard's opaque host: one
		// it may refuse (a space, a bracket, user information, a port out
		// of range) is refused, whatever this scheme is allowed to do.
		if end := strings.IndexAny(auth, "/?#"); end >= 0 {
			auth = auth[:end]
		}
		m := opaqueAuthority.FindStringSubmatch(auth)
		if m == nil {
			return nil, &Error{Input: raw, Reason: fmt.Sprintf("%s: URL with an authority %q browsers may read differently", u.Scheme, auth)}
		}
		if n, err := strconv.ParseUint(cmp.Or(m[1], "0"), 10, 32); err != nil || n > 65535 {
			return nil, &Error{Input: raw, Reason: fmt.Sprintf("port %s is out of range", m[1])}
		}
	}
	body := rest
	if i := strings.IndexByte(body, '#'); i >= 0 {
		u.fragment(body[i+1:])
		body = body[:i]
	}
	if i := strings.IndexByte(body, '?'); i >= 0 {
		u.Query, u.HasQuery = encode(body[i+1:], querySet), true
		body = body[:i]
	}
	u.Path = encode(body, c0Set)
	return u, nil
}

// file reads a file: URL: its host, if any, and path. A Windows drive
// letter, which the standard treats apart, is refused.
func file(raw string, u *URL, rest string) (*URL, error) {
	if len(rest) >= 2 && (rest[0] == '/' || rest[0] == '\\') && (rest[1] == '/' || rest[1] == '\\') {
		rest = rest[2:]
		end := strings.IndexAny(rest, `/\?#`)
		if end < 0 {
			end = len(rest)
		}
		if strings.ContainsAny(rest[:end], "@:") {
			return nil, &Error{Input: raw, Reason: "a file: URL with user information or a port"}
		}
		if end == 0 && end < len(rest) && (rest[0] == '?' || rest[0] == '#') {
			// Chromium refuses "file://#x", which the standard reads.
			return nil, &Error{Input: raw, Reason: "a file: URL with neither host nor path"}
		}
		if end == 0 && len(rest) >= 2 && (rest[1] == '/' || rest[1] == '\\') {
			// "file:////x": Chromium merges the slashes its own way.
			return nil, &Error{Input: raw, Reason: "a file: URL whose path starts with more slashes"}
		}
		if rest[:end] != "" {
			u.GivenHost = rest[:end]
			h, err := domain(raw, rest[:end])
			if err != nil {
				return nil, err
			}
			// A host that ends in a number is an address here too:
			// file://0/ is file://0.0.0.0/.
			if a, ok, err := ipv4(h); err != nil {
				return nil, &Error{Input: raw, Reason: err.Error()}
			} else if ok {
				u.Addr, h = a, a.String()
			}
			u.Host = h
		}
		rest = rest[end:]
	}
	p := strings.TrimLeft(rest, `/\`)
	if len(p) >= 2 && isAlpha(p[0]) && (p[1] == ':' || p[1] == '|') {
		return nil, &Error{Input: raw, Reason: "a file: URL with a drive letter"}
	}
	u.pathQueryFragment(rest, nil)
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// authority reads the user information, host and port at the start of
// *rest, and leaves in *rest what follows them.
func (u *URL) authority(raw string, rest *string) error {
	s := *rest
	end := strings.IndexAny(s, `/\?#`)
	if end < 0 {
		end = len(s)
	}
	auth := s[:end]
	*rest = s[end:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		info := auth[:at]
		auth = auth[at+1:]
		name, pass, _ := strings.Cut(info, ":")
		u.Username, u.Password = encode(name, userinfoSet), encode(pass, userinfoSet)
		if auth == "" {
			return &Error{Input: raw, Reason: "user information and no host"}
		}
	}
	hostPart, port := auth, ""
	if i := strings.LastIndexByte(auth, ':'); i >= 0 && !strings.Contains(auth[i:], "]") {
		hostPart, port = auth[:i], auth[i+1:]
	}
	u.GivenHost = hostPart
	if hostPart == "" {
		return nil
	}
	if port != "" {
		for i := 0; i < len(port); i++ {
			if !isDigit(port[i]) {
				return &Error{Input: raw, Reason: fmt.Sprintf("port %q is not a number", port)}
			}
		}
		n, err := strconv.ParseUint(strings.TrimLeft(port, "0"), 10, 16)
		if strings.TrimLeft(port, "0") == "" {
			n, err = 0, nil
		}
		if err != nil {
			return &Error{Input: raw, Reason: fmt.Sprintf("port %s is out of range", port)}
		}
		u.Port = strconv.FormatUint(n, 10)
		if u.Port == defaultPorts[u.Scheme] {
			u.Port = ""
		}
	}
	if strings.HasPrefix(hostPart, "[") {
		a, err := ipv6(hostPart)
		if err != nil {
			return &Error{Input: raw, Reason: err.Error()}
		}
		u.Addr, u.Host = a, "["+serialise6(a)+"]"
		return nil
	}
	h, err := domain(raw, hostPart)
	if err != nil {
		return err
	}
	if a, ok, err := ipv4(h); err != nil {
		return &Error{Input: raw, Reason: err.Error()}
	} else if ok {
		u.Addr, u.Host = a, a.String()
		return nil
	}
	u.Host = h
	return nil
}

// lookup maps a host name to ASCII as UTS #46 says, with the options the
// WHATWG standard and Chromium use: non-transitional, no STD3 rules, no
// hyphen checks, bidi and joiner rules checked.
var lookup = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false),
	idna.CheckHyphens(false), idna.BidiRule(), idna.CheckJoiners(true), idna.VerifyDNSLength(false))

// domain percent-decodes a host name and maps it to ASCII; a host with a
// character no host name has (beyond letters, digits, hyphens,
// underscores and dots) is refused, since browsers treat those
// differently.
func domain(raw, given string) (string, error) {
	dec, ok := percentDecode(given)
	if !ok || !utf8.ValidString(dec) {
		return "", &Error{Input: raw, Reason: fmt.Sprintf("host %q does not decode to text", given)}
	}
	ascii, err := lookup.ToASCII(dec)
	if err != nil {
		return "", &Error{Input: raw, Reason: fmt.Sprintf("host %q is not a valid host name: %v", given, err)}
	}
	ascii = strings.ToLower(ascii)
	if ascii == "" {
		return "", &Error{Input: raw, Reason: "it has an empty host"}
	}
	// The mapping must keep every label: x/net/idna reads an empty
	// punycode label ("xn--.com") as no label at all, where Chromium keeps
	// it. A label lost or emptied on the way is refused.
	stops := func(r rune) bool { return r == '.' || r == '\u3002' || r == '\uff0e' || r == '\uff61' }
	in, out := strings.FieldsFunc(dec, stops), strings.Split(strings.TrimSuffix(ascii, "."), ".")
	if len(in) != len(out) || slices.Contains(out, "") || strings.HasSuffix(ascii, "..") {
		return "", &Error{Input: raw, Reason: fmt.Sprintf("host %q has an empty label, or one its ASCII form loses", given)}
	}
	for i := 0; i < len(ascii); i++ {
		c := ascii[i]
		if !isAlpha(c) && !isDigit(c) && c != '-' && c != '_' && c != '.' {
			return "", &Error{Input: raw, Reason: fmt.Sprintf("host %q holds %q", given, c)}
		}
	}
	return ascii, nil
}

// ipv4 reads host as an IPv4 address when it ends in a number, as the
// standard says (decimal, octal, hex, and fewer than four parts: 2852039166,
// 0xa9fea9fe, 0251.0376.0251.0376, 169.254.43518); ok is false for a name.
// A host that ends in a number but is no address is an error.
func ipv4(host string) (netip.Addr, bool, error) {
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last == "" {
		return netip.Addr{}, false, nil
	}
	if _, ok := ipv4Number(last); !ok && strings.Trim(last, "0123456789") != "" {
		return netip.Addr{}, false, nil
	}
	bad := fmt.Errorf("host %q ends in a number but is not an IPv4 address", host)
	if len(parts) > 4 {
		return netip.Addr{}, false, bad
	}
	var v uint64
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, false, bad
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false, bad
			}
			v |= n << (24 - 8*i)
			continue
		}
		if n >= 1<<(8*(5-len(parts))) {
			return netip.Addr{}, false, bad
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, nil
}

// ipv4Number reads one part of an IPv4 address: decimal, octal with a
// leading 0, hex with 0x.
func ipv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	for i := 0; i < len(p); i++ {
		c := p[i] | 0x20
		switch {
		case isDigit(p[i]) && int(p[i]-'0') < base:
		case base == 16 && c >= 'a' && c <= 'f':
		default:
			return 0, false
		}
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil {
		return 1 << 40, true // a number, out of any address's range
	}
	return n, true
}

// ipv6 reads a bracketed IPv6 address; a zone, which no browser accepts,
// is refused.
func ipv6(bracketed string) (netip.Addr, error) {
	inner, ok := strings.CutSuffix(strings.TrimPrefix(bracketed, "["), "]")
	if !ok || strings.ContainsAny(inner, "%[]") {
		return netip.Addr{}, fmt.Errorf("host %s is not an IPv6 address", bracketed)
	}
	a, err := netip.ParseAddr(inner)
	if err != nil || !a.Is6() {
		return netip.Addr{}, fmt.Errorf("host %s is not an IPv6 address", bracketed)
	}
	return a, nil
}

// serialise6 writes an IPv6 address as the standard does: lower-case hex,
// the first longest run of two or more zero pieces compressed, never a
// dotted IPv4 tail.
func serialise6(a netip.Addr) string {
	b := a.As16()
	var pieces [8]uint16
	for i := range pieces {
		pieces[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	start, length := -1, 1
	for i := 0; i < 8; {
		if pieces[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && pieces[j] == 0 {
			j++
		}
		if j-i > length {
			start, length = i, j-i
		}
		i = j
	}
	var s strings.Builder
	for i := 0; i < 8; i++ {
		if i == start {
			s.WriteString("::")
			i += length - 1
			continue
		}
		if i > 0 && i != start+length {
			s.WriteByte(':')
		}
		s.WriteString(strconv.FormatUint(uint64(pieces[i]), 16))
	}
	return s.String()
}

// DomainToASCII is a host name as the browser connects to it: percent-
// decoded and mapped to ASCII (punycode) as Parse maps a URL's host, for
// showing a person the real host of a name written in Unicode.
func DomainToASCII(name string) (string, error) {
	return domain(name, name)
}
