// Package redact replaces the values nothing may show (a secret's, a typed
// password's) by what stands for them, in plain text and in JSON, in every
// form the value takes once something has encoded it.
package redact

import (
	"bytes"
	"cmp"
	"encoding/json"
	"html"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Redactor replaces every value it knows by its stand-in, wherever the value
// shows, however it was encoded on the way: raw; JSON- or JavaScript-escaped
// (\" \/ \u0040); URL-encoded as a query, a form or a path (%40, %2f or %2F,
// + for a space, %2540 when a URL was encoded again inside another); and
// HTML-escaped (&amp; &#64; &#x40; &commat;). Each character of a value may
// take any of these forms independently, since encoders differ in what they
// leave alone; letters and hex digits match in either case, and a character
// matches its compatibility forms (full-width Ａ, ４, mathematical 𝐀).
//
// It also finds what a page can make of a value (forms.go): reversed, its
// UTF-8 bytes in hex, base64 in either alphabet, with or without padding,
// alone or inside a longer base64 text; and any of these with invisible
// characters (zero-width space, soft hyphen, joiners) or up to three
// spaces, line breaks, dashes, dots or the like between its characters. A short
// value (under minSubstring characters) matches only as a whole token: not
// where a letter runs on into a letter or a digit into a digit, so that a
// two-digit PIN hides "PIN 42" but leaves "1423" alone.
//
// What it learns by Add it replaces from then on. It is safe for
// concurrent use.
type Redactor struct {
	mu sync.RWMutex
	// values are the forms of the values known, longest first: a value
	// that holds another is replaced whole.
	values []value
	// firsts holds, by the first character of the forms as fold reads
	// them, where in values those forms are, in order: most places in a
	// text start none, and are passed at a glance, and the others are
	// tried against the forms they can start only.
	firsts map[rune][]int
}

// value is one form of a value to hide: the value, the form's text and its
// runes as fold reads them, its stand-in, and how it may show.
type value struct {
	raw   string
	text  string
	runes []rune
	stand string
	// whole is set for a short form, which matches only as a whole token.
	whole bool
	// least, when not 0, lets the form match by its first least
	// characters or more (Fragments: a suffix of a value, whose start is
	// enough to hide).
	least int
}

// New returns a Redactor that writes each secret's value, in secrets by
// name, as the placeholder the agent writes for it: {{NAME}}.
func New(secrets map[string]string) *Redactor {
	r := &Redactor{}
	for _, name := range slices.Sorted(maps.Keys(secrets)) {
		r.Add(secrets[name], "{{"+name+"}}")
	}
	return r
}

// Add replaces v by stand from now on. An empty value is everywhere and
// hides nothing, so it is not added; a value known already keeps the
// stand-in it was first given.
func (r *Redactor) Add(v, stand string) {
	if v == "" || v == stand {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.values {
		if k.raw == v {
			return
		}
	}
	r.values = append(r.values, forms(v, stand, r.values)...)
	slices.SortStableFunc(r.values, func(a, b value) int {
		return cmp.Or(len(b.runes)-len(a.runes), strings.Compare(a.raw, b.raw))
	})
	r.index()
}

// index makes firsts for values. r.mu is held, or r is not yet shared.
func (r *Redactor) index() {
	r.firsts = map[rune][]int{}
	for i, k := range r.values {
		r.firsts[k.runes[0]] = append(r.firsts[k.runes[0]], i)
	}
}

// Empty reports whether the Redactor knows no value.
func (r *Redactor) Empty() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.values) == 0
}

