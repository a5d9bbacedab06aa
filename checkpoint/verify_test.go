package checkpoint

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestVerifyNeedsSuccessWithoutFailureOnAnAllowedOrigin: a claimed success is
// acknowledged only when a success indicator holds, no failure indicator
// does, and the page is on an origin the profile allows; the message names
// the rule that decided.
func TestVerifyNeedsSuccessWithoutFailureOnAnAllowedOrigin(t *testing.T) {
	g := demoGate(t, nil, Options{})
	cases := []struct {
		name string
		page string
		ok   bool
		msg  []string
	}{
		{"success", `{"page":{"url":"http://demo/cancelled","title":"Membership cancelled"}}`, true,
			[]string{`Success verified on the page: title contains "cancelled".`}},
		{"success, default port spelled out", `{"page":{"url":"HTTP://Demo:80/cancelled","title":"Membership cancelled"}}`, true,
			[]string{"Success verified"}},
		{"failure page that also says cancelled",
			`{"page":{"url":"http://demo/variants/not-cancelled","title":"Not cancelled"},
			"text":"We were unable to process your cancellation.",
			"elements":[{"ref":"@e1","role":"heading","name":"Your membership could not be cancelled","level":1}]}`, false,
			[]string{`Not acknowledged: failure indicators the page shows "could not"; the page shows "unable to" hold`, "http://demo/variants/not-cancelled"}},
		{"one failure indicator", `{"page":{"url":"http://demo/cancelled","title":"Cancelled"},"text":"We could not send the receipt."}`, false,
			[]string{`Not acknowledged: failure indicator the page shows "could not" holds`}},
		{"a failure indicator in a dialog", `{"page":{"url":"http://demo/cancelled","title":"Cancelled"},"dialog":{"type":"alert","message":"Unable to cancel"}}`, false,
			[]string{`failure indicator the page shows "unable to" holds`}},
		{"another origin echoing the word", `{"page":{"url":"https://evil.example/cancelled","title":"Membership cancelled"},
			"elements":[{"ref":"@e1","role":"heading","name":"Your membership has been cancelled","level":1}]}`, false,
			[]string{`Not acknowledged: the page is on https://evil.example, which profile "demo" does not allow (allowed: http://demo)`}},
		{"another port", `{"page":{"url":"http://demo:8080/cancelled","title":"Membership cancelled"}}`, false,
			[]string{"the page is on http://demo:8080, which"}},
		{"no page", ``, false, []string{`the page is on "" (no origin)`}},
		{"no success indicator", `{"page":{"url":"http://demo/finish","title":"Finish"}}`, false,
			[]string{`no success indicator holds`, `Expected: title contains "cancelled" or a heading whose name contains "cancelled".`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var page *snapshot.Snapshot
			if c.page != "" {
				page = snap(t, c.page)
			}
			ok, msg := g.Verify(page)
			if ok != c.ok {
				t.Errorf("Verify = %v (%s), want %v", ok, msg, c.ok)
			}
			for _, want := range c.msg {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}

// TestVerifyWithoutAllowedOrigins: a profile that lists no origins checks
// none.
func TestVerifyWithoutAllowedOrigins(t *testing.T) {
	p, err := ParseProfile([]byte(`{"name":"anywhere","success_indicators":[{"text_contains":"thank you"}],
		"failure_indicators":[{"dialog":{"type":"alert"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGate(p, nil, Options{})
	if ok, msg := g.Verify(snap(t, `{"page":{"url":"https://any.example/x","title":"Done"},"text":"Thank you!"}`)); !ok {
		t.Errorf("Verify = false (%s)", msg)
	}
	if ok, msg := g.Verify(snap(t, `{"page":{"url":"https://any.example/x","title":"Done"},"text":"Thank you!","dialog":{"type":"alert","message":"Payment declined"}}`)); ok ||
		!strings.Contains(msg, "failure indicator an alert dialog holds") {
		t.Errorf("Verify with an alert open = %v, %q", ok, msg)
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Shop.Example:443/checkout?x=1": "https://shop.example",
		"http://127.0.0.1:41234/account":        "http://127.0.0.1:41234",
		"http://[::1]:80/":                      "http://[::1]",
		"HTTPS://a.example:8443":                "https://a.example:8443",
	} {
		if got, err := Origin(in); err != nil || got != want {
			t.Errorf("Origin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "/relative", "demo:", "about:blank", "%zz"} {
		if got, err := Origin(in); err == nil {
			t.Errorf("Origin(%q) = %q, want an error", in, got)
		}
	}
}
