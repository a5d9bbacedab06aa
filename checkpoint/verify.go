package checkpoint

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/chaperone-mcp/chaperone/internal/weburl"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Evidence is what a verdict knows beyond the page itself.
type Evidence struct {
	// Typed is the text the agent typed this session (fills, keys, a
	// prompt's answer, the URLs it navigated to): a page that repeats it
	// proves nothing, and a URL the agent wrote is not where the task
	// led.
	Typed []string
	// Painted, when set, confirms on the page itself that a person sees
	// text a success indicator matched, once the capture's rules (what
	// Seen holds) let it through: needle, as the text nodes nodes draw it
	// (backend node ids of one document, as the capture numbers them),
	// outside any stretch that repeats one of skip, changes the pixels
	// where it is drawn (browser.Context.TextPainted). It is called only
	// for the occurrences a verdict would rely on, so its cost falls on
	// verdicts alone.
	Painted func(nodes []int64, needle string, skip []string) bool
}

// Verify checks a claimed success on page, a fresh judged capture of the
// whole page. It is acknowledged only when the page is on an origin the
// profile allows (if it lists any), no failure indicator holds, and a
// success indicator does; the message names the rule that decided.
//
// Failure indicators count wherever the page holds them, seen or not, and
// on a judged capture in all the text its layout draws, CSS generated
// content included (Seen.Drawn). On a snapshot of a judged capture
// (page.Seen set) a success indicator counts only on what a person would
// see (page.Seen, Element.Seen and SeenText), in a document whose origin
// the profile allows (with none listed, the page's own), never on an echo
// of the agent's input: text it typed (the Typed of ev, of which at most
// one is used) or that a page URL carries in its query, fragment or an
// escaped path segment (see urlEchoes), and, when ev has a Painted check,
// only where that check sees the text drawn. A URL test does not hold on a URL the agent typed either: it
// is not where the task led. A snapshot of any other capture tells nothing
// of what is seen, and its success indicators count as Match counts them:
// a verdict must be judged on a judged capture.
//
// With no profile, or one without success indicators, nothing can be
// checked: acknowledged, and the message says so.
func (g *Gate) Verify(page *snapshot.Snapshot, ev ...Evidence) (ok bool, message string) {
	if g.profile == nil {
		return true, "Acknowledged, but not verified: no profile is loaded, so nothing was checked on the page."
	}
	var where string
	if page != nil {
		where = fmt.Sprintf(" (page %q at %s)", OneLine(page.Page.Title), OneLine(page.Page.URL))
	}
	const next = " Continue the task, or call complete_task with status failed."
	if len(g.profile.AllowedOrigins) > 0 {
		var u string
		if page != nil {
			u = page.Page.URL
		}
		if origin, allowed := g.allowedOrigin(u); !allowed {
			return false, fmt.Sprintf("Not acknowledged: the page is on %s, which profile %q does not allow (allowed: %s)%s.",
				OneLine(origin), g.profile.Name, strings.Join(g.profile.AllowedOrigins, ", "), where) + next
		}
	}
	switch f := g.Failures(page, ev...); len(f) {
	case 0:
	case 1:
		return false, fmt.Sprintf("Not acknowledged: failure indicator %s holds%s.", f[0], where) + next
	default:
		return false, fmt.Sprintf("Not acknowledged: failure indicators %s hold%s.", strings.Join(f, "; "), where) + next
	}
	if len(g.profile.SuccessIndicators) == 0 {
		return true, fmt.Sprintf("Acknowledged, but not verified: profile %q has no success indicators, so nothing was checked on the page.", g.profile.Name)
	}
	j := g.judge(page, ev)
	for _, c := range g.profile.SuccessIndicators {
		if c.eval(page, j, j != nil) {
			return true, fmt.Sprintf("Success verified on the page: %s.", c.Label())
		}
	}
	var lenient string
	if slices.ContainsFunc(g.profile.SuccessIndicators, func(c Condition) bool { return c.Match(page) }) {
		lenient = " The page holds it only where no person sees it, in a frame of another origin, or as an echo of the agent's own input, which is no evidence."
	}
	return false, fmt.Sprintf("Not acknowledged: no success indicator holds on the current page%s. Expected: %s.%s",
		where, describeAny(g.profile.SuccessIndicators), lenient) + next
}

// judge returns how success indicators are matched on page: in documents
// of the origins the profile allows, or with none listed the page's own,
// and not on echoes of what the agent typed or put in a URL. It is nil for
// a page that is not of a judged capture.
func (g *Gate) judge(page *snapshot.Snapshot, evs []Evidence) *judge {
	if page == nil || page.Seen == nil {
		return nil
	}
	var ev Evidence
	if len(evs) > 0 {
		ev = evs[0]
	}
	top := page.Page.URL
	topOrigin, topErr := Origin(top)
	j := &judge{painted: ev.Painted, allowed: func(doc string) bool {
		if doc == "" {
			doc = top
		}
		if g.profile != nil && len(g.profile.AllowedOrigins) > 0 {
			_, ok := g.allowedOrigin(doc)
			return ok
		}
		o, err := Origin(doc)
		return err == nil && topErr == nil && o == topOrigin
	}}
	for _, t := range ev.Typed {
		if n := normalise(t); n != "" {
			j.echoes = append(j.echoes, n)
			j.typed = append(j.typed, strings.TrimSpace(t))
		}
	}
	urls := []string{top}
	for _, t := range page.Seen.Text {
		urls = append(urls, t.Document)
	}
	for _, e := range page.Elements {
		urls = append(urls, e.Document)
	}
	slices.Sort(urls)
	for _, u := range slices.Compact(urls) {
		j.echoes = append(j.echoes, urlEchoes(u)...)
	}
	return j
}

