package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// The bounds of a key set read from the issuer.
const (
	maxKeys       = 64
	minRSABits    = 2048
	maxKIDLength  = 256
	fetchDeadline = 15 * time.Second
)

// errUnknownKey is a token signed with a key the issuer's key set does not
// hold, even after looking again.
var errUnknownKey = errors.New("signed with a key the issuer does not publish")

// keySet is the issuer's signing keys, fetched from its jwks_uri and kept.
// A token naming a kid the set lacks makes it fetch the set again, but
// fetches are at least interval apart, whatever asks: a flood of tokens
// with made-up kids costs the issuer one fetch per interval. Requests that
// need a fetch while one is due share it.
type keySet struct {
	uri      string
	client   *http.Client
	log      *slog.Logger
	interval time.Duration // the least time between two fetches
	maxAge   time.Duration // keys older than this are fetched again
	now      func() time.Time
	after    func(time.Duration) <-chan time.Time

	mu       sync.Mutex
	keys     map[string][]jose.JSONWebKey // by kid ("" for keys without one)
	loaded   time.Time                    // when keys were last fetched
	lastTry  time.Time                    // when the last fetch started
	pending  *fetch                       // the fetch under way or due
	fetches  int                          // how many fetches started (tests read it)
	waiting  int                          // requests waiting for a fetch (tests read it)
	lastFail error
}

// fetch is one fetch of the key set, shared by every request that waits for
// it; done closes when it is over.
type fetch struct {
	start time.Time
	done  chan struct{}
}

// load fetches the key set now, as the validator starts.
func (k *keySet) load(ctx context.Context) error {
	k.mu.Lock()
	k.fetches++
	k.lastTry = k.now()
	k.mu.Unlock()
	keys, err := k.get(ctx)
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.keys, k.loaded = keys, k.now()
	k.mu.Unlock()
	return nil
}

// lookup returns the keys named kid. A kid the set lacks is looked for
// again in a fetch that starts after the request came (sooner ones may not
// have it yet), at the earliest allowed; keys past their age are fetched
// again in the background.
func (k *keySet) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	asked := k.now()
	k.mu.Lock()
	if keys, ok := k.keys[kid]; ok {
		if asked.Sub(k.loaded) > k.maxAge && k.pending == nil {
			k.schedule(asked)
		}
		k.mu.Unlock()
		return keys, nil
	}
	// Two rounds at most: one fetch may have been under way when the
	// request came, and another must start after it.
	for range 2 {
		f := k.pending
		if f == nil {
			f = k.schedule(asked)
		}
		k.waiting++
		k.mu.Unlock()
		select {
		case <-ctx.Done():
			k.mu.Lock()
			k.waiting--
			k.mu.Unlock()
			return nil, fmt.Errorf("wait for the issuer's keys: %w", context.Cause(ctx))
		case <-f.done:
		}
		k.mu.Lock()
		k.waiting--
		if keys, ok := k.keys[kid]; ok {
			k.mu.Unlock()
			return keys, nil
		}
		if !f.start.Before(asked) {
			break
		}
	}
	k.mu.Unlock()
	return nil, errUnknownKey
}

// schedule starts a fetch at the earliest time allowed; k.mu is held.
func (k *keySet) schedule(now time.Time) *fetch {
	start := now
	if next := k.lastTry.Add(k.interval); next.After(start) {
		start = next
	}
	f := &fetch{start: start, done: make(chan struct{})}
	k.pending = f
	go k.run(f, start.Sub(now))
	return f
}

// run waits out the interval, fetches, and lets the waiters go. A failed
// fetch keeps the keys there were: an issuer that is down for a moment
// must not refuse every client.
func (k *keySet) run(f *fetch, wait time.Duration) {
	if wait > 0 {
		<-k.after(wait)
	}
	k.mu.Lock()
	k.fetches++
	k.lastTry = k.now()
	k.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), fetchDeadline)
	keys, err := k.get(ctx)
	cancel()
	k.mu.Lock()
	if err != nil {
		k.lastFail = err
		k.log.Warn("fetch the issuer's keys; keeping the ones there were", "jwks_uri", k.uri, "err", err)
	} else {
		k.keys, k.loaded, k.lastFail = keys, k.now(), nil
	}
	k.pending = nil
	k.mu.Unlock()
	close(f.done)
}

// get fetches the key set and keeps the keys that can verify a token's
// signature: public, asymmetric, strong enough, for signing.
func (k *keySet) get(ctx context.Context) (map[string][]jose.JSONWebKey, error) {
	var set jose.JSONWebKeySet
	if err := getJSON(ctx, k.client, k.uri, &set); err != nil {
		return nil, fmt.Errorf("fetch the issuer's keys: %w", err)
	}
	if len(set.Keys) > maxKeys {
		return nil, fmt.Errorf("fetch the issuer's keys: %d keys, more than %d", len(set.Keys), maxKeys)
	}
	keys := make(map[string][]jose.JSONWebKey)
	for _, key := range set.Keys {
		if why := unusable(key); why != "" {
			k.log.Debug("skip a key of the issuer's", "kid", key.KeyID, "why", why)
			continue
		}
		keys[key.KeyID] = append(keys[key.KeyID], key.Public())
	}
	if len(keys) == 0 {
		return nil, errors.New("fetch the issuer's keys: none can verify a signature")
	}
	return keys, nil
}

// unusable says why key cannot verify an access token's signature, or "".
// A symmetric key in a public document is no secret: it is never used.
func unusable(key jose.JSONWebKey) string {
	if key.Use != "" && key.Use != "sig" {
		return "use " + key.Use
	}
	if len(key.KeyID) > maxKIDLength {
		return "kid too long"
	}
	if !key.Valid() {
		return "invalid"
	}
	switch pub := key.Public().Key.(type) {
	case *rsa.PublicKey:
		if pub.N.BitLen() < minRSABits {
			return fmt.Sprintf("RSA key of %d bits", pub.N.BitLen())
		}
	case *ecdsa.PublicKey, ed25519.PublicKey:
	default:
		return fmt.Sprintf("key type %T", key.Key)
	}
	return ""
}
