// Package oauthtest is an OAuth authorization server for tests of the
// resource server: its RFC 8414 metadata and its key set on httptest, keys
// made in the test, and access tokens signed with any key.
package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Key is a signing key made in a test.
type Key struct{ jwk jose.JSONWebKey }

// NewKey makes an ES256 key named kid.
func NewKey(t testing.TB, kid string) Key {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return Key{jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: string(jose.ES256), Use: "sig"}}
}

// Issuer is an authorization server in a test.
type Issuer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	keys []jose.JSONWebKey
	// Key is the key it signs with, published as it starts.
	Key Key
}

// NewIssuer starts an issuer that publishes one new key, closed when the
// test ends.
func NewIssuer(t testing.TB) *Issuer {
	is := &Issuer{Key: NewKey(t, "test-key-1")}
	is.Publish(is.Key)
	is.srv = httptest.NewServer(http.HandlerFunc(is.serve))
	t.Cleanup(is.srv.Close)
	return is
}

// URL is the issuer's identifier.
func (is *Issuer) URL() string { return is.srv.URL }

// Publish makes keys the issuer's key set.
func (is *Issuer) Publish(keys ...Key) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = is.keys[:0]
	for _, k := range keys {
		is.keys = append(is.keys, k.jwk.Public())
	}
}

func (is *Issuer) serve(w http.ResponseWriter, r *http.Request) {
	is.mu.Lock()
	defer is.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": is.URL(), "jwks_uri": is.URL() + "/jwks",
			"authorization_endpoint": is.URL() + "/authorize", "token_endpoint": is.URL() + "/token",
		})
	case "/jwks":
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: is.keys})
	default:
		http.NotFound(w, r)
	}
}

// Claims are an access token's claims; Token fills in what is left zero.
type Claims struct {
	Issuer   string   `json:"iss,omitempty"`
	Subject  string   `json:"sub,omitempty"`
	Audience []string `json:"aud,omitempty"`
	Expiry   int64    `json:"exp,omitempty"`
	IssuedAt int64    `json:"iat,omitempty"`
	Scope    string   `json:"scope,omitempty"`
	ClientID string   `json:"client_id,omitempty"`
}

// Token signs an access token for sub with scope, for audience, valid for
// an hour, with the issuer's key.
func (is *Issuer) Token(t testing.TB, sub, audience, scope string) string {
	return is.Sign(t, is.Key, Claims{Subject: sub, Audience: []string{audience}, Scope: scope})
}

// Sign signs c with k as an RFC 9068 access token; a zero issuer, expiry
// or issue time is the issuer's, an hour from now, now.
func (is *Issuer) Sign(t testing.TB, k Key, c Claims) string {
	t.Helper()
	now := time.Now()
	if c.Issuer == "" {
		c.Issuer = is.URL()
	}
	if c.Expiry == 0 {
		c.Expiry = now.Add(time.Hour).Unix()
	}
	if c.IssuedAt == 0 {
		c.IssuedAt = now.Unix()
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.jwk.Key},
		(&jose.SignerOptions{}).WithHeader("kid", k.jwk.KeyID).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(s).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// KeyID is the key's kid.
func (k Key) KeyID() string { return k.jwk.KeyID }
