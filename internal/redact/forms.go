package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// minSubstring is the length, in characters, from which a form matches
// anywhere in the text; a shorter one (a PIN) matches only as a whole token
// (bounded), since "42" inside "1423" is not the PIN but would be hidden on
// every page that shows a number.
const minSubstring = 6

// minAligned is the shortest piece of a longer base64 text that is looked
// for: a value shifted by one or two bytes inside base64 leaves only the
// characters its own bits decide, and a few of those are found by chance.
const minAligned = 8

// maxGap is how many separators may stand between two characters of a
// value: "4 2", "4 - 2", "p\u200be".
const maxGap = 3

// forms returns the forms of v to look for, each standing for stand: the
// value and what a page can make of it before it encodes it (reversed,
// ROT13, URL-encoded as encodeURIComponent does), each as it is, as its
// UTF-8 bytes in hex, and as base64 in the standard and the URL alphabet,
// padded or not, alone or at each of the three alignments it can sit at
// inside a longer base64 text; and the hex and base64 of the value written
// backwards. Forms that known already holds, as fold reads them, are left
// out.
func forms(v, stand string, known []value) []value {
	var list []string
	for i, inner := range []string{v, reverse(v), rot13(v), uriComponent(v)} {
		if i > 0 && inner == v {
			continue
		}
		list = append(list, inner)
		encoded := encodings(inner)
		list = append(list, encoded...)
		if i == 0 {
			for _, e := range encoded {
				list = append(list, reverse(e))
			}
		}
	}
	var out []value
	for _, f := range list {
		runes := foldString(f)
		if len(runes) == 0 {
			continue
		}
		dup := func(k value) bool { return slices.Equal(k.runes, runes) }
		if slices.ContainsFunc(known, dup) || slices.ContainsFunc(out, dup) {
			continue
		}
		out = append(out, value{raw: v, text: f, runes: runes, stand: stand, whole: len(runes) < minSubstring})
	}
	return out
}

// encodings returns v's UTF-8 bytes in hex, and in base64 in the standard
// and the URL alphabet, padded or not, alone or at each of the three
// alignments it can sit at inside a longer base64 text.
func encodings(v string) []string {
	b := []byte(v)
	list := []string{hex.EncodeToString(b)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		alone := enc.EncodeToString(b)
		list = append(list, alone, strings.TrimRight(alone, "="))
		// Inside a longer text, the value's bytes start at one of the
		// three places of a 3-byte group; the characters before the first
		// and after the last that its bits alone decide depend on the
		// bytes around it.
		raw := enc.WithPadding(base64.NoPadding)
		for shift := range 3 {
			s := raw.EncodeToString(append(make([]byte, shift), b...))
			from, to := (shift*8+5)/6, (shift+len(b))*8/6
			if to-from >= minAligned {
				list = append(list, s[from:to])
			}
		}
	}
	return list
}

// rot13 returns s with each ASCII letter moved 13 places on.
func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case 'A' <= r && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// uriComponent returns s as JavaScript's encodeURIComponent writes it.
func uriComponent(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// reverse returns s with its characters in the opposite order.
func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// foldString returns the runes of s as fold reads them.
func foldString(s string) []rune {
	r := []rune(s)
	for i := range r {
		r[i] = fold(r[i])
	}
	return r
}

// fold returns the one character that r, and every other way of writing
// it, reads as: its compatibility form where that is one character
// (full-width Ａ and ４, a mathematical 𝐀, a circled ①, the ideographic
// space), in lower case.
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	switch {
	case 0xFF01 <= r && r <= 0xFF5E:
		return fold(r - 0xFEE0)
	case r == 0x3000:
		return ' '
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	if d := norm.NFKC.Properties(buf[:n]).Decomposition(); len(d) > 0 {
		if c, size := utf8.DecodeRune(d); size == len(d) && c != utf8.RuneError {
			r = c
		}
	}
	// A letter with marks on it is read as the letter: "é" is an e.
	n = utf8.EncodeRune(buf[:], r)
	if d := norm.NFKD.Properties(buf[:n]).Decomposition(); len(d) > 0 {
		if c, size := utf8.DecodeRune(d); c != utf8.RuneError && strings.IndexFunc(string(d[size:]), func(m rune) bool { return !invisible(m) }) < 0 {
			r = c
		}
	}
	r = unicode.ToLower(unicode.ToUpper(r))
	if l, ok := lookalikes[r]; ok {
		return l
	}
	return r
}

// lookalikes are the Cyrillic and Greek letters drawn as a Latin one (in
// lower case, as fold reads them): "Рaypal" with a Cyrillic Р reads as
// "paypal" to a person.
var lookalikes = map[rune]rune{
	'а': 'a', 'в': 'b', 'с': 'c', 'е': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'к': 'k', 'м': 'm', 'н': 'h',
	'о': 'o', 'р': 'p', 'ѕ': 's', 'т': 't', 'у': 'y', 'х': 'x', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l',
	'α': 'a', 'β': 'b', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'χ': 'x', 'γ': 'y', 'η': 'n', 'μ': 'u',
}

// invisible reports whether r draws nothing: format characters (zero-width
// space and joiners, soft hyphen, word joiner, bidi marks, the byte order
// mark), variation selectors, the combining grapheme joiner and the Hangul
// fillers.
func invisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r), 0xFE00 <= r && r <= 0xFE0F, 0xE0100 <= r && r <= 0xE01EF:
		return true
	}
	switch r {
	case 0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x180E:
		return true
	}
	// A combining mark draws on the character before it, which a person
	// still reads: "é" written as "e" and an accent is an e.
	return unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r)
}

// separates reports whether r is a visible separator a page may put
// between the characters of a spaced-out value: white space, a dash, or
// one of . _ · • | , :
func separates(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Pd, r) || strings.ContainsRune(separators, r)
}

// separators are the visible characters besides white space and dashes
// that a page may put between the characters of a value: punctuation, and
// what a list of its characters is written with (["4","2"]).
const separators = "._·•|,:;/\\\"'`[](){}+*=~"

// bounded reports whether s[i:end], a match of want, is a whole token:
// no letter runs on into its first or last letter, no digit into its
// first or last digit.
func bounded(s string, i, end int, want []rune) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if c := class(fold(r)); c != 0 && c == class(want[0]) {
			return false
		}
	}
	if end < len(s) {
		r, _ := utf8.DecodeRuneInString(s[end:])
		if c := class(fold(r)); c != 0 && c == class(want[len(want)-1]) {
			return false
		}
	}
	return true
}

// class is 1 for a letter, 2 for a digit and 0 for anything else.
func class(r rune) int {
	switch {
	case unicode.IsLetter(r):
		return 1
	case unicode.IsDigit(r):
		return 2
	}
	return 0
}
