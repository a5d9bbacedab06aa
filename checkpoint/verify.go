package checkpoint

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Verify checks a claimed success on page, a fresh capture of the whole
// page. It is acknowledged only when the page is on an origin the profile
// allows (if it lists any), no failure indicator holds, and a success
// indicator does; the message names the rule that decided. With no profile,
// or one without success indicators, nothing can be checked: acknowledged,
// and the message says so.
func (g *Gate) Verify(page *snapshot.Snapshot) (ok bool, message string) {
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
	switch f := g.Failures(page); len(f) {
	case 0:
	case 1:
		return false, fmt.Sprintf("Not acknowledged: failure indicator %s holds%s.", f[0], where) + next
	default:
		return false, fmt.Sprintf("Not acknowledged: failure indicators %s hold%s.", strings.Join(f, "; "), where) + next
	}
	if len(g.profile.SuccessIndicators) == 0 {
		return true, fmt.Sprintf("Acknowledged, but not verified: profile %q has no success indicators, so nothing was checked on the page.", g.profile.Name)
	}
	for _, c := range g.profile.SuccessIndicators {
		if c.Match(page) {
			return true, fmt.Sprintf("Success verified on the page: %s.", c.Label())
		}
	}
	return false, fmt.Sprintf("Not acknowledged: no success indicator holds on the current page%s. Expected: %s.",
		where, describeAny(g.profile.SuccessIndicators)) + next
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

// Origin returns the origin of an absolute URL, normalised for comparison:
// scheme and host in lower case, and the port only when it is not the
// scheme's default ("HTTPS://Shop.example:443/x" is "https://shop.example").
func Origin(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("origin of %q: %w", rawURL, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("origin of %q: not an absolute URL", rawURL)
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// Failures lists the failure indicators that hold on s, by name or
// description.
func (g *Gate) Failures(s *snapshot.Snapshot) []string {
	if g.profile == nil {
		return nil
	}
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

// Evaluate evaluates every success and failure indicator on s.
func (g *Gate) Evaluate(s *snapshot.Snapshot) []Indicator {
	if g.profile == nil {
		return nil
	}
	var out []Indicator
	for _, c := range g.profile.SuccessIndicators {
		out = append(out, Indicator{Kind: "success", Rule: c.Label(), Holds: c.Match(s)})
	}
	for _, c := range g.profile.FailureIndicators {
		out = append(out, Indicator{Kind: "failure", Rule: c.Label(), Holds: c.Match(s)})
	}
	return out
}
