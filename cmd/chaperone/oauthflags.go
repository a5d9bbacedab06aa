package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"

	"github.com/chaperone-mcp/chaperone/internal/oauth"
)

// oauthFlags are the flags of OAuth: the authorization server whose access
// tokens the HTTP transports accept, and the resource identifier those
// tokens must be issued for.
type oauthFlags struct {
	issuer      string
	resourceURL string
}

// addOAuthFlags defines the OAuth flags on fs.
func addOAuthFlags(fs *flag.FlagSet) *oauthFlags {
	o := &oauthFlags{}
	fs.StringVar(&o.issuer, "oauth-issuer", "", "accept over HTTP the JWT access tokens of the OAuth authorization server `URL` (its issuer, found by RFC 8414 or OpenID discovery), beside any --token;\nthe token's sub names the client, its scopes (chaperone:read, chaperone:act, chaperone:caps) bound the tools")
	fs.StringVar(&o.resourceURL, "resource-url", "", "this server's resource identifier, the `URL` clients reach /mcp at, which access tokens must name as their audience (default http://<--http address>/mcp; set it behind a load balancer)")
	return o
}

// check refuses the flags before anything starts: a resource URL without
// an issuer, or either of them malformed.
func (o *oauthFlags) check() error {
	if o.issuer == "" {
		if o.resourceURL != "" {
			return fmt.Errorf("--resource-url names the audience of OAuth access tokens: give --oauth-issuer too")
		}
		return nil
	}
	if _, err := oauth.CheckURL("--oauth-issuer", o.issuer); err != nil {
		return err
	}
	if o.resourceURL != "" {
		if _, err := oauth.CheckURL("--resource-url", o.resourceURL); err != nil {
			return err
		}
	}
	return nil
}

// validator discovers the issuer and fetches its keys, for the server
// configured to listen at configured (host:port) and listening at ln; nil
// without --oauth-issuer. The default resource names the host as
// configured (localhost stays localhost: clients compare the resource's
// origin with the URL they were given) and the port as listened on.
func (o *oauthFlags) validator(ctx context.Context, log *slog.Logger, configured string, ln net.Addr) (*oauth.Validator, error) {
	if o.issuer == "" {
		return nil, nil
	}
	resource := o.resourceURL
	if resource == "" {
		host, _, err := net.SplitHostPort(configured)
		if err != nil {
			return nil, fmt.Errorf("--http %s: %w", configured, err)
		}
		_, port, err := net.SplitHostPort(ln.String())
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", ln, err)
		}
		if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && ip.IsUnspecified() {
			return nil, fmt.Errorf("--oauth-issuer: listening on %s, clients reach this server by another name: set --resource-url to the URL of its /mcp", configured)
		}
		resource = "http://" + net.JoinHostPort(strings.Trim(host, "[]"), port) + "/mcp"
	}
	v, err := oauth.New(ctx, oauth.Options{Issuer: o.issuer, Audience: resource, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--oauth-issuer: %w", err)
	}
	log.Info("accepting OAuth access tokens", "issuer", v.Issuer(), "resource", v.Audience(), "jwks_uri", v.Metadata().JWKSURI)
	return v, nil
}
