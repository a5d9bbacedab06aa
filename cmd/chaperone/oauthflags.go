package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/netip"

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
// listening at addr; nil without --oauth-issuer.
func (o *oauthFlags) validator(ctx context.Context, log *slog.Logger, addr net.Addr) (*oauth.Validator, error) {
	if o.issuer == "" {
		return nil, nil
	}
	resource := o.resourceURL
	if resource == "" {
		ap, err := netip.ParseAddrPort(addr.String())
		if err != nil || ap.Addr().IsUnspecified() {
			return nil, fmt.Errorf("--oauth-issuer: listening on %s, clients reach this server by another name: set --resource-url to the URL of its /mcp", addr)
		}
		resource = "http://" + addr.String() + "/mcp"
	}
	v, err := oauth.New(ctx, oauth.Options{Issuer: o.issuer, Audience: resource, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--oauth-issuer: %w", err)
	}
	log.Info("accepting OAuth access tokens", "issuer", v.Issuer(), "resource", v.Audience(), "jwks_uri", v.Metadata().JWKSURI)
	return v, nil
}
