package redact

import (
	"strings"
	"testing"
)

// TestFragments: a page that holds a value may write it in parts (a console
// message or a request per half, a string cut at a preview's length); each
// part long enough to tell a good part of it is hidden, in the forms String
// reads, and ordinary text that shares a few letters with it is left alone.
func TestFragments(t *testing.T) {
	r := New(map[string]string{"PW": "hunter2Secret!", "PIN": "4242"})
	r.Add("s3cret Dev/pw?7", "********")
	f := r.Fragments()
	hidden := []string{
		"first half: hunter2",
		"second half: Secret!",
		"/log?a=hunter2S",
		"/log?b=ecret%21",
		"/log?q=s3cret%20",
		"/log?q=Dev%2Fpw%3F7",
		"HUNTER2SEC",
		"h-u-n-t-e-r",
		"preview: 'xxxxhunter2Se…'",
		`{"p":"\u0068unter"}`,
	}
	for _, text := range hidden {
		out := f.String(text)
		for _, part := range []string{"hunter", "ecret!", "s3cret", "dev/pw", "dev%2fpw", "unter2"} {
			if strings.Contains(strings.ToLower(out), part) {
				t.Errorf("Fragments().String(%q) = %q: shows %q", text, out, part)
			}
		}
	}
	for _, text := range []string{"the hunt is on", "a secure trade", "pin 42 or 4242 apart", "a developer"} {
		if out := f.String(text); out != text {
			t.Errorf("Fragments().String(%q) = %q: hides ordinary text", text, out)
		}
	}
	if out := f.String("4242"); out != "4242" {
		t.Errorf("a short value's runs are r's to hide, not Fragments': %q", out)
	}
}
