package checkpoint

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/chaperone-mcp/chaperone/internal/weburl"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"golang.org/x/net/publicsuffix"
)

// Site returns the site of an absolute URL or origin: its scheme and
// registrable domain (eTLD+1), e.g. "https://example.co.uk" for
// "https://shop.example.co.uk:8443/cart". The URL is read as the browser
// reads it (internal/weburl: "http:host", a backslash, a tab in the host, an
// address in any spelling, an IDN in punycode). An IP address, a public
// suffix itself and a single-label name are their own site; localhost is
// the site of every name under .localhost. An origin pattern's "*." is
// dropped: "https://*.example.com" is the site https://example.com. The
// port never counts, as for a browser's sites.
func Site(rawURL string) (string, error) {
	scheme, host, err := siteParts(rawURL)
	if err != nil {
		return "", err
	}
	return scheme + "://" + registrable(host), nil
}

// siteParts returns a URL's scheme and host as the browser reads them,
// lower case, without brackets, a trailing dot or a pattern's leading "*.".
func siteParts(rawURL string) (scheme, host string, err error) {
	u, err := readURL(rawURL)
	if err != nil {
		return "", "", fmt.Errorf("site of %q: %w", rawURL, err)
	}
	host = strings.TrimSuffix(u.Hostname(), ".")
	if u.Opaque || host == "" {
		return "", "", fmt.Errorf("site of %q: not an absolute URL with a host", rawURL)
	}
	return u.Scheme, host, nil
}

// readURL reads rawURL as the browser does; an origin pattern's "*." goes
// first.
func readURL(rawURL string) (*weburl.URL, error) {
	raw := strings.TrimSpace(rawURL)
	if scheme, rest, ok := strings.Cut(raw, "://*."); ok {
		raw = scheme + "://" + rest
	}
	return weburl.Parse(raw)
}

// registrable is host's registrable domain, or host itself when it has none.
func registrable(host string) string {
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Is6() && !a.Is4In6() {
			return "[" + a.WithZone("").String() + "]"
		}
		return a.Unmap().String()
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		// Every name under localhost is this machine: its labels are
		// data, as a subdomain's are.
		return "localhost"
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		// A public suffix or a single label: nothing smaller to register.
		return host
	}
	return d
}

// CarriesData reports whether opening rawURL sends the site more than the
// bare fact of a visit, which is the scheme, the site's host (or "www."
// and the site; a trailing dot, which the browser sends, is more), the
// scheme's default port and the path "/", nothing else:
// a port of its own, another path, a query or a fragment (even empty; the
// page's script reads it), user information, or a host name with labels
// beyond the registrable domain and "www." (a name server and the site see
// every label, so "alice-at-mail-com.attacker.example" carries data as
// surely as a query does; a port picked from 65,535 carries two bytes). The
// URL is read as the browser reads it. A URL that cannot be read carries
// data: nothing says it does not.
func CarriesData(rawURL string) bool {
	u, err := readURL(rawURL)
	if err != nil || u.Opaque {
		return true
	}
	if u.Username != "" || u.Password != "" || u.Port != "" || u.HasQuery || u.HasFragment {
		return true
	}
	if u.Path != "" && u.Path != "/" {
		return true
	}
	host := u.Hostname()
	if host == "" {
		return false // no host: nothing leaves for a site
	}
	if strings.HasSuffix(host, ".") {
		return true // "localhost." is sent as written: a bit of its own
	}
	// An IPv6 address's site is bracketed, its Hostname not.
	sub, _ := strings.CutSuffix(host, strings.Trim(registrable(host), "[]"))
	return sub != "" && sub != "www."
}

// WriteSet is the sites a session may send data to without asking a person:
// the start URL's site, the profile's allowed origins and the ones the
// person added (--write-origins). Every other site is read-only for the
// agent. The zero WriteSet holds no site.
type WriteSet struct {
	sites []string
}

// NewWriteSet returns the write set of the sites of entries: URLs, origins
// or origin patterns ("https://*.example.com"). Empty entries are skipped;
// an entry with no site is an error that names it.
func NewWriteSet(entries ...string) (WriteSet, error) {
	var w WriteSet
	for _, e := range entries {
		if strings.TrimSpace(e) == "" {
			continue
		}
		s, err := Site(e)
		if err != nil {
			return WriteSet{}, fmt.Errorf("write set: %w", err)
		}
		if !slices.Contains(w.sites, s) {
			w.sites = append(w.sites, s)
		}
	}
	return w, nil
}

// Contains reports whether rawURL's site is in the write set. A URL with no
// site is not.
func (w WriteSet) Contains(rawURL string) bool {
	s, err := Site(rawURL)
	return err == nil && slices.Contains(w.sites, s)
}

