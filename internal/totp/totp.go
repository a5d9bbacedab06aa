// Package totp computes the one-time codes of an authenticator app: TOTP
// (RFC 6238) over HOTP (RFC 4226), from a key given as base32 or as an
// otpauth:// URI. It is pure code on the standard library's HMAC.
//
// A Key never shows its secret: its String, GoString and slog value name
// only its parameters, and its errors never quote what they were given.
package totp

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Algorithm is the HMAC hash of a key: SHA1 (the default), SHA256 or SHA512.
type Algorithm string

// The algorithms RFC 6238 names.
const (
	SHA1   Algorithm = "SHA1"
	SHA256 Algorithm = "SHA256"
	SHA512 Algorithm = "SHA512"
)

// hash returns the algorithm's hash, or nil for one RFC 6238 does not name.
func (a Algorithm) hash() func() hash.Hash {
	switch a {
	case SHA1:
		return sha1.New
	case SHA256:
		return sha256.New
	case SHA512:
		return sha512.New
	}
	return nil
}

// The parameters of a key when it does not say: RFC 6238's, which every
// authenticator app uses.
const (
	DefaultDigits = 6
	DefaultPeriod = 30 * time.Second
)

// Bounds on what a key may say. Fewer than 80 bits is a secret cut short
// (the shortest keys sites hand out have 80; RFC 4226 asks for 128); more
// than 8 digits is beyond what any authenticator types, and RFC 4226's
// 31-bit truncation gives at most 10.
const (
	minSecretBytes = 10
	maxSecretBytes = 1024
	minDigits      = 6
	maxDigits      = 8
	minPeriod      = 5 * time.Second
	maxPeriod      = 10 * time.Minute
)

// Key is a TOTP key: its secret and how codes are made from it. Make one
// with Parse or New.
type Key struct {
	secret    []byte
	algorithm Algorithm
	digits    int
	period    time.Duration
	// texts are the spellings of the secret that give it away: as given,
	// and in canonical base32 (Texts).
	texts []string
}

// New returns a key of secret's bytes with the given algorithm, digits and
// period.
func New(secret []byte, alg Algorithm, digits int, period time.Duration) (Key, error) {
	if len(secret) < minSecretBytes || len(secret) > maxSecretBytes {
		return Key{}, fmt.Errorf("the secret has %d bits; a TOTP secret has %d to %d", 8*len(secret), 8*minSecretBytes, 8*maxSecretBytes)
	}
	if alg.hash() == nil {
		return Key{}, fmt.Errorf("algorithm %q: want SHA1, SHA256 or SHA512", clip(string(alg)))
	}
	if digits < minDigits || digits > maxDigits {
		return Key{}, fmt.Errorf("%d digits: want %d to %d", digits, minDigits, maxDigits)
	}
	if period < minPeriod || period > maxPeriod || period%time.Second != 0 {
		return Key{}, fmt.Errorf("period %s: want whole seconds from %s to %s", period, minPeriod, maxPeriod)
	}
	b32 := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(secret)
	texts := []string{b32, base32.StdEncoding.EncodeToString(secret), hex.EncodeToString(secret)}
	if printable(secret) {
		// A key made of text (RFC 6238's own test keys are) gives itself
		// away as that text too.
		texts = append(texts, string(secret))
	}
	return Key{secret: append([]byte(nil), secret...), algorithm: alg, digits: digits, period: period, texts: texts}, nil
}

// printable reports whether b is printable ASCII.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// Parse reads a key as a person copies it from a site's set-up page: its
// base32 secret, in upper or lower case, with spaces or dashes between
// groups and with or without padding; or an otpauth://totp/ URI, whose
// secret, algorithm, digits and period it reads (issuer and label are a
// person's business). An otpauth://hotp/ URI is refused: a counter-based
// key needs its counter kept in step with the site's. The errors never
// quote the value.
func Parse(s string) (Key, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Key{}, errors.New("the key is empty")
	}
	var k Key
	var err error
	if scheme, _, ok := strings.Cut(s, ":"); ok && strings.EqualFold(scheme, "otpauth") {
		k, err = parseURI(s)
	} else {
		k, err = parseSecret(s, SHA1, DefaultDigits, DefaultPeriod)
	}
	if err != nil {
		return Key{}, err
	}
	k.texts = append(k.texts, s)
	return k, nil
}

// parseSecret reads a base32 secret and makes a key of it.
func parseSecret(s string, alg Algorithm, digits int, period time.Duration) (Key, error) {
	b, err := decodeBase32(s)
	if err != nil {
		return Key{}, err
	}
	return New(b, alg, digits, period)
}

// decodeBase32 reads base32 as people write it: any case, spaces and dashes
// between groups, padding or none.
func decodeBase32(s string) ([]byte, error) {
	clean := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '-':
			return -1
		}
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
	clean = strings.TrimRight(clean, "=")
	for i, r := range clean {
		if !('A' <= r && r <= 'Z' || '2' <= r && r <= '7') {
			// Say where, never what: the value is a secret.
			return nil, fmt.Errorf("the secret is not base32: character %d is not one of A-Z, 2-7 (a base32 secret has no 0, 1, 8 or 9)", i+1)
		}
	}
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(clean)
	if n := len(clean) % 8; err != nil || n == 1 || n == 3 || n == 6 {
		// 1, 3 or 6 characters past a group of 8 make no whole byte: a
		// secret cut short, which the decoder would read without them.
		return nil, fmt.Errorf("the secret is not base32: its %d characters do not make whole bytes (cut short?)", len(clean))
	}
	return b, nil
}

