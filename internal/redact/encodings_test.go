package redact

import (
	"encoding/json"
	"html"
	"net/url"
	"strings"
	"testing"
)

// pw is a value whose characters every encoder writes differently: @, a
// space, / and ? each URL-encode, and the hex of / and ? has letters.
const pw = "p@ss w0rd/Zq?9"

// TestEveryForm finds the value in each form an encoder, a browser or a
// page gives it, alone and inside the text around it.
func TestEveryForm(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"PW": pw})
	q, _ := json.Marshal(pw)
	for _, tc := range []struct{ name, form string }{
		{"raw", pw},
		{"query escaped", url.QueryEscape(pw)},
		{"query escaped, lower-case hex", strings.ToLower(url.QueryEscape(pw))},
		{"path escaped", url.PathEscape(pw)},
		{"encodeURIComponent", "p%40ss%20w0rd%2FZq%3F9"},
		{"encodeURI", "p@ss%20w0rd/Zq?9"},
		{"form encoded by Chromium", "p%40ss+w0rd%2FZq%3F9"},
		{"every byte encoded", "%70%40%73%73%20%77%30%72%64%2f%5a%71%3f%39"},
		{"encoded twice", "p%2540ss%2Bw0rd%252FZq%253F9"},
		{"encoded twice, space as %2520", "p%2540ss%2520w0rd%252FZq%253F9"},
		{"JSON escaped", string(q[1 : len(q)-1])},
		{"JSON, every character as \\u", `\u0070\u0040\u0073\u0073\u0020\u0077\u0030\u0072\u0064\u002F\u005a\u0071\u003f\u0039`},
		{"JSON, slash escaped", `p@ss w0rd\/Zq?9`},
		{"HTML escaped", html.EscapeString(pw)},
		{"form encoded, then HTML escaped", "p%40ss&#43;w0rd%2FZq%3F9"},
		{"form encoded, then JSON escaped", `p%40ss\u002bw0rd%2FZq%3F9`},
		{"HTML decimal references", "p&#64;ss&#32;w0rd&#47;Zq&#63;9"},
		{"HTML hex references, no semicolon", "p&#x40ss&#X20w0rd&#x2f;Zq&#x3F;9"},
		{"HTML named references", "p&commat;ss w0rd&sol;Zq&quest;9"},
		{"upper case", strings.ToUpper(pw)},
		{"JavaScript \\x escapes", `p\x40ss\x20w0rd\x2fZq\x3f9`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, in := range []string{tc.form, "https://x.test/login?user=a&pw=" + tc.form + "&next=%2F", `{"v":"` + tc.form + `"}`} {
				got := r.String(in)
				if strings.Contains(got, tc.form) {
					t.Errorf("String(%q) = %q: the value is still there", in, got)
				}
				if !strings.Contains(got, "{{PW}}") {
					t.Errorf("String(%q) = %q, want {{PW}} in its place", in, got)
				}
			}
		})
	}
}

// TestNotOverreaching leaves alone text that only looks like the value.
func TestNotOverreaching(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"PW": pw})
	for _, in := range []string{
		"p@ss w0rd/Zq?8",
		"p@ss w0rd/Zq",
		"p%4 0ss w0rd/Zq?9",
		"p&#64x;ss w0rd/Zq?",
		"100% sure & happy",
		`\u00zz \x4`,
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestPercentInTheValue hides a value that holds a percent sign and an
// escape's own characters, raw and encoded.
func TestPercentInTheValue(t *testing.T) {
	t.Parallel()
	const v = `50%25off\u&amp;`
	r := New(map[string]string{"V": v})
	for _, in := range []string{v, url.QueryEscape(v), html.EscapeString(v), url.QueryEscape(url.QueryEscape(v))} {
		if got := r.String("x " + in + " y"); got != "x {{V}} y" {
			t.Errorf("String(%q) = %q, want x {{V}} y", in, got)
		}
	}
}

// TestUnicodeValue hides a value beyond ASCII in its UTF-8 percent form and
// its JSON surrogate pair.
func TestUnicodeValue(t *testing.T) {
	t.Parallel()
	const v = "héllo😀"
	r := New(map[string]string{"V": v})
	for _, in := range []string{v, url.QueryEscape(v), strings.ToLower(url.QueryEscape(v)), `h\u00e9llo\ud83d\ude00`, "h&eacute;llo&#128512;"} {
		if got := r.String(in); got != "{{V}}" {
			t.Errorf("String(%q) = %q, want {{V}}", in, got)
		}
	}
}

// TestJSONKeys hides a value that is a key of an object.
func TestJSONKeys(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"PW": pw})
	got := string(r.JSON(json.RawMessage(`{"` + url.QueryEscape(pw) + `":1}`)))
	if got != `{"{{PW}}":1}` {
		t.Errorf("JSON = %s, want the key redacted", got)
	}
}

// TestForms lists the forms a screenshot must not show.
func TestForms(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"PW": pw})
	forms := strings.Join(r.Forms(), "\n")
	for _, want := range []string{pw, "p%40ss+w0rd%2FZq%3F9", "p%40ss%20w0rd%2FZq%3F9", "p@ss%20w0rd%2FZq%3F9"} {
		if !strings.Contains(forms, want) {
			t.Errorf("Forms() = %q, want %q among them", forms, want)
		}
	}
	if New(nil).Forms() != nil {
		t.Error("an empty redactor has forms")
	}
}

// TestConcurrentAdd learns values while others read.
func TestConcurrentAdd(t *testing.T) {
	t.Parallel()
	r := New(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			r.String("a secret-1 and " + url.QueryEscape("secret 2"))
		}
	}()
	r.Add("secret-1", "****")
	r.Add("secret 2", "****")
	<-done
	if got := r.String("secret+2"); got != "****" {
		t.Errorf("String = %q", got)
	}
}

func BenchmarkString(b *testing.B) {
	r := New(map[string]string{"PW": pw, "TOKEN": "tok-SECRET-8c1f2e"})
	text := strings.Repeat("Results for your search: 100% of items & more, see /path?x=1+2 ", 800)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.String(text)
	}
}
