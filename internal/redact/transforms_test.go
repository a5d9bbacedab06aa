package redact

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// person is a password a person typed in the live view (issue 27's fourth
// reproduction).
const person = "Person-Secret-42!"

// spread puts sep between the characters of s.
func spread(s, sep string) string { return strings.Join(strings.Split(s, ""), sep) }

// fullWidth writes s's ASCII in its full-width forms.
func fullWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if '!' <= r && r <= '~' {
			return r + 0xFEE0
		}
		return r
	}, s)
}

// TestRedactTransforms finds the value in what a page can make of it, alone and
// inside text around it.
func TestRedactTransforms(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"PW": person})
	b64 := base64.StdEncoding.EncodeToString([]byte(person))
	in := func(prefix string) string {
		// The value's bits as they sit inside a longer base64 text, after
		// len(prefix) bytes of other data, with more data after it.
		s := base64.StdEncoding.EncodeToString([]byte(prefix + person + "&next=/home"))
		return s
	}
	for _, tc := range []struct{ name, form string }{
		{"base64", b64},
		{"base64, no padding", strings.TrimRight(b64, "=")},
		{"base64, URL alphabet", base64.URLEncoding.EncodeToString([]byte(person + "?>"))},
		{"base64, URL alphabet, no padding", base64.RawURLEncoding.EncodeToString([]byte(person))},
		{"base64 inside a longer one, aligned", in("abc")},
		{"base64 inside a longer one, one byte off", in("ab")},
		{"base64 inside a longer one, two bytes off", in("a")},
		{"base64 broken into lines", b64[:8] + "\r\n" + b64[8:16] + "\n" + b64[16:]},
		{"base64 in a query, percent-encoded", strings.NewReplacer("=", "%3D", "+", "%2B").Replace(b64)},
		{"hex", hex.EncodeToString([]byte(person))},
		{"hex, upper case", strings.ToUpper(hex.EncodeToString([]byte(person)))},
		{"hex with colons", spread(hex.EncodeToString([]byte(person)), ":")},
		{"reversed", reverse(person)},
		{"reversed, upper case", strings.ToUpper(reverse(person))},
		{"spaced out", spread(person, " ")},
		{"dashes between", spread(person, "-")},
		{"two spaces between", spread(person, "  ")},
		{"zero-width spaces", spread(person, "\u200b")},
		{"zero-width joiners", spread(person, "\u200d")},
		{"soft hyphens", spread(person, "\u00ad")},
		{"soft hyphens as HTML", spread(person, "&shy;")},
		{"word joiners and non-joiners", spread(person, "\u2060\u200c")},
		{"full width", fullWidth(person)},
		{"full width, spaced with ideographic spaces", spread(fullWidth(person), "\u3000")},
		{"mathematical bold digits", strings.ReplaceAll(person, "42", "\U0001D7D2\U0001D7D0")},
		{"upper case", strings.ToUpper(person)},
		{"lower case", strings.ToLower(person)},
		{"reversed and spaced", spread(reverse(person), " ")},
		{"base64 of the reversed value", base64.StdEncoding.EncodeToString([]byte(reverse(person)))},
		{"base64 written backwards", reverse(base64.StdEncoding.EncodeToString([]byte(person)))},
		{"hex of the reversed value", hex.EncodeToString([]byte(reverse(person)))},
		{"base64 of the URL-encoded value", base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(person, "!", "%21")))},
		{"ROT13", "Crefba-Frperg-42!"},
		{"far apart", spread(person, "      ")},
		{"slashed", spread(person, "/")},
		{"a list of its characters", `["` + spread(person, `","`) + `"]`},
		{"CSS escapes", `\50 \65 \72 \73 \6f \6e \2d \53 \65 \63 \72 \65 \74 \2d \34 \32 \21 `},
		{"combining marks", spread(person, "\u0301") + "\u0301"},
		{"precomposed accents", "Pérsón-Sécrét-42!"},
		{"Cyrillic look-alikes", "Р\u0435rs\u043en-S\u0435cr\u0435t-42!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, text := range []string{tc.form, "Echo: " + tc.form + " (end)", `{"v":"` + tc.form + `"}`} {
				got := r.String(text)
				if !strings.Contains(got, "{{PW}}") {
					t.Errorf("String(%q) = %q, want {{PW}} in the value's place", text, got)
				}
				for _, piece := range []string{"Secret", "terceS", "U2VjcmV0", "ZWNyZXQ", "NlY3JldC", "5365637265", "ｅｃｒｅ", "e c r e", "e-c-r-e"} {
					if strings.Contains(strings.ToLower(got), strings.ToLower(piece)) && strings.Contains(strings.ToLower(tc.form), strings.ToLower(piece)) {
						t.Errorf("String(%q) = %q still holds %q", text, got, piece)
					}
				}
			}
		})
	}
}

// TestRedactShortSecret hides a value however short, as a whole token; the same
// characters inside a longer number or word stay.
func TestRedactShortSecret(t *testing.T) {
	t.Parallel()
	r := New(nil)
	r.Add("42", "****")
	r.Add("x", "****")
	for _, tc := range []struct{ in, want string }{
		{"PIN 42", "PIN ****"},
		{"PIN:42.", "PIN:****."},
		{"PIN42", "PIN****"},
		{"pin=%34%32&id=1", "pin=****&id=1"},
		{"4 2", "****"},
		{"4\u200b2", "****"},
		{"４２", "****"},
		{"PIN 24", "PIN ****"},
		{"1423 items", "1423 items"},
		{"420", "420"},
		{"year 2042", "year 2042"},
		{"a x b", "a **** b"},
		{"box", "box"},
		{"NDI=", "****"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactTransformsNotOverreaching leaves alone text that only shares pieces
// with the value's forms.
func TestRedactTransformsNotOverreaching(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"PW": person})
	for _, in := range []string{
		"Person Secret 43!",
		"Person-Secret-4",
		// Past three separators, a run of white space counting as one.
		spread(person[:10], "-.-.") + person[10:],
		base64.StdEncoding.EncodeToString([]byte("Person-Secret-43!")),
		"Personal secrets: 42 tips",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestRedactTransformForms lists, for a screenshot, what a page can make of the
// value as well as its encodings.
func TestRedactTransformForms(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"PW": person})
	forms := strings.Join(r.Forms(), "\n")
	for _, want := range []string{person, reverse(person), hex.EncodeToString([]byte(person)), base64.StdEncoding.EncodeToString([]byte(person))} {
		if !strings.Contains(forms, want) {
			t.Errorf("Forms() = %q, want %q among them", forms, want)
		}
	}
}

// TestRedactPieces hides a value in text laid out in pieces, within one
// piece or across several, and leaves the pieces as many as they were.
func TestRedactPieces(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"PW": person})
	for _, tc := range []struct{ in, want []string }{
		{[]string{"Hello", "You typed " + person, "bye"}, []string{"Hello", "You typed {{PW}}", "bye"}},
		{[]string{"You typed Person-", "Secret", "-42! ok"}, []string{"You typed {{PW}}", "", " ok"}},
		{[]string{"nothing", "here"}, []string{"nothing", "here"}},
		{[]string{reverse(person)[:5], reverse(person)[5:]}, []string{"{{PW}}", ""}},
	} {
		got := r.Pieces(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Pieces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
