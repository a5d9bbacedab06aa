// Package urlpolicy decides which URLs a browser session may open: schemes,
// origins, cloud metadata and link-local addresses, and the addresses
// reserved for the approval channel, checked on every document the browser
// loads and again after DNS resolves (docs/architecture.md, "Contracts").
package urlpolicy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/weburl"
)

// Policy says which URLs a session may open: the start URL and every
// document its pages load (navigations, redirects, frames, popups). By
// default only http and https are allowed (plus about:blank), and never a
// cloud metadata or link-local address, which would hand the instance's
// credentials to whoever drives the browser.
type Policy struct {
	// AllowSchemes lists schemes allowed beyond http and https, such as
	// "file" or "chrome", lower case.
	AllowSchemes []string
	// AllowMetadata allows the cloud metadata addresses (169.254.169.254,
	// fd00:ec2::254, fd20:ce::254, 100.100.100.200, metadata.google.internal)
	// and the link-local ranges they live in (169.254.0.0/16, fe80::/10).
	AllowMetadata bool
	// AllowedOrigins, when not empty, are the only origins documents may
	// come from: "https://example.com", "http://127.0.0.1:8080", or
	// "https://*.example.com" for every subdomain of example.com.
	AllowedOrigins []string
	// BlockedOrigins are origins documents may never come from, in the
	// same forms; they win over AllowedOrigins.
	BlockedOrigins []string
	// Reserved are the host:port addresses of Chaperone's own approval
	// channels (the web console, the webhook's callback and the agent host
	// it posts to). No document is ever loaded from them, whatever the rest
	// of the policy allows: the browser the agent drives must not reach the
	// place where its actions are approved. An address is matched by what
	// it reaches, not by how it is spelled: a loopback address is reached
	// from every loopback address and every name resolving to one, and an
	// unspecified one (0.0.0.0, ::) from loopback too.
	Reserved []string
}

// Resolver looks up the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Refusal is a URL the policy refuses: the error Check and CheckResolved
// return.
type Refusal struct {
	// URL is the URL refused, as given.
	URL string
	// Reason says why, in words a person understands: "169.254.169.254 is
	// a cloud metadata address".
	Reason string
	// Fix says how to allow it, when a flag can; empty otherwise.
	Fix string
}

func (r *Refusal) Error() string {
	msg := fmt.Sprintf("URL %q refused: %s", r.URL, r.Reason)
	if r.Fix != "" {
		msg += "; " + r.Fix
	}
	return msg
}

// Check returns nil if raw may be opened, or a *Refusal that says why not
// and how to allow it. It looks at the URL alone; CheckResolved also looks
// up the host's addresses.
func (p Policy) Check(raw string) error {
	return p.CheckResolved(context.Background(), raw, nil)
}

// CheckResolved is Check that also resolves the host name with r (unless
// r is nil) and refuses a name that resolves to a metadata or link-local
// address. A name that does not resolve passes: the browser cannot reach it
// either.
func (p Policy) CheckResolved(ctx context.Context, raw string, r Resolver) error {
	refuse := func(fix, format string, a ...any) error {
		return &Refusal{URL: raw, Reason: fmt.Sprintf(format, a...), Fix: fix}
	}
	// The URL as Chromium reads it (internal/weburl), never net/url's
	// reading: "http:host", "http:\\host" and a tab inside a host name all
	// reach a host that net/url does not see.
	u, perr := weburl.Parse(raw)
	scheme := ""
	if perr == nil {
		scheme = u.Scheme
	} else {
		scheme = weburl.SchemeOf(raw)
	}
	switch {
	case scheme == "":
		return refuse("", "it has no scheme; use an absolute http or https URL")
	case scheme == "about" && perr == nil && (strings.EqualFold(u.Path, "blank") || strings.EqualFold(u.Path, "srcdoc")):
		return nil
	case scheme != "http" && scheme != "https" && !slices.Contains(p.AllowSchemes, scheme):
		return refuse("allow it with --allow-schemes "+scheme+" if you mean it",
			"scheme %q is not allowed (only http and https)", scheme)
	}
	if scheme == "view-source" {
		// view-source: loads the URL it wraps, which must pass on its own.
		_, inner, _ := strings.Cut(strings.TrimSpace(raw), ":")
		return p.CheckResolved(ctx, inner, r)
	}
	if perr != nil {
		if why := metadataAsGiven(raw); why != "" && !p.AllowMetadata {
			return refuse("allow it with --allow-metadata if you mean it", "%s", why)
		}
		var we *weburl.Error
		if errors.As(perr, &we) {
			return refuse("", "it is not a valid URL: %s", we.Reason)
		}
		return refuse("", "it is not a valid URL: %v", perr)
	}
	if u.Opaque || u.Host == "" {
		return nil // file: and the like, allowed by scheme above
	}
	h := host{given: strings.Trim(u.GivenHost, "[]"), addr: u.Addr}
	if !u.Addr.IsValid() {
		h.name = strings.TrimSuffix(u.Host, ".")
	}
	if why := p.reserved(ctx, scheme, u.Port, h, r); why != "" {
		return refuse("", "%s", why)
	}
	const fixMetadata = "allow it with --allow-metadata if you mean it"
	if !p.AllowMetadata {
		if why := h.metadata(); why != "" {
			return refuse(fixMetadata, "%s", why)
		}
	}
	o := origin{scheme: scheme, host: h.String(), port: u.Port}
	o.port = o.effectivePort()
	for _, b := range p.BlockedOrigins {
		if pat, err := parseOriginPattern(b); err == nil && pat.match(o) {
			return refuse("", "%s is a blocked origin", o)
		}
	}
	if len(p.AllowedOrigins) > 0 && !slices.ContainsFunc(p.AllowedOrigins, func(a string) bool {
		pat, err := parseOriginPattern(a)
		return err == nil && pat.match(o)
	}) {
		return refuse("", "%s is not an allowed origin (allowed: %s)", o, strings.Join(p.AllowedOrigins, ", "))
	}
	if p.AllowMetadata || r == nil || h.addr.IsValid() {
		return nil
	}
	addrs, err := r.LookupNetIP(ctx, "ip", h.name)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if why := classify(a.Unmap().WithZone("")); why != "" {
			return refuse(fixMetadata, "%s resolves to %s, %s", h.name, a.Unmap().WithZone(""), why)
		}
	}
	return nil
}