// Sends reports whether opening rawURL, a URL the agent composed, sends data
// to a site outside the write set, and names that site. Data also leaves by
// a URL written inside it (a same-site open redirect's ?to=, a page that
// links to its query): so a URL embedding, in any layer of percent-encoding,
// one that sends data outside sends it too. A document the agent writes
// itself (data:, javascript:, blob:) can send anything anywhere: its scheme
// is named as the site. about: and file: URLs reach no site.
func (w WriteSet) Sends(rawURL string) (site string, ok bool) {
	budget := maxEmbedded
	return w.sends(rawURL, 0, &budget)
}

// maxNesting bounds how deep Sends looks for URLs inside URLs, maxLayers
// how many layers of percent-encoding it takes off (a chain of same-site
// redirects takes one off at each hop), and maxEmbedded how many URLs it
// looks at: past any of them, a URL counts as sending, so that no URL is
// both costly to look through and let go.
const (
	maxNesting  = 4
	maxLayers   = 8
	maxEmbedded = 64
)

func (w WriteSet) sends(rawURL string, depth int, budget *int) (string, bool) {
	if s, ok := w.sendsItself(rawURL); ok {
		return s, true
	}
	embedded, deeper := embeddedURLs(rawURL)
	if deeper {
		return "(a URL inside the URL, under more layers of encoding than are checked)", true
	}
	// Inside a URL, one the browser would not read (a server may read it
	// its own way) or of another scheme counts only when no decoding
	// shows where it really goes: "ht%09tp://" is http:// once decoded.
	// Every URL inside is judged itself before any is looked into, so
	// that one that sends is named, however deep it is.
	weak := ""
	var inner []string
	for _, e := range embedded {
		if *budget--; *budget < 0 {
			return "(more URLs inside the URL than are checked)", true
		}
		scheme := weburl.SchemeOf(e)
		if _, err := weburl.Parse(e); err != nil && weburl.Special(scheme) {
			weak = cmp.Or(weak, "(a URL inside the URL that cannot be read as a browser reads it)")
			continue
		}
		if !weburl.Special(scheme) {
			weak = cmp.Or(weak, scheme+":")
			continue
		}
		if s, ok := w.sendsItself(e); ok {
			return s, true
		}
		inner = append(inner, e)
	}
	for _, e := range inner {
		if depth+1 >= maxNesting {
			return "(URLs nested inside the URL deeper than are checked)", true
		}
		if s, ok := w.sends(e, depth+1, budget); ok {
			return s, true
		}
	}
	return weak, weak != ""
}

// sendsItself is Sends of rawURL alone, not of the URLs inside it.
func (w WriteSet) sendsItself(rawURL string) (string, bool) {
	if s, err := Site(rawURL); err == nil {
		if !slices.Contains(w.sites, s) && CarriesData(rawURL) {
			return s, true
		}
		return "", false
	}
	switch scheme := weburl.SchemeOf(rawURL); scheme {
	case "", "about", "file":
		return "", false
	case "http", "https", "ws", "wss", "ftp":
		// One the browser's reading refuses: nothing says where it goes.
		return "(a URL that cannot be read as a browser reads it)", true
	default:
		return scheme + ":", true
	}
}

// urlInText matches an absolute or scheme-relative URL inside text as a
// redirecting server may pass it on: a special scheme followed by any run
// of slashes and backslashes, none included ("http:host" is http://host/
// to a browser), or two of them without a scheme.
var urlInText = regexp.MustCompile(`(?i)(?:(?:https?|wss?|ftp):[/\\]*|[a-z][a-z0-9+.-]*:[/\\]{2}|[/\\]{2})[^/\\?#\s&"'<>]+[^\s"'<>]*`)

// embeddedURLs returns the URLs written inside rawURL (not rawURL itself),
// after the decodings a server that redirects may apply: each layer of
// percent-encoding in turn, and tabs and newlines removed, as the browser
// that follows the redirect removes them ("http://%09localhost" is
// http://localhost/). A scheme-relative one ("//host/x") takes rawURL's
// scheme, as a redirect's Location does. Sends looks inside each one found
// in turn. deeper is true when text is still encoded after maxLayers
// decodings: what it hides is not known.
func embeddedURLs(rawURL string) (out []string, deeper bool) {
	u, err := weburl.Parse(rawURL)
	if err != nil || u.Opaque || u.Host == "" {
		return nil, false // it reaches no site to pass a URL on to
	}
	// Past rawURL's own authority: its path, query and fragment.
	text := u.Path
	if u.HasQuery {
		text += "?" + u.Query
	}
	if u.HasFragment {
		text += "#" + u.Fragment
	}
	seen := map[string]bool{}
	for layer := 0; ; layer++ {
		stripped := strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, text)
		// The matches overlap: each search starts again at the host of
		// the URL found before, so that a URL written whole inside
		// another ("/r?to=http://b/r?to=http://c/?d") is found too.
		for off := 0; off < len(stripped) && len(out) <= maxEmbedded; {
			loc := urlInText.FindStringIndex(stripped[off:])
			if loc == nil {
				break
			}
			m := stripped[off+loc[0] : off+loc[1]]
			host := 0
			if m[0] != '/' && m[0] != '\\' {
				host = strings.IndexByte(m, ':') + 1
			}
			for host < len(m) && (m[host] == '/' || m[host] == '\\') {
				host++
			}
			off += loc[0] + host
			if m[0] == '/' || m[0] == '\\' {
				m = u.Scheme + ":" + m
			}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
		dec := unescape(text)
		if dec == text {
			return out, false
		}
		if layer == maxLayers {
			return out, true
		}
		text = dec
	}
}