// parseURI reads an otpauth://totp/LABEL?secret=…&algorithm=…&digits=…&period=…
// URI, as the Key URI Format of authenticator apps writes it.
func parseURI(s string) (Key, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Key{}, errors.New("the otpauth URI does not parse")
	}
	switch strings.ToLower(u.Host) {
	case "totp":
	case "hotp":
		return Key{}, errors.New("an otpauth://hotp key counts codes rather than time; only otpauth://totp keys are supported")
	default:
		return Key{}, errors.New("the otpauth URI is not otpauth://totp/…")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return Key{}, errors.New("the otpauth URI's query does not parse")
	}
	for name, v := range q {
		if len(v) > 1 {
			return Key{}, fmt.Errorf("the otpauth URI gives %q %d times", clip(name), len(v))
		}
	}
	secret := q.Get("secret")
	if secret == "" {
		return Key{}, errors.New("the otpauth URI has no secret")
	}
	alg := SHA1
	if a := q.Get("algorithm"); a != "" {
		alg = Algorithm(strings.ToUpper(strings.ReplaceAll(a, "-", "")))
	}
	digits := DefaultDigits
	if d := q.Get("digits"); d != "" {
		if digits, err = strconv.Atoi(d); err != nil {
			return Key{}, fmt.Errorf("the otpauth URI's digits %q is not a number", clip(d))
		}
	}
	period := DefaultPeriod
	if p := q.Get("period"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return Key{}, fmt.Errorf("the otpauth URI's period %q is not a number of seconds", clip(p))
		}
		period = time.Duration(n) * time.Second
		if n <= 0 || n > int(maxPeriod/time.Second) {
			period = 0 // refused by New, without overflowing
		}
	}
	k, err := parseSecret(secret, alg, digits, period)
	if err != nil {
		return Key{}, fmt.Errorf("otpauth URI: %w", err)
	}
	k.texts = append(k.texts, secret)
	return k, nil
}

// clip bounds a piece of a key quoted in an error; only parameters are
// quoted, never the secret.
func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

// Algorithm, Digits and Period are how the key makes its codes.
func (k Key) Algorithm() Algorithm { return k.algorithm }

// Digits is how many digits a code has.
func (k Key) Digits() int { return k.digits }

// Period is how long a code lasts.
func (k Key) Period() time.Duration { return k.period }

// Texts are the spellings of the secret that give it away and must be
// hidden wherever the key's codes are typed: as given (a URI whole, and
// its secret as written), in canonical base32, without and with padding,
// in hex, and as text when its bytes are printable.
func (k Key) Texts() []string { return append([]string(nil), k.texts...) }

// Step is the time step t falls in: whole periods since the Unix epoch.
func (k Key) Step(t time.Time) uint64 {
	return uint64(t.Unix()) / uint64(k.period/time.Second)
}

// Code is the code of the time step t falls in.
func (k Key) Code(t time.Time) string {
	return HOTP(k.secret, k.Step(t), k.digits, k.algorithm)
}

// Left is how long the code of t stays the current one.
func (k Key) Left(t time.Time) time.Duration {
	p := uint64(k.period / time.Second)
	end := time.Unix(int64((uint64(t.Unix())/p+1)*p), 0)
	return end.Sub(t)
}

// Fresh is how long to wait at t before typing a code, so that the code
// typed is still the current one when the form is sent: nothing while at
// least a third of the period is left (10 s of 30), else until the next
// period starts. A site accepts a code only in its own step (many accept
// the step before too), and a model's next call, the one that submits,
// takes seconds.
func (k Key) Fresh(t time.Time) time.Duration {
	if left := k.Left(t); left < k.period/3 {
		return left
	}
	return 0
}

// String names the key's parameters, never its secret.
func (k Key) String() string {
	return fmt.Sprintf("TOTP key (%s, %d digits, %s)", k.algorithm, k.digits, k.period)
}

// GoString is String: %#v must not print the secret either.
func (k Key) GoString() string { return k.String() }

// LogValue is what a log line shows of the key: its parameters.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.String()) }

// HOTP is the code of counter under secret (RFC 4226 §5.3): the HMAC of
// the counter's 8 big-endian bytes, dynamically truncated to 31 bits,
// modulo 10^digits, with leading zeros. Digits is 1 to 10; an algorithm
// RFC 6238 does not name is SHA1.
func HOTP(secret []byte, counter uint64, digits int, alg Algorithm) string {
	h := alg.hash()
	if h == nil {
		h = sha1.New
	}
	digits = min(max(digits, 1), 10)
	m := hmac.New(h, secret)
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	m.Write(msg[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	bin := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint64(1)
	for range digits {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", digits, uint64(bin)%mod)
}