// urlEchoes returns what rawURL carries that an agent may have written,
// decoded and normalised: its query (whole, and each value), its fragment,
// and each path segment that needed escaping. A plain path segment
// ("/cancelled") is the site's own name for a page, not input, and so is
// left out.
func urlEchoes(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil || rawURL == "" {
		return nil
	}
	var out []string
	add := func(s string) {
		if n := normalise(s); n != "" {
			out = append(out, n)
		}
	}
	if q, err := url.QueryUnescape(u.RawQuery); err == nil {
		add(q)
	} else {
		add(u.RawQuery)
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			add(v)
		}
	}
	add(u.Fragment)
	for seg := range strings.SplitSeq(u.EscapedPath(), "/") {
		if strings.Contains(seg, "%") {
			if d, err := url.PathUnescape(seg); err == nil {
				add(d)
			}
		}
	}
	return out
}

// allowedOrigin returns the origin of rawURL and whether the profile allows
// it. Origins compare as scheme://host:port, lower case, default ports
// left out.
func (g *Gate) allowedOrigin(rawURL string) (origin string, ok bool) {
	origin, err := Origin(rawURL)
	if err != nil {
		return fmt.Sprintf("%q (no origin)", rawURL), false
	}
	for _, o := range g.profile.AllowedOrigins {
		if a, err := Origin(o); err == nil && a == origin {
			return origin, true
		}
	}
	return origin, false
}

// Origin returns the origin of an absolute URL as the browser reads it,
// normalised for comparison: scheme and host in lower case (an address in
// its dotted form, a name in ASCII), and the port only when it is not the
// scheme's default ("HTTPS://Shop.example:443/x" is "https://shop.example").
func Origin(rawURL string) (string, error) {
	u, err := weburl.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("origin of %q: %w", rawURL, err)
	}
	o := u.Origin()
	if o == "" {
		return "", fmt.Errorf("origin of %q: not an absolute URL", rawURL)
	}
	return o, nil
}

// Failures lists the failure indicators that hold on s, by name or
// description. A field's value counts as the page's text unless it is what
// the agent typed (the Typed of ev): a page that fills a read-only field
// with its failure shows a failure; the agent's own words are none.
func (g *Gate) Failures(s *snapshot.Snapshot, ev ...Evidence) []string {
	if g.profile == nil {
		return nil
	}
	s = withoutTyped(s, ev)
	var out []string
	for _, c := range g.profile.FailureIndicators {
		if c.Match(s) {
			out = append(out, c.Label())
		}
	}
	return out
}

// Indicator is one success or failure indicator evaluated on a snapshot,
// for the audit log.
type Indicator struct {
	// Kind is "success" or "failure".
	Kind string `json:"kind"`
	// Rule is the indicator's name or description.
	Rule string `json:"rule"`
	// Holds says whether it matched.
	Holds bool `json:"holds"`
}

// Evaluate evaluates every success and failure indicator on s, success
// indicators as Verify judges them with ev.
func (g *Gate) Evaluate(s *snapshot.Snapshot, ev ...Evidence) []Indicator {
	if g.profile == nil {
		return nil
	}
	j := g.judge(s, ev)
	var out []Indicator
	for _, c := range g.profile.SuccessIndicators {
		out = append(out, Indicator{Kind: "success", Rule: c.Label(), Holds: c.eval(s, j, j != nil)})
	}
	failing := withoutTyped(s, ev)
	for _, c := range g.profile.FailureIndicators {
		out = append(out, Indicator{Kind: "failure", Rule: c.Label(), Holds: c.Match(failing)})
	}
	return out
}

// withoutTyped returns s with the values of its fields that hold only what
// the agent typed (the Typed of the first of ev) left out, or s itself when
// there is none.
func withoutTyped(s *snapshot.Snapshot, ev []Evidence) *snapshot.Snapshot {
	if s == nil || len(ev) == 0 || len(ev[0].Typed) == 0 {
		return s
	}
	var typed []string
	for _, t := range ev[0].Typed {
		if n := normalise(t); n != "" {
			typed = append(typed, n)
		}
	}
	agents := func(v string) bool {
		n := normalise(v)
		return n != "" && slices.ContainsFunc(typed, func(t string) bool { return strings.Contains(t, n) })
	}
	if !slices.ContainsFunc(s.Elements, func(e snapshot.Element) bool { return e.Value != nil && agents(*e.Value) }) {
		return s
	}
	c := *s
	c.Elements = slices.Clone(s.Elements)
	for i, e := range c.Elements {
		if e.Value != nil && agents(*e.Value) {
			c.Elements[i].Value = nil
		}
	}
	return &c
}