// Validate reports an allowed or blocked origin that is not an origin or
// an origin pattern.
func (p Policy) Validate() error {
	for _, list := range []struct {
		flag    string
		origins []string
	}{{"--allowed-origins-browse", p.AllowedOrigins}, {"--blocked-origins", p.BlockedOrigins}} {
		for _, o := range list.origins {
			if _, err := parseOriginPattern(o); err != nil {
				return fmt.Errorf("%s: %w", list.flag, err)
			}
		}
	}
	for _, a := range p.Reserved {
		if _, err := parseReserved(a); err != nil {
			return err
		}
	}
	return nil
}

// WithAllowedOrigins returns p with origins added to its allowed origins.
func (p Policy) WithAllowedOrigins(origins ...string) Policy {
	p.AllowedOrigins = append(slices.Clip(p.AllowedOrigins), origins...)
	return p
}

// WithReserved returns p with the host:port addresses added to its
// reserved ones, or an error naming one that is not host:port.
func (p Policy) WithReserved(hostports ...string) (Policy, error) {
	for _, a := range hostports {
		if _, err := parseReserved(a); err != nil {
			return p, err
		}
	}
	p.Reserved = append(slices.Clip(p.Reserved), hostports...)
	return p, nil
}

// reservedAddr is one of Policy.Reserved, parsed.
type reservedAddr struct {
	host host
	port string
}

func parseReserved(hostport string) (reservedAddr, error) {
	h, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return reservedAddr{}, fmt.Errorf("reserved address %q: %w", hostport, err)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return reservedAddr{}, fmt.Errorf("reserved address %q: want a port number", hostport)
	}
	ph, err := parseHost(h)
	if err != nil {
		return reservedAddr{}, fmt.Errorf("reserved address %q: %w", hostport, err)
	}
	return reservedAddr{host: ph, port: port}, nil
}

// reserved says why a URL of scheme, port (as written, "" for the scheme's
// default) and host h reaches a reserved address, or "". Names are looked
// up with r when it is set; localhost and its subdomains are loopback
// without a look-up, as in the browser.
func (p Policy) reserved(ctx context.Context, scheme, port string, h host, r Resolver) string {
	if len(p.Reserved) == 0 {
		return ""
	}
	if port == "" {
		switch scheme {
		case "http", "ws":
			port = "80"
		case "https", "wss":
			port = "443"
		}
	}
	if n, err := strconv.ParseUint(port, 10, 16); err == nil {
		port = strconv.FormatUint(n, 10) // "08080" is 8080
	}
	const why = "%s is Chaperone's own approval channel, which the browser it drives may never open"
	var addrs []netip.Addr // h's, looked up once, when a reserved port matches
	looked := false
	for _, raw := range p.Reserved {
		a, err := parseReserved(raw)
		if err != nil || a.port != port {
			continue
		}
		if h.name != "" && h.name == a.host.name {
			return fmt.Sprintf(why, net.JoinHostPort(h.name, port))
		}
		if !looked {
			addrs, looked = hostAddrs(ctx, h, r), true
		}
		for _, ra := range hostAddrs(ctx, a.host, r) {
			for _, ha := range addrs {
				if reaches(ha, ra) {
					return fmt.Sprintf(why, net.JoinHostPort(strings.Trim(h.String(), "[]"), port))
				}
			}
		}
	}
	return ""
}

