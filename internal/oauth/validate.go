package oauth

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The defaults of Options.
const (
	defaultLeeway          = 30 * time.Second
	defaultRefreshInterval = 10 * time.Second
	defaultMaxAge          = 15 * time.Minute
	defaultFetchTimeout    = 10 * time.Second
)

// maxToken bounds the length of an access token this package parses.
const maxToken = 16 << 10

// maxSubject bounds a token's sub, which names a client in logs.
const maxSubject = 256

// algorithms are the signature algorithms a token may name: public-key
// ones only. "none" and the HMAC algorithms are not among them, so a token
// that claims HS256 and is "signed" with the issuer's public key as a
// shared secret (algorithm confusion) is refused as it is parsed.
var algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// Options configure a Validator.
type Options struct {
	// Issuer is the authorization server's issuer identifier, exactly as
	// its metadata names it.
	Issuer string
	// Audience is this resource server's identifier (RFC 8707): a token is
	// accepted only when its aud holds it.
	Audience string
	// HTTPClient fetches the metadata and keys; nil means NewHTTPClient().
	HTTPClient *http.Client
	// Leeway is the clock difference allowed on exp, nbf and iat; zero
	// means 30 s.
	Leeway time.Duration
	// RefreshInterval is the least time between two fetches of the key set
	// (a kid the set lacks asks for one); zero means 10 s.
	RefreshInterval time.Duration
	// MaxAge is how long fetched keys are used before they are fetched
	// again (so a key the issuer withdrew stops working); zero means 15
	// minutes.
	MaxAge time.Duration
	// Logger receives the validator's log; nil discards it.
	Logger *slog.Logger

	// now and after replace the clock in tests.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// Validator accepts the JWT access tokens an issuer signed for one
// audience. It is safe for concurrent use.
type Validator struct {
	issuer   string
	audience string
	meta     Metadata
	keys     *keySet
	leeway   time.Duration
	now      func() time.Time
}

// Token is what an accepted access token says.
type Token struct {
	// Subject is the token's sub: whom it was issued for.
	Subject string
	// ClientID is the OAuth client it was issued to, when it says.
	ClientID string
	// Scopes are the token's scopes (its scope claim, split on spaces).
	Scopes []string
	// Expiry is when it expires.
	Expiry time.Time
}

// HasScope reports whether t carries scope.
func (t Token) HasScope(scope string) bool {
	for _, s := range t.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// TokenError is why an access token was refused. Its Reason is short,
// fixed wording, fit for a WWW-Authenticate error_description: it never
// repeats what the token said.
type TokenError struct {
	Reason string
	Err    error
}

func (e *TokenError) Error() string {
	if e.Err != nil {
		return "access token refused: " + e.Reason + ": " + e.Err.Error()
	}
	return "access token refused: " + e.Reason
}

func (e *TokenError) Unwrap() error { return e.Err }

func refuse(reason string, err error) error { return &TokenError{Reason: reason, Err: err} }

// New discovers the issuer's metadata and fetches its keys, so that a
// wrong issuer stops the server as it starts rather than refusing every
// client later.
func New(ctx context.Context, o Options) (*Validator, error) {
	if o.Issuer == "" {
		return nil, errors.New("oauth: no issuer")
	}
	if _, err := CheckURL("resource", o.Audience); err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	client := o.HTTPClient
	if client == nil {
		client = NewHTTPClient()
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := o.now
	if now == nil {
		now = time.Now
	}
	after := o.after
	if after == nil {
		after = time.After
	}
	meta, err := Discover(ctx, client, o.Issuer)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	keys := &keySet{
		uri:      meta.JWKSURI,
		client:   client,
		log:      log,
		interval: cmp.Or(o.RefreshInterval, defaultRefreshInterval),
		maxAge:   cmp.Or(o.MaxAge, defaultMaxAge),
		now:      now,
		after:    after,
	}
	if err := keys.load(ctx); err != nil {
		return nil, fmt.Errorf("oauth: issuer %s: %w", o.Issuer, err)
	}
	return &Validator{
		issuer:   o.Issuer,
		audience: o.Audience,
		meta:     meta,
		keys:     keys,
		leeway:   cmp.Or(o.Leeway, defaultLeeway),
		now:      now,
	}, nil
}

// Issuer returns the issuer identifier tokens must carry.
func (v *Validator) Issuer() string { return v.issuer }

// Audience returns the resource identifier tokens must be issued for.
func (v *Validator) Audience() string { return v.audience }

// Metadata returns the issuer's metadata as discovered.
func (v *Validator) Metadata() Metadata { return v.meta }

// claims are the claims of an access token this package reads (RFC 9068
// §2.2).
type claims struct {
	jwt.Claims
	Scope string `json:"scope"`
	// SCP is where some issuers (Okta, Microsoft Entra) put the scopes
	// instead: a string or an array.
	SCP      scopeList `json:"scp"`
	ClientID string    `json:"client_id"`
	// Cnf binds a token to a key its holder must prove (DPoP, mTLS); a
	// bearer resource server cannot check that proof, so such a token is
	// refused rather than accepted from whoever holds it.
	Cnf map[string]any `json:"cnf"`
}

// Validate checks the access token raw and returns what it says: a JWS
// signed with one of the issuer's keys by a public-key algorithm, of a type
// that may be an access token, issued by the issuer for this audience, with
// an expiry, within its lifetime, and naming a subject. A kid the key set
// lacks makes it look at the issuer's keys again (rate-limited), which
// ctx bounds.
func (v *Validator) Validate(ctx context.Context, raw string) (Token, error) {
	if len(raw) > maxToken {
		return Token{}, refuse("token too long", nil)
	}
	tok, err := jwt.ParseSigned(raw, algorithms)
	if err != nil {
		return Token{}, refuse("not a JWT signed with a public-key algorithm", err)
	}
	if len(tok.Headers) != 1 {
		return Token{}, refuse("not a single signature", nil)
	}
	h := tok.Headers[0]
	if typ, ok := h.ExtraHeaders[jose.HeaderType].(string); ok && !accessTokenType(typ) {
		return Token{}, refuse("not an access token (typ)", nil)
	}
	if len(h.KeyID) > maxKIDLength {
		// No issuer's key has such a name (the key set skips them): not
		// worth a fetch.
		return Token{}, refuse("unknown signing key", nil)
	}
	keys, err := v.keys.lookup(ctx, h.KeyID)
	if err != nil {
		if errors.Is(err, errUnknownKey) {
			return Token{}, refuse("unknown signing key", nil)
		}
		return Token{}, refuse("issuer's keys unavailable", err)
	}
	var signer *jose.JSONWebKey
	for i, key := range keys {
		if key.Algorithm != "" && key.Algorithm != h.Algorithm {
			continue // a key is used with its own algorithm only
		}
		if tok.Claims(key.Key) == nil {
			signer = &keys[i]
			break
		}
	}
	if signer == nil {
		return Token{}, refuse("bad signature", nil)
	}
	var c claims
	if err := tok.Claims(signer.Key, &c); err != nil {
		return Token{}, refuse("malformed claims", err)
	}
	if c.Expiry == nil {
		return Token{}, refuse("no expiry", nil)
	}
	err = c.ValidateWithLeeway(jwt.Expected{
		Issuer:      v.issuer,
		AnyAudience: jwt.Audience{v.audience},
		Time:        v.now(),
	}, v.leeway)
	switch {
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return Token{}, refuse("wrong issuer", nil)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return Token{}, refuse("issued for another resource", nil)
	case errors.Is(err, jwt.ErrExpired):
		return Token{}, refuse("expired", nil)
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return Token{}, refuse("not valid yet", nil)
	case err != nil:
		return Token{}, refuse("claims", err)
	}
	if len(c.Cnf) > 0 {
		return Token{}, refuse("bound to a key (cnf): not a bearer token", nil)
	}
	if !usableSubject(c.Subject) {
		return Token{}, refuse("no usable sub", nil)
	}
	scopes := strings.Fields(c.Scope)
	if c.Scope == "" {
		scopes = c.SCP
	}
	return Token{
		Subject:  c.Subject,
		ClientID: c.ClientID,
		Scopes:   scopes,
		Expiry:   c.Expiry.Time(),
	}, nil
}

// scopeList is a scope claim given as one space-separated string or as
// an array of strings.
type scopeList []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *scopeList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = strings.Fields(s)
		return nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("scp: want a string or an array of strings")
	}
	*l = a
	return nil
}

// accessTokenType reports whether a JWT's typ header allows it to be an
// access token: RFC 9068's at+jwt, or the generic JWT many issuers still
// use. Any other type (an ID token, a logout token, a DPoP proof) was made
// for something else.
func accessTokenType(typ string) bool {
	t := strings.ToLower(strings.TrimPrefix(strings.ToLower(typ), "application/"))
	return t == "at+jwt" || t == "jwt"
}

// usableSubject reports whether sub can name a client: present, not too
// long, valid UTF-8 without control characters (it is written to logs).
func usableSubject(sub string) bool {
	if sub == "" || len(sub) > maxSubject || !utf8.ValidString(sub) {
		return false
	}
	for _, r := range sub {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}