// unescape decodes every valid %XX of s and leaves the rest as it is: a
// stray "%zz" must not hide the URLs that a server, decoding leniently as
// most do, will find.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		var c [1]byte
		if s[i] == '%' && i+2 < len(s) {
			if _, err := hex.Decode(c[:], []byte(s[i+1:i+3])); err == nil {
				b.WriteByte(c[0])
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// String lists the sites, comma-separated, or says there are none.
func (w WriteSet) String() string {
	if len(w.sites) == 0 {
		return "no site"
	}
	return strings.Join(w.sites, ", ")
}

// AuthorizeSend decides whether the agent may open a URL it composed (a),
// which sends data to site, outside the write set w: a person is asked, the
// prompt naming the site, even when the profile gates nothing else. Like
// Authorize, it uses up a pending pre-approval (which covers a when it is
// the Same action), refuses in a dry run, records the decision, and its
// error is non-nil only when ctx ended before a person decided.
func (g *Gate) AuthorizeSend(ctx context.Context, page *snapshot.Snapshot, a Action, site string, w WriteSet) (Decision, error) {
	pre := g.takePreApproval()
	reason := fmt.Sprintf("The agent composed this URL, and it sends data (its path, query, fragment or host name) to %s, a site outside this session's write set (%s). Pages can tell an agent to leak data this way.", site, w)
	if g.opts.DryRun {
		r := g.newRequest(page, KindCheckpoint, &a, reason)
		d := Decision{Channel: ChannelDryRun, RequestID: r.ID, Feedback: fmt.Sprintf(
			"Dry run: %s was not performed. %s With --dry-run no gated action is ever performed.", OneLine(a.String()), reason)}
		g.record(r, d)
		return d, nil
	}
	if pre != nil && pre.action.Same(a) {
		return pre.decision, nil
	}
	return g.ask(ctx, g.newRequest(page, KindCheckpoint, &a, reason))
}

// Writes reports whether action a gives a page something of the agent's:
// it types (a fill, a key into a field, a prompt's text), selects, uploads,
// drags, or submits a form. Loading, reading, scrolling, hovering and
// clicking links and buttons that submit no form are reads. A key that
// activates a control (Enter on a form's field submits it) writes too.
func Writes(a Action) bool {
	switch a.Verb {
	case VerbFill, VerbSelect, VerbUpload, VerbDrag:
		return true
	case VerbPress:
		return a.Field || a.Submits || a.Activates != nil
	case VerbClick:
		return a.Submits || (a.Dialog != nil && a.Value != "")
	}
	return false
}

// WritesOutside reports whether a writes (Writes) in a document whose site
// is outside w, and names that site. The document is the one the action
// acts in (a.Where.URL): a cross-site frame inside a page of the write set
// is judged as its own site. A document whose URL has no site (about:blank,
// about:srcdoc) is judged by the origin it inherited (a.Origin); one with
// neither (an opaque origin, data:, no URL at all) is named by its scheme
// and counts as outside: nothing says which site it writes to.
//
// A form sent elsewhere carries what it holds there: an action that
// submits a form to a site outside w (a.SubmitsTo) writes on that site,
// wherever the form is.
func (w WriteSet) WritesOutside(a Action) (site string, ok bool) {
	site, _, ok = w.writesOutside(a)
	return site, ok
}

// writesOutside is WritesOutside, also saying whether the site is the one
// a form is sent to rather than the document's.
func (w WriteSet) writesOutside(a Action) (site string, sent, ok bool) {
	if !Writes(a) {
		return "", false, false
	}
	if site, ok := w.document(a); ok {
		return site, false, true
	}
	if a.Submits && a.SubmitsTo != "" {
		if s, err := Site(a.SubmitsTo); err == nil && !slices.Contains(w.sites, s) {
			return s, true, true
		}
	}
	return "", false, false
}

// document reports whether the document a acts in is outside w, and names
// its site.
func (w WriteSet) document(a Action) (site string, ok bool) {
	s, err := Site(a.Where.URL)
	if err != nil && a.Origin != "" && a.Origin != "null" {
		s, err = Site(a.Origin)
	}
	if err != nil {
		if scheme := weburl.SchemeOf(a.Where.URL); scheme != "" {
			return scheme + ":", true
		}
		return "(a document with no URL)", true
	}
	if slices.Contains(w.sites, s) {
		return "", false
	}
	return s, true
}

// Add returns w with site's site added: the person widened the write set.
func (w WriteSet) Add(site string) WriteSet {
	s, err := Site(site)
	if err != nil || slices.Contains(w.sites, s) {
		return w
	}
	return WriteSet{sites: append(slices.Clip(w.sites), s)}
}
