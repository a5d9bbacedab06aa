package checkpoint

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"golang.org/x/net/publicsuffix"
)

// Site returns the site of an absolute URL or origin: its scheme and
// registrable domain (eTLD+1), e.g. "https://example.co.uk" for
// "https://shop.example.co.uk:8443/cart". An IP address, localhost (and a
// name under .localhost), a public suffix itself and a single-label name are
// their own site. An origin pattern's "*." is dropped:
// "https://*.example.com" is the site https://example.com. The port never
// counts, as for a browser's sites. Callers that accept browser spellings of
// addresses (octal, hex, IDN) normalise the host first.
func Site(rawURL string) (string, error) {
	scheme, host, err := siteParts(rawURL)
	if err != nil {
		return "", err
	}
	return scheme + "://" + registrable(host), nil
}

// siteParts returns a URL's scheme and host, lower case, without brackets,
// a trailing dot or a pattern's leading "*.".
func siteParts(rawURL string) (scheme, host string, err error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return "", "", fmt.Errorf("site of %q: %w", rawURL, err)
	}
	scheme = strings.ToLower(u.Scheme)
	host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	host = strings.TrimPrefix(host, "*.")
	if scheme == "" || host == "" {
		return "", "", fmt.Errorf("site of %q: not an absolute URL with a host", rawURL)
	}
	return scheme, host, nil
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
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		// A public suffix or a single label: nothing smaller to register.
		return host
	}
	return d
}

// CarriesData reports whether opening rawURL sends the site more than the
// bare fact of a visit: a path other than "/", a query, a fragment (the
// page's script reads it), user information, or a host name with labels
// beyond the registrable domain and "www." (a name server and the site see
// every label, so "alice-at-mail-com.attacker.example" carries data as
// surely as a query does). A URL that cannot be parsed carries data: nothing
// says it does not.
func CarriesData(rawURL string) bool {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return true
	}
	if u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.RawFragment != "" {
		return true
	}
	if p := u.EscapedPath(); p != "" && p != "/" {
		return true
	}
	_, host, err := siteParts(rawURL)
	if err != nil {
		return false // no host: nothing leaves for a site
	}
	sub, _ := strings.CutSuffix(host, registrable(host))
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

// maxNesting bounds how deep Sends looks for URLs inside URLs, and
// maxEmbedded how many it looks at: past that, a URL counts as sending, so
// that no URL is both costly to look through and let go.
const (
	maxNesting  = 4
	maxEmbedded = 64
)

func (w WriteSet) sends(rawURL string, depth int, budget *int) (string, bool) {
	if s, err := Site(rawURL); err == nil {
		if !slices.Contains(w.sites, s) && CarriesData(rawURL) {
			return s, true
		}
	} else if u, err := url.Parse(strings.TrimSpace(rawURL)); err == nil {
		switch scheme := strings.ToLower(u.Scheme); scheme {
		case "", "about", "file", "http", "https":
		default:
			return scheme + ":", true
		}
	}
	if depth >= maxNesting {
		return "", false
	}
	for _, e := range embeddedURLs(rawURL) {
		if *budget--; *budget < 0 {
			return "(more URLs inside the URL than are checked)", true
		}
		if s, ok := w.sends(e, depth+1, budget); ok {
			return s, true
		}
	}
	return "", false
}

// urlInText matches an absolute or scheme-relative URL inside text; a
// browser reads a backslash as a slash after an http(s) scheme.
var urlInText = regexp.MustCompile(`(?i)(?:[a-z][a-z0-9+.-]*:)?[/\\]{2}[^/\\?#\s&"'<>]+[^\s"'<>]*`)

// embeddedURLs returns the URLs written inside rawURL (not rawURL itself),
// looking through each layer of percent-encoding; Sends looks inside each
// one found in turn.
func embeddedURLs(rawURL string) []string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Host == "" {
		return nil // it reaches no site to pass a URL on to
	}
	var out []string
	_, text, _ := strings.Cut(rawURL, "//") // past rawURL's own authority
	for range maxNesting {
		for _, m := range urlInText.FindAllString(text, -1) {
			m = strings.ReplaceAll(m, `\`, "/")
			if strings.HasPrefix(m, "//") {
				m = "https:" + m
			}
			out = append(out, m)
		}
		dec := unescape(text)
		if dec == text {
			break
		}
		text = dec
	}
	return out
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
		if u, perr := url.Parse(strings.TrimSpace(a.Where.URL)); perr == nil && u.Scheme != "" {
			return strings.ToLower(u.Scheme) + ":", true
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