// hostAddrs is the addresses h stands for: its own, loopback for localhost
// and its subdomains, else what r finds (nothing without r).
func hostAddrs(ctx context.Context, h host, r Resolver) []netip.Addr {
	switch {
	case h.addr.IsValid():
		return []netip.Addr{h.addr.Unmap()}
	case h.name == "localhost" || strings.HasSuffix(h.name, ".localhost"):
		return []netip.Addr{netip.IPv6Loopback(), netip.AddrFrom4([4]byte{127, 0, 0, 1})}
	case r == nil:
		return nil
	}
	found, err := r.LookupNetIP(ctx, "ip", h.name)
	if err != nil {
		return nil
	}
	out := make([]netip.Addr, len(found))
	for i, a := range found {
		out[i] = a.Unmap().WithZone("")
	}
	return out
}

// reaches reports whether a connection to address a may reach a listener
// on address l. Conservatively, every loopback address reaches every
// other, and the unspecified address is this machine.
func reaches(a, l netip.Addr) bool {
	if a == l {
		return true
	}
	local := func(x netip.Addr) bool { return x.IsLoopback() || x.IsUnspecified() }
	return local(a) && local(l)
}

// DocumentCheck returns the check the browser applies to every document
// request, resolving host names with r (its answers kept for a while, since
// a page loads many documents from one host): nil or an error whose text is
// the reason for the refusal.
func (p Policy) DocumentCheck(r Resolver) func(ctx context.Context, url string) error {
	if r != nil {
		r = &cachingResolver{r: r, ttl: resolveTTL, cache: make(map[string]resolved)}
	}
	return func(ctx context.Context, url string) error {
		err := p.CheckResolved(ctx, url, r)
		if ref, ok := errors.AsType[*Refusal](err); ok {
			return errors.New(ref.Reason)
		}
		return err
	}
}

// origin is a URL's scheme, normalised host and port ("" for the scheme's
// default).
type origin struct{ scheme, host, port string }

func (o origin) effectivePort() string {
	if (o.scheme == "http" && o.port == "80") || (o.scheme == "https" && o.port == "443") {
		return ""
	}
	return o.port
}

func (o origin) String() string {
	s := o.scheme + "://" + o.host
	if o.port != "" {
		s += ":" + o.port
	}
	return s
}

// originPattern is an allowed or blocked origin; with subdomains it
// matches every subdomain of host (not host itself).
type originPattern struct {
	origin
	subdomains bool
}

// parseOriginPattern parses "https://example.com", "http://127.0.0.1:8080"
// or "https://*.example.com".
func parseOriginPattern(s string) (originPattern, error) {
	bad := func(why string) (originPattern, error) {
		return originPattern{}, fmt.Errorf("%q is not an origin like https://example.com or https://*.example.com: %s", s, why)
	}
	scheme, rest, ok := strings.Cut(strings.TrimSuffix(strings.TrimSpace(s), "/"), "://")
	if !ok || scheme == "" {
		return bad("no scheme")
	}
	var pat originPattern
	if r, ok := strings.CutPrefix(rest, "*."); ok {
		pat.subdomains, rest = true, r
	}
	u, err := url.Parse("x://" + rest)
	if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return bad("want scheme://host[:port] and nothing else")
	}
	h, err := parseHost(u.Hostname())
	if err != nil {
		return bad(err.Error())
	}
	if pat.subdomains && h.addr.IsValid() {
		return bad("*. goes before a domain name, not an address")
	}
	pat.origin = origin{scheme: strings.ToLower(scheme), host: h.String(), port: u.Port()}
	pat.port = pat.effectivePort()
	return pat, nil
}

func (p originPattern) match(o origin) bool {
	if p.scheme != o.scheme || p.port != o.port {
		return false
	}
	if p.subdomains {
		return strings.HasSuffix(o.host, "."+p.host)
	}
	return p.host == o.host
}

// resolveTTL is how long a host name's addresses are kept: a browser's own
// cache keeps them about as long.
const resolveTTL = time.Minute

// cachingResolver keeps the answers of a Resolver for ttl.
type cachingResolver struct {
	r   Resolver
	ttl time.Duration

	mu    sync.Mutex
	cache map[string]resolved
}

type resolved struct {
	addrs []netip.Addr
	err   error
	until time.Time
}

func (c *cachingResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	key := network + " " + host
	c.mu.Lock()
	e, ok := c.cache[key]
	c.mu.Unlock()
	if ok && time.Now().Before(e.until) {
		return e.addrs, e.err
	}
	addrs, err := c.r.LookupNetIP(ctx, network, host)
	if ctx.Err() != nil {
		return addrs, err // the caller gave up: nothing learnt about the name
	}
	c.mu.Lock()
	if len(c.cache) > 1000 {
		clear(c.cache)
	}
	c.cache[key] = resolved{addrs: addrs, err: err, until: time.Now().Add(c.ttl)}
	c.mu.Unlock()
	return addrs, err
}
