package checkpoint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestVerifyNeedsSuccessWithoutFailureOnAnAllowedOrigin: a claimed success is
// acknowledged only when a success indicator holds, no failure indicator
// does, and the page is on an origin the profile allows; the message names
// the rule that decided.
func TestVerifyNeedsSuccessWithoutFailureOnAnAllowedOrigin(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// judgedPage is a page as a judged capture gives it: text the agent's view
// holds (text), what of it a person sees (seen, in the page's document),
// and elements.
func judgedPage(url, title, text string, seen []snapshot.SeenText, els ...snapshot.Element) *snapshot.Snapshot {
	return &snapshot.Snapshot{Page: snapshot.Page{URL: url, Title: title}, Text: text, Elements: els,
		Seen: &snapshot.Seen{Text: seen}}
}

// TestVerifyCountsOnlyWhatAPersonSees: on a judged page a success indicator
// counts only on seen text and seen elements, in a document of an allowed
// origin, and not inside an echo of the agent's input; failure indicators
// count wherever they are.
func TestVerifyCountsOnlyWhatAPersonSees(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile([]byte(`{"name":"verdict","allowed_origins":["https://shop.example","https://pay.example"],
		"success_indicators":[{"text_contains":"Membership cancelled"},
			{"element":{"role":"heading","name_contains":"cancelled"}},
			{"all":[{"title_contains":"order placed"},{"not":{"text_contains":"pending"}}]}],
		"failure_indicators":[{"text_contains":"could not"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGate(p, nil, Options{})
	const page = "https://shop.example/account"
	seen := func(text, doc string) []snapshot.SeenText { return []snapshot.SeenText{{Text: text, Document: doc}} }
	heading := func(name, doc string, shown bool) snapshot.Element {
		e := snapshot.Element{Ref: "@e1", Role: "heading", Name: name, Seen: shown, Document: doc}
		if shown {
			e.SeenText = []string{name}
		}
		return e
	}
	cases := []struct {
		name  string
		page  *snapshot.Snapshot
		typed []string
		ok    bool
	}{
		{"seen text", judgedPage(page, "Account", "Membership cancelled", seen("Your Membership   cancelled today", page)), nil, true},
		{"text no person sees", judgedPage(page, "Account", "Membership cancelled", seen("Plan: Premium", page)), nil, false},
		{"seen heading", judgedPage(page, "Account", "", nil, heading("Your plan is cancelled", page, true)), nil, true},
		{"heading no person sees", judgedPage(page, "Account", "", nil, heading("Your plan is cancelled", page, false)), nil, false},
		{"a heading whose name is not drawn", judgedPage(page, "Account", "", nil,
			snapshot.Element{Ref: "@e1", Role: "heading", Name: "Your plan is cancelled", Seen: true, SeenText: []string{"Welcome"}, Document: page}), nil, false},
		{"a heading whose drawn text is split by hidden text", judgedPage(page, "Account", "", nil,
			snapshot.Element{Ref: "@e1", Role: "heading", Name: "Your plan is cancelled", Seen: true, SeenText: []string{"Your plan is", "cancelled"}, Document: page}), nil, true},
		{"a frame of an allowed origin", judgedPage(page, "Account", "", seen("Membership cancelled", "https://pay.example/status")), nil, true},
		{"a frame of another origin", judgedPage(page, "Account", "", seen("Membership cancelled", "https://evil.example/status")), nil, false},
		{"a heading in a frame of another origin", judgedPage(page, "Account", "", nil, heading("cancelled", "https://evil.example/x", true)), nil, false},
		{"echo of the query", judgedPage(page+"?q=membership+cancelled", "Search", "", seen("Results for membership cancelled", page+"?q=membership+cancelled")), nil, false},
		{"echo of a frame's query", judgedPage(page, "Search", "", seen("membership cancelled", "https://pay.example/s?q=Membership%20Cancelled")), nil, false},
		{"echo of the fragment", judgedPage(page+"#membership%20cancelled", "Help", "", seen("Membership cancelled", page+"#membership%20cancelled")), nil, false},
		{"echo of an escaped path segment", judgedPage("https://shop.example/search/membership%20cancelled", "Search", "",
			seen("membership cancelled", "https://shop.example/search/membership%20cancelled")), nil, false},
		{"a plain path segment is the site's own", judgedPage("https://shop.example/cancelled", "Done", "", nil,
			heading("Your membership has been cancelled", "https://shop.example/cancelled", true)), nil, true},
		{"echo of typed text", judgedPage(page, "Profile", "", seen("Membership cancelled", page)), []string{"membership  CANCELLED"}, false},
		{"typed text inside a longer echo", judgedPage(page, "Profile", "", seen("Hello, Membership cancelled by Ada", page)),
			[]string{"Membership cancelled by Ada"}, false},
		{"the page's own words beside what was typed", judgedPage(page, "Done", "", seen("Membership cancelled", page)),
			[]string{"Membership cancelled by Ada"}, true},
		{"the same words again, once the page's own", judgedPage(page, "Done", "",
			seen("You typed Membership cancelled by Ada. Membership cancelled.", page)), []string{"Membership cancelled by Ada"}, true},
		{"a failure no person sees", judgedPage(page, "Account", "We could not cancel", seen("Membership cancelled", page)), nil, false},
		{"not over text no person sees", judgedPage(page, "Order placed", "Payment pending", seen("Thank you", page)), nil, false},
		{"not over text that is nowhere", judgedPage(page, "Order placed", "Thank you", seen("Thank you", page)), nil, true},
		{"title echoing the query", judgedPage(page+"?q=order+placed", "Order placed - search", "", nil), nil, false},
	}
	urls, err := ParseProfile([]byte(`{"name":"urls","allowed_origins":["https://shop.example"],
		"success_indicators":[{"url_contains":"/order/confirmed"},{"url_matches":"/receipt/[0-9]+$"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, url string
		typed     []string
		ok        bool
	}{
		{"reached by the task", "https://shop.example/order/confirmed", []string{"https://shop.example/cart"}, true},
		{"a URL the agent wrote", "https://shop.example/order/confirmed", []string{"https://shop.example/order/confirmed?x=1"}, false},
		{"a receipt reached", "https://shop.example/receipt/42", nil, true},
		{"a receipt the agent wrote", "https://shop.example/receipt/42", []string{"https://shop.example/receipt/42"}, false},
	} {
		ok, msg := NewGate(urls, nil, Options{}).Verify(judgedPage(c.url, "Shop", "", nil), Evidence{Typed: c.typed})
		if ok != c.ok {
			t.Errorf("%s: Verify = %v (%s), want %v", c.name, ok, msg, c.ok)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := Evidence{Typed: c.typed}
			ok, msg := g.Verify(c.page, ev)
			if ok != c.ok {
				t.Errorf("Verify = %v (%s), want %v", ok, msg, c.ok)
			}
			var holds bool
			for _, in := range g.Evaluate(c.page, ev) {
				holds = holds || (in.Kind == "success" && in.Holds)
			}
			if failures := len(g.Failures(c.page)) > 0; holds != c.ok && !failures {
				t.Errorf("Evaluate says a success indicator holds: %v, Verify: %v", holds, ok)
			}
		})
	}
}

// TestVerifyJudgedWithoutAllowedOrigins: with no allowed origins listed,
// only the page's own origin may show the success.
func TestVerifyJudgedWithoutAllowedOrigins(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile([]byte(`{"name":"anywhere","success_indicators":[{"text_contains":"thank you"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGate(p, nil, Options{})
	const page = "https://any.example/x"
	for doc, want := range map[string]bool{"": true, page: true, "https://any.example:443/frame": true,
		"https://other.example/frame": false, "about:blank": false} {
		s := judgedPage(page, "Done", "", []snapshot.SeenText{{Text: "Thank you!", Document: doc}})
		if ok, msg := g.Verify(s); ok != want {
			t.Errorf("success in %q: Verify = %v (%s), want %v", doc, ok, msg, want)
		}
	}
}

// TestVerifyRefusalSaysWhy: a refusal on a page that holds the success only
// where it is no evidence says so.
func TestVerifyRefusalSaysWhy(t *testing.T) {
	t.Parallel()
	g := demoGate(t, nil, Options{})
	s := judgedPage("http://demo/account", "Account", "", nil,
		snapshot.Element{Ref: "@e1", Role: "heading", Name: "Your membership has been cancelled", Seen: false, Document: "http://demo/account"})
	ok, msg := g.Verify(s)
	if ok || !strings.Contains(msg, "only where no person sees it") {
		t.Errorf("Verify = %v, %q", ok, msg)
	}
}

// TestVerifyAsksForPixels: with a painted check, a success holds only where
// the check confirms the text nodes of the occurrence the rules let
// through: it is asked about exactly those nodes, never about an echo, and
// a refusal refuses. Text only CSS writes counts as a failure.
func TestVerifyAsksForPixels(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile([]byte(`{"name":"verdict",
		"success_indicators":[{"text_contains":"Membership cancelled"},{"element":{"role":"heading","name_contains":"cancelled"}}],
		"failure_indicators":[{"text_contains":"could not"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGate(p, nil, Options{})
	const page = "https://shop.example/account"
	// "Plan: Premium. Your Membership cancelled today" drawn by nodes 1 to 3.
	run := snapshot.SeenText{Text: "Plan: Premium. Your Membership cancelled today", Document: page, Parts: []snapshot.SeenPart{
		{Node: 1, From: 0, To: 14}, {Node: 2, From: 15, To: 30}, {Node: 3, From: 31, To: 46}}}
	type ask struct {
		nodes  []int64
		needle string
	}
	cases := []struct {
		name    string
		page    *snapshot.Snapshot
		typed   []string
		painted bool
		ok      bool
		asked   []ask
	}{
		{"painted", judgedPage(page, "Account", "", []snapshot.SeenText{run}), nil, true, true,
			[]ask{{[]int64{2, 3}, "Membership cancelled"}}},
		{"not painted", judgedPage(page, "Account", "", []snapshot.SeenText{run}), nil, false, false,
			[]ask{{[]int64{2, 3}, "Membership cancelled"}}},
		{"an echo is never asked about", judgedPage(page, "Profile", "", []snapshot.SeenText{run}),
			[]string{"Your membership cancelled"}, true, false, nil},
		{"a heading's own text", judgedPage(page, "Account", "", nil, snapshot.Element{Ref: "@e1", Role: "heading", Name: "Plan cancelled",
			Seen: true, SeenText: []string{"Plan cancelled"}, SeenParts: [][]snapshot.SeenPart{{{Node: 7, From: 0, To: 14}}}, Document: page}),
			nil, false, false, []ask{{[]int64{7}, "cancelled"}}},
		{"a failure in generated content", &snapshot.Snapshot{Page: snapshot.Page{URL: page}, Seen: &snapshot.Seen{
			Text: []snapshot.SeenText{run}, Drawn: []string{"We could not cancel. Plan: Premium."}}}, nil, true, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var asked []ask
			ev := Evidence{Typed: c.typed, Painted: func(nodes []int64, needle string, skip []string) bool {
				asked = append(asked, ask{nodes, needle})
				return c.painted
			}}
			if ok, msg := g.Verify(c.page, ev); ok != c.ok {
				t.Errorf("Verify = %v (%s), want %v", ok, msg, c.ok)
			}
			if fmt.Sprint(asked) != fmt.Sprint(c.asked) {
				t.Errorf("asked about %v, want %v", asked, c.asked)
			}
		})
	}
}

// TestNormaliseIndex: each byte of the normalised text points back at the
// byte of the original it comes from.
func TestNormaliseIndex(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"  Membership \t CANCELLED  ", "Ünïcode  ÄND more", "a\u00a0b", "", "İstanbul", "\xffbad"} {
		n, at := normaliseIndex(s)
		if want := strings.ToLower(strings.Join(strings.Fields(s), " ")); n != want {
			t.Errorf("normaliseIndex(%q) = %q, want %q", s, n, want)
		}
		if len(at) != len(n) {
			t.Fatalf("normaliseIndex(%q): %d offsets for %d bytes", s, len(at), len(n))
		}
		for i, o := range at {
			if o < 0 || o >= len(s) || (i > 0 && o < at[i-1]) {
				t.Errorf("normaliseIndex(%q): offset %d of byte %d out of order", s, o, i)
			}
		}
	}
}
