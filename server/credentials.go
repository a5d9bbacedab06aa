package server

import (
	"context"
	"crypto/sha256"
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// Credential is one HTTP client's bearer token and the name the logs and
// the audit log know it by; the token itself is never logged.
type Credential struct {
	Name  string
	Token string
}

// clientName is what a credential's name may be: short, printable, no
// spaces, so it reads safely in a log line.
var clientName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Credentials is the set of bearer tokens the HTTP transports accept, each
// naming its client. It is safe for concurrent use; Replace swaps the whole
// set, so a token left out stops working with the next request.
//
// Only SHA-256 sums of the tokens are kept, and a request's token is found
// by its sum: the time a lookup takes depends on the sum, not on how much of
// a real token a guess shares.
type Credentials struct {
	mu     sync.RWMutex
	byHash map[[sha256.Size]byte]string
}

// NewCredentials returns the set of cs; see Replace for what is refused.
func NewCredentials(cs []Credential) (*Credentials, error) {
	c := &Credentials{}
	if err := c.Replace(cs); err != nil {
		return nil, err
	}
	return c, nil
}

// Replace makes cs the set of accepted credentials. It refuses, and keeps
// the old set, when a name is malformed or repeated, or a token is too
// short or repeated.
func (c *Credentials) Replace(cs []Credential) error {
	byHash := make(map[[sha256.Size]byte]string, len(cs))
	names := make(map[string]bool, len(cs))
	for i, cr := range cs {
		if !clientName.MatchString(cr.Name) {
			return fmt.Errorf("credential %d: name %q: use up to 64 letters, digits, '.', '_' or '-'", i+1, cr.Name)
		}
		if names[cr.Name] {
			return fmt.Errorf("credential %d: the name %q is used twice", i+1, cr.Name)
		}
		names[cr.Name] = true
		if len(cr.Token) < MinTokenLength {
			return fmt.Errorf("credential %q: the token is %d characters long; use at least %d (e.g. openssl rand -hex 32)",
				cr.Name, len(cr.Token), MinTokenLength)
		}
		sum := sha256.Sum256([]byte(cr.Token))
		if other, ok := byHash[sum]; ok {
			return fmt.Errorf("credentials %q and %q have the same token", other, cr.Name)
		}
		byHash[sum] = cr.Name
	}
	c.mu.Lock()
	c.byHash = byHash
	c.mu.Unlock()
	return nil
}

// Names returns the names of the accepted credentials, sorted.
func (c *Credentials) Names() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.byHash))
	for _, n := range c.byHash {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// lookup returns the name of the client whose token is token.
func (c *Credentials) lookup(token string) (string, bool) {
	sum := sha256.Sum256([]byte(token))
	c.mu.RLock()
	defer c.mu.RUnlock()
	name, ok := c.byHash[sum]
	return name, ok
}

// has reports whether a credential is named name.
func (c *Credentials) has(name string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, n := range c.byHash {
		if n == name {
			return true
		}
	}
	return false
}

type clientKey struct{}

// withClient returns ctx carrying the name of the client it serves.
func withClient(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, clientKey{}, name)
}

// ClientFromContext returns the name of the HTTP client (its credential's
// name) that ctx serves: in Config.NewSession, the client the session opens
// for. It is empty over stdio and when the HTTP transports need no token.
func ClientFromContext(ctx context.Context) string {
	name, _ := ctx.Value(clientKey{}).(string)
	return name
}

// identity is who a request comes from, as sessions are owned: a static
// credential's name, or an access token's sub. The two are apart even when
// they spell the same: a tokens file reloaded with a name an issuer also
// uses as a sub (or without one it had) never hands one's sessions to the
// other.
type identity struct {
	name  string
	oauth bool
}

type oauthClientKey struct{}

// withIdentity returns ctx carrying who: its name as ClientFromContext
// reads it, and whether it is an access token's sub.
func withIdentity(ctx context.Context, who identity) context.Context {
	ctx = withClient(ctx, who.name)
	if who.oauth {
		ctx = context.WithValue(ctx, oauthClientKey{}, true)
	}
	return ctx
}

// identityFromContext returns who ctx serves.
func identityFromContext(ctx context.Context) identity {
	oauth, _ := ctx.Value(oauthClientKey{}).(bool)
	return identity{name: ClientFromContext(ctx), oauth: oauth}
}

// ShortID returns the first 8 characters of a session id, after any
// "mcp-session-" prefix: enough to follow one session through a log, too
// little to reach it. Full session ids never go to logs.
func ShortID(id string) string {
	const prefix = "mcp-session-"
	if len(id) > len(prefix) && id[:len(prefix)] == prefix {
		id = id[len(prefix):]
	}
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// owners records which client opened each MCP session.
type owners struct {
	mu sync.Mutex
	m  map[string]identity // MCP session id → the client that opened it
}

func newOwners() *owners { return &owners{m: make(map[string]identity)} }

// bind makes client the owner of the session id, unless it has one.
func (o *owners) bind(id string, client identity) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.m[id]; !ok {
		o.m[id] = client
	}
}

// allows reports whether client may use the session id: it owns it, or the
// id is unknown (and the transport answers that).
func (o *owners) allows(id string, client identity) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, ok := o.m[id]
	return !ok || owner == client
}

// owner returns the client that opened the session id.
func (o *owners) owner(id string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.m[id].name
}

// forget drops the session id, which has ended.
func (o *owners) forget(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, id)
}

// count returns the number of sessions with an owner (tests read it).
func (o *owners) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.m)
}
