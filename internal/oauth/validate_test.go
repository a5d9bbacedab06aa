package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// issuer is an authorization server in a test: its metadata and its key
// set on httptest, keys made in the test.
type issuer struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	keys    []jose.JSONWebKey // public, as published
	fetches int               // of the key set
	path    string            // the issuer's path, if any
	oidc    bool              // serve only OpenID discovery
	claimed string            // the issuer the metadata names, if not its own
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{t: t}
	is.srv = httptest.NewServer(http.HandlerFunc(is.serve))
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuer) url() string { return is.srv.URL + is.path }

func (is *issuer) serve(w http.ResponseWriter, r *http.Request) {
	is.mu.Lock()
	defer is.mu.Unlock()
	meta := Metadata{Issuer: is.url(), JWKSURI: is.srv.URL + "/jwks"}
	if is.claimed != "" {
		meta.Issuer = is.claimed
	}
	switch {
	case r.URL.Path == "/jwks":
		is.fetches++
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: is.keys})
	case !is.oidc && r.URL.Path == "/.well-known/oauth-authorization-server"+is.path:
		json.NewEncoder(w).Encode(meta)
	case is.oidc && r.URL.Path == is.path+"/.well-known/openid-configuration":
		json.NewEncoder(w).Encode(meta)
	default:
		http.NotFound(w, r)
	}
}

// key is a signing key of a test: its private half signs, its public half
// may be published.
type key struct {
	priv jose.JSONWebKey
}

func ecKey(t *testing.T, kid string) key {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key{jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: string(jose.ES256), Use: "sig"}}
}

func rsaKey(t *testing.T, kid string) key {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key{jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: string(jose.RS256), Use: "sig"}}
}

func (k key) public() jose.JSONWebKey { return k.priv.Public() }

func (is *issuer) publish(ks ...key) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = is.keys[:0]
	for _, k := range ks {
		is.keys = append(is.keys, k.public())
	}
}

func (is *issuer) keyFetches() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.fetches
}

// sign signs claims with k under the typ header typ ("" for none).
func sign(t *testing.T, k key, typ string, claims any) string {
	opts := (&jose.SignerOptions{}).WithHeader("kid", k.priv.KeyID)
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(k.priv.Algorithm), Key: k.priv.Key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

const audience = "http://127.0.0.1:8931/mcp"

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeClock is the validator's clock in a test: time moves only when the
// test says, and each wait the key set asks for is recorded and released
// by the test.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	waits []chan time.Time
	asked []time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) after(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waits = append(c.waits, ch)
	c.asked = append(c.asked, d)
	return ch
}

// advance moves the clock by d and releases every wait it ends.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	for _, ch := range c.waits {
		ch <- c.t
	}
	c.waits = nil
}

func (c *fakeClock) scheduled() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.asked...)
}

