package urlpolicy

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/chaperone-mcp/chaperone/internal/weburl"
	"golang.org/x/net/idna"
)

// CanonicalHost returns raw as the browser reads it (internal/weburl: an
// address in any spelling as its dotted form, an IDN in ASCII, dot segments
// gone), so that sites compare as the browser will connect; an origin
// pattern keeps its "*."; raw unchanged when it cannot be read.
func CanonicalHost(raw string) string {
	trimmed := strings.TrimSpace(raw)
	scheme, rest, ok := strings.Cut(trimmed, "://*.")
	if ok {
		c := CanonicalHost(scheme + "://" + rest)
		if s, r, ok := strings.Cut(c, "://"); ok {
			return s + "://*." + r
		}
		return raw
	}
	u, err := weburl.Parse(trimmed)
	if err != nil || u.Opaque || u.Host == "" {
		return raw
	}
	return u.Href()
}

// metadataAsGiven says why raw's host, read as net/url reads it, is a
// metadata or link-local address, or "": the reason given for a URL the
// browser's reading refuses (an IPv6 address with a zone) is still the
// address it names.
func metadataAsGiven(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	h, err := parseHost(u.Hostname())
	if err != nil {
		return ""
	}
	return h.metadata()
}

// host is a URL's host, normalised the way a browser does before it
// connects: an address when the host is one in any spelling, else the
// ASCII (punycode) name.
type host struct {
	given string     // as written in the URL
	addr  netip.Addr // valid when the host is an address
	name  string     // the ASCII name, lower case, when it is not
}

// lookupProfile maps a host name as the WHATWG URL standard does (UTS #46,
// non-transitional, no STD3 rules), so that full-width digits and
// ideographic full stops become the ASCII a browser connects to.
var lookupProfile = idna.New(idna.MapForLookup(), idna.Transitional(false),
	idna.StrictDomainName(false), idna.CheckHyphens(false), idna.BidiRule())

// parseHost normalises a URL's host name (without brackets or port).
func parseHost(given string) (host, error) {
	h := host{given: given}
	if strings.Contains(given, ":") {
		a, err := netip.ParseAddr(given)
		if err != nil {
			return h, fmt.Errorf("%q is not a valid IPv6 address", given)
		}
		h.addr = a.WithZone("")
		return h, nil
	}
	ascii, err := lookupProfile.ToASCII(given)
	if err != nil {
		return h, fmt.Errorf("%q is not a valid host name: %v", given, err)
	}
	ascii = strings.TrimSuffix(ascii, ".")
	if a, ok := parseIPv4(ascii); ok {
		h.addr = a
		return h, nil
	}
	h.name = ascii
	return h, nil
}

func (h host) String() string {
	switch {
	case h.addr.Is6():
		return "[" + h.addr.String() + "]"
	case h.addr.IsValid():
		return h.addr.String()
	}
	return h.name
}

// metadata says why the host is a metadata or link-local address, or "".
func (h host) metadata() string {
	if !h.addr.IsValid() {
		switch h.name {
		case "metadata.google.internal", "metadata.goog", "metadata":
			return h.name + " is a cloud metadata address"
		}
		return ""
	}
	a := h.addr.Unmap()
	why := classify(a)
	if why != "" && !strings.EqualFold(strings.Trim(h.given, "[]"), a.String()) {
		return fmt.Sprintf("%s is %s, %s", h.given, a, why)
	}
	if why != "" {
		return fmt.Sprintf("%s is %s", a, why)
	}
	return ""
}

var (
	metadataAddrs = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"), // AWS, Azure, GCP, Oracle, DigitalOcean…
		netip.MustParseAddr("169.254.170.2"),   // AWS ECS task credentials
		netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
		netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
		netip.MustParseAddr("fd20:ce::254"),    // GCP over IPv6
	}
	linkLocal4 = netip.MustParsePrefix("169.254.0.0/16")
	linkLocal6 = netip.MustParsePrefix("fe80::/10")
	// nat64 embeds an IPv4 address in its last 32 bits; a host with
	// NAT64 reaches that IPv4 address through it.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// classify says what kind of forbidden address a is ("a cloud metadata
// address", "a link-local address…"), or "" when it is not one. a is
// unmapped and has no zone.
func classify(a netip.Addr) string {
	if nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte(b[12:]))
	}
	switch {
	case slices.Contains(metadataAddrs, a):
		return "a cloud metadata address"
	case linkLocal4.Contains(a), linkLocal6.Contains(a):
		return "a link-local address, where cloud metadata services live"
	}
	return ""
}

// parseIPv4 parses host as an IPv4 address the way the WHATWG URL standard
// does, so that 2852039166, 0xa9fea9fe, 0251.0376.0251.0376 and
// 169.254.43518 are all 169.254.169.254.
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 || len(parts) == 0 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, part := range parts {
		base := 10
		switch {
		case strings.HasPrefix(part, "0x") || strings.HasPrefix(part, "0X"):
			part, base = part[2:], 16
			if part == "" {
				part = "0"
			}
		case len(part) > 1 && part[0] == '0':
			part, base = part[1:], 8
		}
		n, err := strconv.ParseUint(part, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (24 - 8*i)
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
