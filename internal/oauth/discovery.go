// Package oauth is the resource server's side of OAuth 2.1 as the MCP
// authorization specification uses it: the authorization server's metadata
// found by discovery (RFC 8414, or OpenID Connect Discovery), its signing
// keys (JWKS) kept and refreshed, and JWT access tokens (RFC 9068) accepted
// only when their signature, lifetime, issuer and audience (RFC 8707) hold.
// It speaks plain HTTP and JOSE (github.com/go-jose/go-jose/v4, which does
// the cryptography); it knows nothing of MCP.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// maxDocument bounds a metadata document or a key set read from the issuer.
const maxDocument = 1 << 20

// Metadata is what this package reads of an authorization server's
// metadata (RFC 8414 §2).
type Metadata struct {
	Issuer                string   `json:"issuer"`
	JWKSURI               string   `json:"jwks_uri"`
	AuthorizationEndpoint string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint         string   `json:"token_endpoint,omitempty"`
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
}

// discoveryURLs lists where the metadata of issuer may be, in the order
// the MCP authorization specification tries them: RFC 8414's well-known
// URI inserted before the issuer's path, then OpenID Connect's inserted,
// then OpenID Connect's appended to the path.
func discoveryURLs(issuer *url.URL) []string {
	origin := issuer.Scheme + "://" + issuer.Host
	path := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if path == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}
}

// CheckURL refuses a URL of the issuer's that is not https, except on a
// loopback host: tokens and keys must not travel where anyone on the path
// could replace them.
func CheckURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", what, raw, err)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s %q: want an absolute http(s) URL without credentials, query or fragment", what, raw)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("%s %q: use https (plain http only on a loopback host)", what, raw)
		}
	default:
		return nil, fmt.Errorf("%s %q: want an http(s) URL", what, raw)
	}
	return u, nil
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Discover fetches the metadata of the authorization server issuer, trying
// each well-known location in turn, and checks that the document names
// issuer as its own, exactly (RFC 8414 §3.3: a document for another issuer
// is how mix-up attacks start).
func Discover(ctx context.Context, client *http.Client, issuer string) (Metadata, error) {
	u, err := CheckURL("issuer", issuer)
	if err != nil {
		return Metadata{}, err
	}
	var errs []error
	for _, where := range discoveryURLs(u) {
		var m Metadata
		err := getJSON(ctx, client, where, &m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m.Issuer != issuer {
			return Metadata{}, fmt.Errorf("discover %s: the metadata at %s names the issuer %q; give that exact URL", issuer, where, m.Issuer)
		}
		if m.JWKSURI == "" {
			return Metadata{}, fmt.Errorf("discover %s: the metadata at %s has no jwks_uri", issuer, where)
		}
		if _, err := CheckURL("jwks_uri", m.JWKSURI); err != nil {
			return Metadata{}, fmt.Errorf("discover %s: %w", issuer, err)
		}
		return m, nil
	}
	return Metadata{}, fmt.Errorf("discover %s: %w", issuer, errors.Join(errs...))
}

// errNotFound marks a well-known location the server does not serve.
var errNotFound = errors.New("not found")

// getJSON reads the JSON document at where into v, bounded in size.
// Redirects are not followed: a metadata document or key set is where the
// issuer says it is.
func getJSON(ctx context.Context, client *http.Client, where string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return fmt.Errorf("get %s: %w", where, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("get %s: %w", where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocument))
		if resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("get %s: %w", where, errNotFound)
		}
		return fmt.Errorf("get %s: %s", where, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return fmt.Errorf("get %s: %w", where, err)
	}
	if len(body) > maxDocument {
		return fmt.Errorf("get %s: larger than %d bytes", where, maxDocument)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("get %s: %w", where, err)
	}
	return nil
}

// NewHTTPClient returns the client this package fetches with when none is
// given: bounded in time, never following a redirect.
func NewHTTPClient() *http.Client {
	return &http.Client{
		Timeout: defaultFetchTimeout,
		Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: defaultFetchTimeout}).DialContext,
			TLSHandshakeTimeout: defaultFetchTimeout,
			MaxIdleConns:        4,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