func newValidator(t *testing.T, is *issuer, clock *fakeClock) *Validator {
	t.Helper()
	v, err := New(context.Background(), Options{
		Issuer: is.url(), Audience: audience, HTTPClient: is.srv.Client(),
		RefreshInterval: time.Minute, now: clock.now, after: clock.after,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return v
}

type tokenClaims struct {
	Iss      string `json:"iss,omitempty"`
	Sub      string `json:"sub,omitempty"`
	Aud      any    `json:"aud,omitempty"`
	Exp      int64  `json:"exp,omitempty"`
	Nbf      int64  `json:"nbf,omitempty"`
	Iat      int64  `json:"iat,omitempty"`
	Scope    string `json:"scope,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	Cnf      any    `json:"cnf,omitempty"`
	SCP      any    `json:"scp,omitempty"`
}

// Each kind of token an attacker or a misconfigured issuer gives is
// refused for its reason; a good one is accepted with what it says.
func TestValidate(t *testing.T) {
	is := newIssuer(t)
	ec, rs := ecKey(t, "ec1"), rsaKey(t, "rs1")
	is.publish(ec, rs)
	clock := &fakeClock{t: epoch}
	v := newValidator(t, is, clock)

	now := epoch.Unix()
	good := func() tokenClaims {
		return tokenClaims{Iss: is.url(), Sub: "alice", Aud: audience, Exp: now + 300, Iat: now - 10,
			Scope: "chaperone:read chaperone:act", ClientID: "c1"}
	}
	with := func(f func(*tokenClaims)) tokenClaims { c := good(); f(&c); return c }

	// The RSA public key, as an HMAC secret: algorithm confusion.
	pubDER, err := x509.MarshalPKIXPublicKey(rs.public().Key)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	hmacSigned := func(secret []byte) string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithHeader("kid", "rs1").WithType("at+jwt"))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := jwt.Signed(s).Claims(good()).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	b64 := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	unsigned := b64(map[string]string{"alg": "none", "kid": "ec1", "typ": "at+jwt"}) + "." + b64(good()) + "."
	unsignedCase := b64(map[string]string{"alg": "None", "kid": "ec1"}) + "." + b64(good()) + "."
	// A good token's header and signature around another payload.
	goodTok := sign(t, ec, "at+jwt", good())
	parts := strings.Split(goodTok, ".")
	swapped := parts[0] + "." + b64(with(func(c *tokenClaims) { c.Sub = "mallory" })) + "." + parts[2]
	elsewhere := ecKey(t, "ec1") // same kid, not the issuer's key
	// A token that carries its own key (CVE-2018-0114's trick) or points
	// at a key set of its own: the key is the issuer's, always.
	embedded := func(extra map[string]any) string {
		opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("at+jwt")
		for k, v := range extra {
			opts = opts.WithHeader(jose.HeaderKey(k), v)
		}
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: elsewhere.priv.Key}, opts)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := jwt.Signed(s).Claims(good()).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}

	for _, tc := range []struct {
		name   string
		token  string
		reason string // "" for accepted
	}{
		{"ES256 at+jwt", goodTok, ""},
		{"RS256 at+jwt", sign(t, rs, "at+jwt", good()), ""},
		{"typ application/at+jwt", sign(t, ec, "application/at+jwt", good()), ""},
		{"typ JWT", sign(t, ec, "JWT", good()), ""},
		{"no typ", sign(t, ec, "", good()), ""},
		{"aud array with us", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = []string{"https://other.example/mcp", audience} })), ""},
		{"expired within the leeway", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Exp = now - 20 })), ""},
		{"scopes in scp, an array", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Scope, c.SCP = "", []string{"chaperone:read", "chaperone:act"} })), ""},
		{"scopes in scp, a string", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Scope, c.SCP = "", "chaperone:read chaperone:act" })), ""},
		{"scp a number", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Scope, c.SCP = "", 7 })), "malformed claims"},
		{"alg none", unsigned, "not a JWT signed with a public-key algorithm"},
		{"alg None", unsignedCase, "not a JWT signed with a public-key algorithm"},
		{"HS256 with the public key (PEM) as secret", hmacSigned(pubPEM), "not a JWT signed with a public-key algorithm"},
		{"HS256 with the public key (DER) as secret", hmacSigned(pubDER), "not a JWT signed with a public-key algorithm"},
		{"payload swapped under a good signature", swapped, "bad signature"},
		{"key from elsewhere, the issuer's kid", sign(t, elsewhere, "at+jwt", good()), "bad signature"},
		{"ES256 key named as RS256 key's kid", sign(t, key{jose.JSONWebKey{Key: elsewhere.priv.Key, KeyID: "rs1", Algorithm: "ES256"}}, "at+jwt", good()), "bad signature"},
		{"its own key embedded, the issuer's kid", embedded(map[string]any{"kid": "ec1"}), "bad signature"},
		{"a jku of its own, the issuer's kid", embedded(map[string]any{"kid": "ec1", "jku": "http://127.0.0.1:1/jwks"}), "bad signature"},
		{"wrong iss", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Iss = "https://evil.example" })), "wrong issuer"},
		{"iss with a trailing slash", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Iss = is.url() + "/" })), "wrong issuer"},
		{"no iss", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Iss = "" })), "wrong issuer"},
		{"aud another resource", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = "http://127.0.0.1:9999/mcp" })), "issued for another resource"},
		{"aud array without us", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = []string{"https://a.example/mcp", "https://b.example/mcp"} })), "issued for another resource"},
		{"aud with a trailing slash", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = audience + "/" })), "issued for another resource"},
		{"aud with the scheme in capitals", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = "HTTP" + strings.TrimPrefix(audience, "http") })), "issued for another resource"},
		{"aud with the path in capitals", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = strings.TrimSuffix(audience, "/mcp") + "/MCP" })), "issued for another resource"},
		{"aud with a dot segment", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = strings.TrimSuffix(audience, "/mcp") + "/./mcp" })), "issued for another resource"},
		{"aud with a fragment", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = audience + "#x" })), "issued for another resource"},
		{"aud the origin only", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = "http://127.0.0.1:8931" })), "issued for another resource"},
		{"no aud", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Aud = nil })), "issued for another resource"},
		{"expired", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Exp = now - 3600 })), "expired"},
		{"no exp", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Exp = 0 })), "no expiry"},
		{"nbf in the future", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Nbf = now + 600 })), "not valid yet"},
		{"iat in the future", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Iat = now + 600 })), "not valid yet"},
		{"an ID token", sign(t, ec, "id_token+jwt", good()), "not an access token (typ)"},
		{"a DPoP proof", sign(t, ec, "dpop+jwt", good()), "not an access token (typ)"},
		{"DPoP-bound", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Cnf = map[string]string{"jkt": "abc"} })), "bound to a key (cnf): not a bearer token"},
		{"no sub", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Sub = "" })), "no usable sub"},
		{"sub with a newline", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Sub = "alice\nlevel=ERROR" })), "no usable sub"},
		{"sub with a bidi override", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Sub = "alice\u202egnp" })), "no usable sub"},
		{"sub too long", sign(t, ec, "at+jwt", with(func(c *tokenClaims) { c.Sub = strings.Repeat("a", 300) })), "no usable sub"},
		{"kid too long to be the issuer's", sign(t, key{jose.JSONWebKey{Key: ec.priv.Key, KeyID: strings.Repeat("k", maxKIDLength+1), Algorithm: "ES256"}}, "at+jwt", good()), "unknown signing key"},
		{"garbage", "not.a.token", "not a JWT signed with a public-key algorithm"},
		{"too long", strings.Repeat("a", maxToken+1), "token too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := v.Validate(context.Background(), tc.token)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if tok.Subject != "alice" || !tok.HasScope("chaperone:act") || tok.HasScope("chaperone:caps") || tok.ClientID != "c1" {
					t.Errorf("token = %+v", tok)
				}
				return
			}
			var te *TokenError
			if !errors.As(err, &te) {
				t.Fatalf("accepted or untyped error: %v (%+v)", err, tok)
			}
			if te.Reason != tc.reason {
				t.Errorf("reason = %q (%v), want %q", te.Reason, err, tc.reason)
			}
		})
	}
	if n := is.keyFetches(); n != 1 {
		t.Errorf("the key set was fetched %d times; every kid above was known, so once", n)
	}
}

// A kid the key set lacks makes the validator look again: a key the issuer
// added is then accepted, a key it withdrew refused, without a restart.
func TestUnknownKidRefreshes(t *testing.T) {
	is := newIssuer(t)
	old, rotated := ecKey(t, "k1"), ecKey(t, "k2")
	is.publish(old)
	clock := &fakeClock{t: epoch}
	v := newValidator(t, is, clock)
	claims := tokenClaims{Iss: is.url(), Sub: "alice", Aud: audience, Exp: epoch.Unix() + 3600}
	if _, err := v.Validate(context.Background(), sign(t, old, "at+jwt", claims)); err != nil {
		t.Fatalf("old key before the rotation: %v", err)
	}

	// The issuer rotates: the new key only.
	is.publish(rotated)
	clock.advance(2 * time.Minute) // past the refresh interval
	if _, err := v.Validate(context.Background(), sign(t, rotated, "at+jwt", claims)); err != nil {
		t.Fatalf("new key after the rotation: %v", err)
	}
	if n := is.keyFetches(); n != 2 {
		t.Errorf("key set fetched %d times, want 2 (start, the new kid)", n)
	}
	// The withdrawn key is gone with the refresh.
	done := make(chan error, 1)
	go func() {
		_, err := v.Validate(context.Background(), sign(t, old, "at+jwt", claims))
		done <- err
	}()
	waitScheduled(t, clock, 1)
	clock.advance(time.Minute)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "unknown signing key") {
		t.Errorf("withdrawn key: %v, want unknown signing key", err)
	}
}

// waitScheduled waits until the key set has asked the clock for n waits:
// a fetch is due and a request is waiting for it.
func waitScheduled(t *testing.T, clock *fakeClock, n int) {
	t.Helper()
	for range 60000 {
		if len(clock.scheduled()) >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("no fetch was scheduled")
}

// waitWaiting waits until n requests wait for the key set's fetch.
func waitWaiting(t *testing.T, v *Validator, n int) {
	t.Helper()
	for range 60000 {
		v.keys.mu.Lock()
		w := v.keys.waiting
		v.keys.mu.Unlock()
		if w >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("the requests did not all wait for the fetch")
}

// A flood of tokens with made-up kids costs the issuer one fetch per
// refresh interval, not one per token; the requests that arrive while a
// fetch is due share it.
func TestUnknownKidRefreshIsRateLimited(t *testing.T) {
	is := newIssuer(t)
	k := ecKey(t, "k1")
	is.publish(k)
	clock := &fakeClock{t: epoch}
	v := newValidator(t, is, clock)
	claims := tokenClaims{Iss: is.url(), Sub: "mallory", Aud: audience, Exp: epoch.Unix() + 3600}

	// 200 forged kids at once, within the interval of the first fetch.
	const n = 200
	errs := make(chan error, n)
	for i := range n {
		forged := ecKey(t, "forged-"+string(rune('a'+i%26))+strings.Repeat("x", i))
		go func() {
			_, err := v.Validate(context.Background(), sign(t, forged, "at+jwt", claims))
			errs <- err
		}()
	}
	waitScheduled(t, clock, 1)
	waitWaiting(t, v, n)
	// Cancelled requests do not start fetches of their own either.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 50 {
		_, err := v.Validate(ctx, sign(t, ecKey(t, "cancelled-"+strings.Repeat("y", i)), "at+jwt", claims))
		if err == nil {
			t.Fatal("a forged kid was accepted")
		}
	}
	if got := clock.scheduled(); len(got) != 1 || got[0] != time.Minute {
		t.Fatalf("fetches scheduled = %v, want one, a minute after the first", got)
	}
	clock.advance(time.Minute)
	for range n {
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "unknown signing key") {
			t.Fatalf("forged kid: %v, want unknown signing key", err)
		}
	}
	if got := is.keyFetches(); got != 2 {
		t.Errorf("the issuer served its key set %d times for %d forged kids, want 2 (start, one refresh)", got, n+50)
	}
	// The real key still works, with no further fetch.
	if _, err := v.Validate(context.Background(), sign(t, k, "at+jwt", claims)); err != nil {
		t.Errorf("the issuer's key after the flood: %v", err)
	}
	if got := is.keyFetches(); got != 2 {
		t.Errorf("key set fetches = %d after a known kid, want 2", got)
	}
}

// Discovery finds the metadata where RFC 8414 and OpenID Connect put it,
// and refuses a document that names another issuer, an issuer over plain
// http beyond loopback, and a key set that verifies nothing.
func TestDiscovery(t *testing.T) {
	t.Run("path issuer, RFC 8414", func(t *testing.T) {
		is := newIssuer(t)
		is.path = "/tenant1"
		is.publish(ecKey(t, "k"))
		if _, err := New(context.Background(), Options{Issuer: is.url(), Audience: audience, HTTPClient: is.srv.Client()}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("OpenID only, path issuer", func(t *testing.T) {
		is := newIssuer(t)
		is.path, is.oidc = "/realms/x", true
		is.publish(ecKey(t, "k"))
		if _, err := New(context.Background(), Options{Issuer: is.url(), Audience: audience, HTTPClient: is.srv.Client()}); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct {
		name, want string
		setup      func(*issuer) string // returns the issuer to configure
	}{
		{"metadata names another issuer", "names the issuer", func(is *issuer) string {
			is.claimed = "https://evil.example"
			return is.url()
		}},
		{"configured with a trailing slash", "names the issuer", func(is *issuer) string { return is.url() + "/" }},
		{"plain http beyond loopback", "use https", func(is *issuer) string { return "http://as.example" }},
		{"not http", "want an http(s) URL", func(is *issuer) string { return "ftp://127.0.0.1/" }},
		{"a symmetric key only", "none can verify", func(is *issuer) string {
			is.keys = []jose.JSONWebKey{{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: "hs", Algorithm: "HS256"}}
			return is.url()
		}},
		{"an RSA key of 1024 bits", "none can verify", func(is *issuer) string {
			k, err := rsa.GenerateKey(rand.Reader, 1024)
			if err != nil {
				t.Fatal(err)
			}
			is.keys = []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "small", Algorithm: "RS256"}}
			return is.url()
		}},
		{"an encryption key only", "none can verify", func(is *issuer) string {
			k := ecKey(t, "enc").public()
			k.Use = "enc"
			is.keys = []jose.JSONWebKey{k}
			return is.url()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := newIssuer(t)
			is.publish(ecKey(t, "k"))
			iss := tc.setup(is)
			_, err := New(context.Background(), Options{Issuer: iss, Audience: audience, HTTPClient: is.srv.Client()})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