// String returns s with every known value replaced, in whatever form it
// takes.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.values) == 0 || s == "" {
		return s
	}
	var b *strings.Builder
	last := 0
	for i := 0; i < len(s); {
		end, stand, ok := r.matchAt(s, i)
		if !ok {
			i++
			continue
		}
		if b == nil {
			b = &strings.Builder{}
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		b.WriteString(stand)
		i, last = end, end
	}
	if b == nil {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Pieces returns pieces, the parts of one text as a page laid it out (runs
// of text, each with a box), with every known value replaced: where a value
// runs across pieces, the piece it starts in shows the stand-in and the
// others lose their part of it, so that no piece keeps any of it.
func (r *Redactor) Pieces(pieces []string) []string {
	if r.Empty() || len(pieces) == 0 {
		return pieces
	}
	// Invisible separators between the pieces: a value may run across
	// them as across a zero-width space.
	const sep = "\u200b"
	joined := strings.Join(pieces, sep)
	starts := make([]int, len(pieces))
	at := 0
	for i, p := range pieces {
		starts[i] = at
		at += len(p) + len(sep)
	}
	type span struct {
		from, to int
		stand    string
	}
	var spans []span
	r.mu.RLock()
	for i := 0; i < len(joined); {
		end, stand, ok := r.matchAt(joined, i)
		if !ok {
			i++
			continue
		}
		spans = append(spans, span{i, end, stand})
		i = end
	}
	r.mu.RUnlock()
	if len(spans) == 0 {
		return pieces
	}
	out := make([]string, len(pieces))
	for k, p := range pieces {
		from, to := starts[k], starts[k]+len(p)
		var b strings.Builder
		last := from
		for _, sp := range spans {
			if sp.to <= from || sp.from >= to {
				continue
			}
			cut := max(sp.from, from)
			b.WriteString(joined[last:cut])
			if sp.from >= from {
				b.WriteString(sp.stand)
			}
			last = min(sp.to, to)
		}
		b.WriteString(joined[last:to])
		out[k] = b.String()
	}
	return out
}

// matchAt returns where the longest known value that starts at s[i] ends
// there, and its stand-in.
func (r *Redactor) matchAt(s string, i int) (int, string, bool) {
	if !utf8.RuneStart(s[i]) {
		return 0, "", false
	}
	if c := s[i]; c < utf8.RuneSelf && c != '+' && c != '%' && c != '&' && c != '\\' && r.firsts[fold(rune(c))] == nil {
		return 0, "", false
	}
	var opts [12]unit
	first := units(s, i, opts[:0])
	var candidates []int
	for j := range first {
		first[j].r = fold(first[j].r)
		if idx := r.firsts[first[j].r]; len(idx) > 0 {
			if candidates == nil {
				candidates = idx
				continue
			}
			// Another reading of the unit starts other forms: all of
			// them, in values' order (longest first).
			candidates = append(slices.Clone(candidates), idx...)
			slices.Sort(candidates)
			candidates = slices.Compact(candidates)
		}
	}
	best, stand := -1, ""
	for _, k := range candidates {
		v := r.values[k]
		end, ok := match(s, i, v)
		switch {
		case !ok || (v.whole && !bounded(s, i, end, v.runes)):
		case v.least == 0:
			return end, v.stand, true
		case end > best:
			// Prefixes of suffixes: the one that runs furthest.
			best, stand = end, v.stand
		}
	}
	return best, stand, best >= 0
}

// match reports where v ends if it starts at s[i], each of its runes in
// any form a unit of text can encode it in.
func match(s string, i int, v value) (int, bool) {
	m := matcher{s: s, want: v.runes}
	if end, ok := m.try(i, 0); ok || v.least == 0 {
		return end, ok
	}
	return m.bestEnd, m.best >= v.least
}

// matcher matches one value at one place. Where a unit reads several ways
// (a raw "%", or the start of "%40") each is tried; failed holds the
// (position, rune index) pairs known to fail, which keeps the search within
// len(s)·len(want) steps.
type matcher struct {
	s      string
	want   []rune
	failed map[[2]int]bool
	// branched is set once a unit read two ways that both matched: only
	// then can two paths reach the same place.
	branched bool
	// best is the most runes of want matched, ending at bestEnd.
	best, bestEnd int
}

func (m *matcher) try(p, k int) (int, bool) {
	if k > m.best {
		m.best, m.bestEnd = k, p
	}
	if k == len(m.want) {
		return p, true
	}
	if p >= len(m.s) || m.failed[[2]int{p, k}] {
		return 0, false
	}
	var opts [12]unit
	tried := 0
	at := p
	for gap := 0; ; gap++ {
		us := units(m.s, at, opts[:0])
		for _, u := range us {
			if fold(u.r) != m.want[k] {
				continue
			}
			if tried++; tried > 1 {
				m.branched = true
			}
			if end, ok := m.try(u.next, k+1); ok {
				return end, true
			}
		}
		// Between two of its characters, a separator may stand: skip one
		// and look again, a few times at most.
		if k == 0 || gap == maxGap {
			break
		}
		next, ok := m.separator(us)
		if !ok || next >= len(m.s) {
			break
		}
		m.branched = true
		at = next
	}
	if m.branched {
		if m.failed == nil {
			m.failed = map[[2]int]bool{}
		}
		m.failed[[2]int{p, k}] = true
	}
	return 0, false
}

// separator returns where the text after a separator among the readings
// us of one unit starts: an invisible character or a visible separator
// (a spaced-out value; a MIME body breaks base64 into lines).
func (m *matcher) separator(us []unit) (int, bool) {
	for _, u := range us {
		r := fold(u.r)
		if !invisible(r) && !separates(r) {
			continue
		}
		if !unicode.IsSpace(r) {
			return u.next, true
		}
		// A run of white space reads as one gap, however wide: a
		// person reads "4    2" as spaced out as "4 2".
		next := u.next
		for range maxSpaceRun {
			if next >= len(m.s) {
				break
			}
			c, size := utf8.DecodeRuneInString(m.s[next:])
			if !unicode.IsSpace(fold(c)) {
				break
			}
			next += size
		}
		return next, true
	}
	return 0, false
}

// maxSpaceRun bounds how much white space one gap between two characters
// of a value may hold.
const maxSpaceRun = 64

// unit is one character as some encoding wrote it: the rune and where the
// text after it starts.
type unit struct {
	r    rune
	next int
}

// maxNesting is how many times over a URL may have been encoded again
// inside another (a return address in a query, itself in a query…).
const maxNesting = 3

// units appends to out every reading of the text at s[p] as one encoded
// character: where the text starts an escape, the rune the escape stands
// for (longest first: a reading that consumes more is tried first), and the
// rune itself.
func units(s string, p int, out []unit) []unit {
	switch s[p] {
	case '+':
		out = append(out, unit{' ', p + 1})
	case '%':
		for depth := maxNesting; depth >= 0; depth-- {
			if r, next, ok := percent(s, p, depth); ok {
				out = appendPlus(out, unit{r, next})
			}
		}
	case '&':
		if r, next, ok := entity(s, p); ok {
			out = appendPlus(out, unit{r, next})
		}
	case '\\':
		if r, next, ok := backslash(s, p); ok {
			out = appendPlus(out, unit{r, next})
		}
	}
	r, size := utf8.DecodeRuneInString(s[p:])
	return append(out, unit{r, p + size})
}

// appendPlus appends u, and when u is a plus sign, which a form writes for
// a space, a space there too: a form-encoded value escaped again (%2B,
// &#43;, \u002b) still stands for one.
func appendPlus(out []unit, u unit) []unit {
	out = append(out, u)
	if u.r == '+' {
		out = append(out, unit{' ', u.next})
	}
	return out
}

// percent reads one URL-encoded character at s[p]: one %HH per byte of its
// UTF-8 encoding, each percent sign itself encoded depth times over as %25
// (a URL encoded again inside another: %2540 is "@" at depth 1).
func percent(s string, p int, depth int) (rune, int, bool) {
	var buf [utf8.UTFMax]byte
	for n := 0; n < len(buf); {
		b, next, ok := percentByte(s, p, depth)
		if !ok {
			return 0, 0, false
		}
		buf[n], p = b, next
		n++
		if utf8.FullRune(buf[:n]) {
			r, size := utf8.DecodeRune(buf[:n])
			if r == utf8.RuneError && size <= 1 {
				return 0, 0, false
			}
			return r, p, true
		}
	}
	return 0, 0, false
}

// percentByte reads %HH at s[p], its percent sign encoded depth times over:
// %25HH at depth 1, %2525HH at depth 2.
func percentByte(s string, p int, depth int) (byte, int, bool) {
	if p >= len(s) || s[p] != '%' {
		return 0, 0, false
	}
	p++
	for range depth {
		if !strings.HasPrefix(s[p:], "25") {
			return 0, 0, false
		}
		p += 2
	}
	if !isHexPair(s, p) {
		return 0, 0, false
	}
	return unhex(s[p])<<4 | unhex(s[p+1]), p + 2, true
}

func isHexPair(s string, p int) bool { return p+2 <= len(s) && isHex(s[p]) && isHex(s[p+1]) }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// maxEntity is the longest HTML character reference read: &#x0010FFFF; and
// the longest name used here fit.
const maxEntity = 12

// entity reads one HTML character reference at s[p]: &#64; &#x40; (the
// semicolon optional, as browsers take it) or a named one.
func entity(s string, p int) (rune, int, bool) {
	t := s[p+1 : min(len(s), p+maxEntity)]
	if strings.HasPrefix(t, "#") {
		digits, base := t[1:], 10
		if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
			digits, base = digits[1:], 16
		}
		n, v := 0, 0
		for n < len(digits) && (base == 16 && isHex(digits[n]) || base == 10 && '0' <= digits[n] && digits[n] <= '9') {
			v = v*base + int(unhex(digits[n]))
			n++
			if v > unicode.MaxRune {
				return 0, 0, false
			}
		}
		if n == 0 {
			return 0, 0, false
		}
		next := p + 1 + (len(t) - len(digits)) + n
		if next < len(s) && s[next] == ';' {
			next++
		}
		return rune(v), next, true
	}
	semi := strings.IndexByte(t, ';')
	if semi <= 0 {
		return 0, 0, false
	}
	ref := s[p : p+1+semi+1]
	dec := html.UnescapeString(ref)
	if dec == ref {
		return 0, 0, false
	}
	r, size := utf8.DecodeRuneInString(dec)
	if size != len(dec) {
		// A name for two characters.
		return 0, 0, false
	}
	return r, p + len(ref), true
}

// backslash reads one JSON or JavaScript escape at s[p]: \uXXXX (a
// surrogate pair as one rune), \xHH, or a one-letter escape.
func backslash(s string, p int) (rune, int, bool) {
	if p+1 >= len(s) {
		return 0, 0, false
	}
	switch c := s[p+1]; c {
	case 'u':
		r, ok := hexRune(s, p+2, 4)
		if !ok {
			return 0, 0, false
		}
		if utf16IsHigh(r) && p+12 <= len(s) && s[p+6] == '\\' && s[p+7] == 'u' {
			if lo, ok := hexRune(s, p+8, 4); ok && 0xDC00 <= lo && lo <= 0xDFFF {
				return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, p + 12, true
			}
		}
		return r, p + 6, true
	case 'x':
		r, ok := hexRune(s, p+2, 2)
		return r, p + 4, ok
	case 'n':
		return '\n', p + 2, true
	case 't':
		return '\t', p + 2, true
	case 'r':
		return '\r', p + 2, true
	case 'b':
		return '\b', p + 2, true
	case 'f':
		return '\f', p + 2, true
	case '"', '\\', '/', '\'':
		return rune(c), p + 2, true
	}
	return 0, 0, false
}

func utf16IsHigh(r rune) bool { return 0xD800 <= r && r <= 0xDBFF }

// hexRune reads n hex digits at s[p].
func hexRune(s string, p, n int) (rune, bool) {
	if p+n > len(s) {
		return 0, false
	}
	var v rune
	for i := range n {
		if !isHex(s[p+i]) {
			return 0, false
		}
		v = v<<4 | rune(unhex(s[p+i]))
	}
	return v, true
}

// Forms returns, for each value known, the forms in which a page would most
// likely show it: raw, URL-encoded as a query, a form field and a path, with
// every reserved character encoded (encodeURIComponent), HTML-escaped and
// JSON-escaped; and what a page can make of it (reversed, hex, base64). They
// are what a screenshot must not show; a page is free to show them in
// either case, in full width, or with separators between their characters.
func (r *Redactor) Forms() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	seen := map[string]bool{}
	for _, v := range r.values {
		texts := []string{v.text}
		if v.text == v.raw {
			q, _ := json.Marshal(v.raw) // a string always encodes
			texts = []string{
				v.raw, url.QueryEscape(v.raw), url.PathEscape(v.raw),
				strings.ReplaceAll(url.QueryEscape(v.raw), "+", "%20"),
				html.EscapeString(v.raw), string(q[1 : len(q)-1]),
			}
		}
		for _, f := range texts {
			if k := strings.ToLower(f); !seen[k] {
				seen[k] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// JSON returns raw with every known value replaced in every string it
// holds, keys included, however the JSON escapes it. Input that is not JSON
// comes back as a JSON string of its redacted text, so that what holds it
// stays valid JSON.
func (r *Redactor) JSON(raw json.RawMessage) json.RawMessage {
	if r.Empty() || len(raw) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		out, _ := json.Marshal(r.String(string(raw))) // a string always encodes
		return out
	}
	out, err := json.Marshal(r.value(v))
	if err != nil {
		out, _ = json.Marshal(r.String(string(raw)))
	}
	return out
}

// value replaces the known values in the strings of v, a decoded JSON
// value, keys included.
func (r *Redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.String(v)
	case []any:
		for i := range v {
			v[i] = r.value(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[r.String(k)] = r.value(e)
		}
		return out
	}
	return v
}
