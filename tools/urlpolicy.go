package tools

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// URLPolicy says which URLs a session may open: the start URL and any
// navigation. By default only http and https are allowed (plus about:blank),
// and never a cloud metadata address, which would hand the instance's
// credentials to whoever drives the browser.
type URLPolicy struct {
	// AllowSchemes lists schemes allowed beyond http and https, such as
	// "file" or "chrome", lower case.
	AllowSchemes []string
	// AllowMetadata allows the cloud metadata addresses (169.254.169.254 and
	// the rest of 169.254.0.0/16, fd00:ec2::254, 100.100.100.200,
	// metadata.google.internal).
	AllowMetadata bool
}

// Check returns nil if raw may be opened, or an error that says why not and
// how to allow it.
func (p URLPolicy) Check(raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("URL %q refused: %w", raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "":
		return fmt.Errorf("URL %q refused: it has no scheme; use an absolute http or https URL", raw)
	case scheme == "about" && strings.EqualFold(u.Opaque, "blank"):
		return nil
	case scheme != "http" && scheme != "https" && !slices.Contains(p.AllowSchemes, scheme):
		return fmt.Errorf("URL %q refused: scheme %q is not allowed (only http and https); allow it with --allow-schemes %s if you mean it", raw, scheme, scheme)
	}
	if !p.AllowMetadata && isMetadataHost(u.Hostname()) {
		return fmt.Errorf("URL %q refused: %s is a cloud metadata address; allow it with --allow-metadata if you mean it", raw, u.Hostname())
	}
	return nil
}

// isMetadataHost reports whether host names a cloud metadata service, in any
// of the spellings a browser accepts for an IPv4 address (decimal, octal,
// hex, fewer than four parts).
func isMetadataHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	switch host {
	case "metadata.google.internal", "metadata.goog", "metadata":
		return true
	}
	addr, ok := parseHostIP(host)
	if !ok {
		return false
	}
	addr = addr.Unmap()
	linkLocal := netip.MustParsePrefix("169.254.0.0/16")
	return linkLocal.Contains(addr) ||
		addr == netip.MustParseAddr("100.100.100.200") ||
		addr == netip.MustParseAddr("fd00:ec2::254")
}

// parseHostIP parses host as an IP address the way the WHATWG URL standard
// does, so that 2852039166, 0xa9fea9fe and 0251.0376.0251.0376 are all
// 169.254.169.254.
func parseHostIP(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return a, true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 || len(parts) == 0 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, part := range parts {
		base := 10
		switch {
		case strings.HasPrefix(part, "0x"):
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
