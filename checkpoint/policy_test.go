package checkpoint

import (
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

func defaultGate(t *testing.T) *Gate {
	t.Helper()
	p, err := LoadProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	return NewGate(p, nil, Options{})
}

// TestDefaultPolicyClicks runs the default policy over the buttons of the
// fixture site's everyday page: the ones a person would call irreversible or
// costly are gated, the everyday ones are not.
func TestDefaultPolicyClicks(t *testing.T) {
	t.Parallel()
	g := defaultGate(t)
	cases := map[string]string{ // button name → the rule that gates it, "" for none
		"Buy now":                 "buy",
		"Pay $20.00":              "pay",
		"Purchase gift card":      "purchase",
		"Book now":                "book",
		"Subscribe":               "subscribe",
		"Unsubscribe from emails": "unsubscribe",
		"Cancel subscription":     "cancel a subscription, membership or account",
		"Delete account":          "delete",
		"Remove account":          "remove an account",
		"Send message":            "send",
		"Transfer $500":           "transfer",
		"Send money":              "send",
		"Add to cart":             "",
		"Bookmarks":               "",
		"Compare plans":           "",
		"Remove from list":        "",
		"Save changes":            "",
		"Log out":                 "",
		"Save draft":              "",
		"Sender details":          "",
		"Cancel":                  "",
		"OK":                      "",
	}
	// Every button of the fixture page is in the table, and nothing else.
	page, err := os.ReadFile("../fixtures/site/variants/everyday.html")
	if err != nil {
		t.Fatal(err)
	}
	buttons := regexp.MustCompile(`<button[^>]*>([^<]*)</button>`).FindAllStringSubmatch(string(page), -1)
	if len(buttons) != len(cases) {
		t.Errorf("everyday.html has %d buttons, the table %d", len(buttons), len(cases))
	}
	for _, b := range buttons {
		if _, ok := cases[html.UnescapeString(b[1])]; !ok {
			t.Errorf("button %q of everyday.html is not in the table", b[1])
		}
	}

	more := map[string]string{ // elsewhere on the fixture site and beyond
		"Place order — $129":          "place an order",
		"Place your order":            "place an order",
		"Confirm payment":             "confirm payment",
		"Cancel Membership":           "cancel a subscription, membership or account",
		"Finish Cancellation":         "cancel a subscription, membership or account",
		"Delete item":                 "delete",
		"PAY NOW":                     "pay",
		"Buy":                         "buy",
		"Continue":                    "",
		"Go back":                     "",
		"Continue to Cancel":          "",
		"Keep my membership":          "",
		"Apply coupon":                "",
		"Pause membership":            "",
		"Payment methods":             "",
		"PayPal":                      "",
		"Buyer protection":            "",
		"Facebook":                    "",
		"Resend code":                 "",
		"Subscribed":                  "",
		"Remove Archive":              "",
		"Cancel order changes":        "",
		"Booking history":             "",
		"Transfers and payouts guide": "",
	}
	for name, rule := range more {
		cases[name] = rule
	}
	for name, want := range cases {
		for _, a := range []Action{
			{Verb: VerbClick, Node: 5, Role: "button", Name: name},
			{Verb: VerbClick, Node: 5, Role: "link", Name: name},
			// Enter on a focused button activates it as a click does.
			{Verb: VerbPress, Node: 5, Role: "button", Name: name, Value: "Enter"},
		} {
			got, ok := g.Gated(nil, a)
			if ok != (want != "") || got != want {
				t.Errorf("%s: gated by %q (%v), want %q", a, got, ok, want)
			}
		}
		// Typing into a field so named, or pressing another key there,
		// buys nothing.
		for _, a := range []Action{
			{Verb: VerbFill, Node: 6, Role: "textbox", Name: name, Value: "x"},
			{Verb: VerbPress, Node: 6, Role: "textbox", Name: name, Value: "Tab"},
		} {
			if rule, ok := g.Gated(nil, a); ok {
				t.Errorf("%s: gated by %q", a, rule)
			}
		}
	}
}

// TestDefaultPolicyPayments: fills into payment-card fields and the submit
// of a form holding one are gated; other fills and submits are not.
func TestDefaultPolicyPayments(t *testing.T) {
	t.Parallel()
	g := defaultGate(t)
	cases := []struct {
		name string
		a    Action
		want string
	}{
		{"card number by autocomplete", Action{Verb: VerbFill, Role: "textbox", Name: "Number", Value: "4242", Autocomplete: "cc-number"}, "payment card field"},
		{"autocomplete with a section", Action{Verb: VerbFill, Role: "textbox", Name: "x", Autocomplete: "section-pay billing CC-CSC"}, "payment card field"},
		{"cardholder name", Action{Verb: VerbFill, Role: "textbox", Name: "Name on card", Autocomplete: "cc-name"}, "payment card field"},
		{"card number by name", Action{Verb: VerbFill, Role: "textbox", Name: "Card", FieldName: "cardnumber"}, "payment card field"},
		{"card number by label", Action{Verb: VerbFill, Role: "textbox", Name: "Card", FieldName: "Card number"}, "payment card field"},
		{"cvc", Action{Verb: VerbFill, Role: "textbox", FieldName: "cvc"}, "payment card field"},
		{"security code", Action{Verb: VerbFill, Role: "textbox", FieldName: "Security code"}, "payment card field"},
		{"expiry by accessible name", Action{Verb: VerbFill, Role: "textbox", FieldName: "exp-date", Name: "Expiry (MM/YY)"}, "payment card field"},
		{"expiry by name", Action{Verb: VerbFill, Role: "textbox", FieldName: "expiry"}, "payment card field"},
		{"coupon", Action{Verb: VerbFill, Role: "textbox", Name: "Coupon", FieldName: "coupon", Autocomplete: "off"}, ""},
		{"email", Action{Verb: VerbFill, Role: "textbox", Name: "Email", FieldName: "email", Autocomplete: "email"}, ""},
		{"a click on a card field", Action{Verb: VerbClick, Role: "textbox", FieldName: "cardnumber", Autocomplete: "cc-number"}, ""},
		{"submit of a payment form", Action{Verb: VerbClick, Role: "button", Name: "Continue", SubmitsPayment: true}, "submit a payment form"},
		{"Enter that submits a payment form", Action{Verb: VerbPress, Role: "textbox", Name: "Card number", Value: "Enter", SubmitsPayment: true}, "submit a payment form"},
		{"submit of another form", Action{Verb: VerbClick, Role: "button", Name: "Continue"}, ""},
		{"a fill in a payment form", Action{Verb: VerbFill, Role: "textbox", Name: "Coupon", SubmitsPayment: true}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := g.Gated(nil, c.a)
			if ok != (c.want != "") || got != c.want {
				t.Errorf("%s: gated by %q (%v), want %q", c.a, got, ok, c.want)
			}
		})
	}
}

func TestIsPaymentField(t *testing.T) {
	t.Parallel()
	yes := [][2]string{
		{"cc-number", ""}, {"cc-exp-month", ""}, {"billing cc-csc", ""}, {"CC-NAME", ""},
		{"", "cardnumber"}, {"", "card_number"}, {"", "Card number"}, {"", "cc-num"}, {"", "ccnum"},
		{"", "CVC"}, {"", "cvv2"}, {"", "csc"}, {"", "Security code"}, {"", "security-code"},
		{"", "Expiry date"}, {"", "expiration"}, {"off", "cvc"},
	}
	no := [][2]string{
		{"", ""}, {"email", "email"}, {"off", "coupon"}, {"name", "Name"}, {"", "Card"},
		{"", "Gift card message"}, {"cc", "promo"}, {"acc-number", "account"},
	}
	for _, c := range yes {
		if !IsPaymentField(c[0], c[1]) {
			t.Errorf("IsPaymentField(%q, %q) = false, want true", c[0], c[1])
		}
	}
	for _, c := range no {
		if IsPaymentField(c[0], c[1]) {
			t.Errorf("IsPaymentField(%q, %q) = true, want false", c[0], c[1])
		}
	}
}

func TestDefaultProfile(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "default" || p.StartURL != "" || len(p.Checkpoints) != 0 || len(p.SuccessIndicators) != 0 ||
		len(p.FailureIndicators) != 0 || len(p.AllowedOrigins) != 0 || len(p.GatedActions) == 0 {
		t.Errorf("default profile = %+v; want gated_actions only", p)
	}
	data, _ := embedded.ReadFile("profiles/default.json")
	if err := validateAgainstSchema(t, resolvedSchema(t), data); err != nil {
		t.Errorf("default profile does not validate against the schema: %v", err)
	}
	g := NewGate(p, nil, Options{})
	if g.NeedsPage() {
		t.Error("NeedsPage with no page checkpoints")
	}
	if ok, msg := g.Verify(snap(t, `{"page":{"url":"https://shop.example/done","title":"Thanks"}}`)); !ok || !strings.Contains(msg, "not verified") {
		t.Errorf("Verify = %v, %q; want acknowledged but not verified", ok, msg)
	}
	if !demoGate(t, nil, Options{}).NeedsPage() {
		t.Error("the demo profile has page checkpoints, but NeedsPage is false")
	}
}

// TestGatedOnTheLivePage: a page checkpoint is judged on the page passed in
// (the fresh capture when the action runs), dialog included; a rule of
// gated_actions holds on any page.
func TestGatedOnTheLivePage(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile([]byte(`{"name":"shop","start_url":"https://shop.example/",
		"checkpoints":[{"name":"leaving checkout","dialog":{"type":"confirm","message_contains":"leave checkout"}},
			{"name":"final step","element":{"role":"heading","name_contains":"finish cancellation"}}],
		"gated_actions":[{"name":"big red button","verb":"click","role":"button","name_matches":"^launch$"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGate(p, nil, Options{})
	ok := Action{Verb: VerbClick, Role: "button", Name: "OK", Dialog: &snapshot.Dialog{Type: "confirm", Message: "Leave checkout?"}}
	before := snap(t, `{"page":{"url":"https://shop.example/checkout","title":"Checkout"}}`)
	during := snap(t, `{"page":{"url":"https://shop.example/checkout","title":"Checkout"},"dialog":{"type":"confirm","message":"Leave checkout?"}}`)
	if rule, gated := g.Gated(before, ok); gated {
		t.Errorf("gated before the dialog opened, by %q", rule)
	}
	if rule, gated := g.Gated(during, ok); !gated || rule != "leaving checkout" {
		t.Errorf("Gated while the dialog is open = %q, %v", rule, gated)
	}
	// A heading far below the fold is on the whole-page capture.
	cont := Action{Verb: VerbClick, Node: 2, Role: "button", Name: "Continue"}
	whole := snap(t, `{"page":{"url":"https://shop.example/spa","title":"Steps"},"viewport":{"width":800,"height":600},
		"elements":[{"ref":"@e1","role":"heading","name":"Finish cancellation","bbox":{"x":0,"y":2400,"width":300,"height":40}},
			{"ref":"@e2","role":"button","name":"Continue"}]}`)
	if rule, gated := g.Gated(whole, cont); !gated || rule != "final step" {
		t.Errorf("Gated on the whole page = %q, %v", rule, gated)
	}
	launch := Action{Verb: VerbClick, Node: 3, Role: "button", Name: "Launch"}
	if rule, gated := g.Gated(nil, launch); !gated || rule != "big red button" {
		t.Errorf("Gated(launch) = %q, %v", rule, gated)
	}
	if _, gated := g.Gated(nil, Action{Verb: VerbClick, Node: 3, Role: "link", Name: "Launch"}); gated {
		t.Error("the rule's role was ignored")
	}
	if !g.NeedsPage() {
		t.Error("NeedsPage false with page checkpoints")
	}
}

// TestDefaultPolicyJudgesWhatAnInputActivates: the default policy judges
// what a key, an upload, a drag or a dialog's OK will activate, not the
// keystroke or the verb (issue 22, invariant 2).
func TestDefaultPolicyJudgesWhatAnInputActivates(t *testing.T) {
	t.Parallel()
	g := defaultGate(t)
	placeOrder := &Control{Role: "button", Name: "Place order"}
	cases := []struct {
		name string
		a    Action
		want string
	}{
		// Enter and Space with any modifiers activate the control.
		{"Shift+Enter on a button", Action{Verb: VerbPress, Role: "button", Name: "Place order", Value: "Shift+Enter"}, "place an order"},
		{"Shift+Space on a button", Action{Verb: VerbPress, Role: "button", Name: "Place order", Value: "Shift+Space"}, "place an order"},
		{"Control+Enter on a button", Action{Verb: VerbPress, Role: "button", Name: "Delete forever", Value: "Control+Enter"}, "delete"},
		{"Alt+Enter on a link", Action{Verb: VerbPress, Role: "link", Name: "Buy now", Value: "Alt+Enter"}, "buy"},
		{"NumpadEnter on a button", Action{Verb: VerbPress, Role: "button", Name: "Send money", Value: "NumpadEnter"}, "send"},
		{"Space typed as a character", Action{Verb: VerbPress, Role: "checkbox", Name: "Subscribe to the plan", Value: " "}, "subscribe"},
		{"carriage return", Action{Verb: VerbPress, Role: "button", Name: "Pay now", Value: "\r"}, "pay"},
		{"Tab on a gated button", Action{Verb: VerbPress, Role: "button", Name: "Place order", Value: "Tab"}, ""},
		{"Shift+Tab on a gated button", Action{Verb: VerbPress, Role: "button", Name: "Place order", Value: "Shift+Tab"}, ""},
		// Enter in a field is judged by the default button it submits.
		{"Enter in a field submits by Send money", Action{Verb: VerbPress, Role: "textbox", Name: "Amount", Value: "Enter",
			Activates: &Control{Role: "button", Name: "Send money"}}, "send"},
		{"Enter in a field of a plain form", Action{Verb: VerbPress, Role: "textbox", Name: "Amount", Value: "Enter",
			Activates: &Control{Role: "button", Name: "Save"}}, ""},
		{"Enter in a field of a hosted payment form", Action{Verb: VerbPress, Role: "textbox", Name: "Email", Value: "Enter",
			Activates: &Control{Role: "button", Name: "Continue", SubmitsPayment: true}}, "submit a payment form"},
		{"Enter submits a button-less form by its text", Action{Verb: VerbPress, Role: "textbox", Name: "To", Value: "Enter",
			Activates: &Control{Role: "form", Name: "Transfer funds To"}}, "transfer"},
		// A shortcut on a page that shows a gated control.
		{"Control+Enter in a compose box", Action{Verb: VerbPress, Role: "textbox", Name: "Message", Value: "Control+Enter",
			Activates: &Control{Role: "button", Name: "Send"}}, "send"},
		// An upload that clicks, a drop, a dialog's OK.
		{"upload that clicks Place order", Action{Verb: VerbUpload, Role: "generic", Name: "Place order", Value: "/up/a.txt", Activates: placeOrder}, "place an order"},
		{"upload on a file input", Action{Verb: VerbUpload, Role: "button", Name: "Choose file", Value: "/up/a.txt"}, ""},
		{"drop onto Delete forever", Action{Verb: VerbDrag, Role: "listitem", Name: "Old photos", Value: `region "Delete forever"`,
			Activates: &Control{Role: "region", Name: "Delete forever"}}, "delete"},
		{"dragging Delete forever", Action{Verb: VerbDrag, Role: "button", Name: "Delete forever", Value: `region "Trash"`,
			Activates: &Control{Role: "region", Name: "Trash"}}, "delete"},
		{"a harmless drag", Action{Verb: VerbDrag, Role: "listitem", Name: "Write tests", Value: `listitem "Done"`,
			Activates: &Control{Role: "listitem", Name: "Done"}}, ""},
		{"OK of a confirm that charges", Action{Verb: VerbClick, Role: "button", Name: "OK", Dialog: &snapshot.Dialog{Type: "confirm", Message: "Also charge $900 for insurance?"},
			Activates: &Control{Role: "button", Name: "Also charge $900 for insurance?"}}, "charge"},
		{"OK of a harmless confirm", Action{Verb: VerbClick, Role: "button", Name: "OK", Dialog: &snapshot.Dialog{Type: "confirm", Message: "Leave this page?"},
			Activates: &Control{Role: "button", Name: "Leave this page?"}}, ""},
		// What is activated is judged as a click: a fill rule does not see it.
		{"a card-field rule does not read Activates", Action{Verb: VerbPress, Role: "textbox", Name: "Amount", Value: "Enter",
			Activates: &Control{Role: "textbox", Name: "Card number"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := g.Gated(nil, c.a)
			if ok != (c.want != "") || got != c.want {
				t.Errorf("%s: gated by %q (%v), want %q", c.a, got, ok, c.want)
			}
		})
	}
}

func TestActivationKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{
		"Enter": true, "enter": true, "Shift+Enter": true, "Control+Shift+Enter": true, "NumpadEnter": true,
		"Space": true, " ": true, "Shift+Space": true, "Meta+ ": true, "\r": true, "Return": true,
		"Tab": false, "Shift+Tab": false, "a": false, "Control+a": false, "+": false, "Control++": false, "": false,
		"Entertain": false,
	} {
		if got := ActivationKey(key); got != want {
			t.Errorf("ActivationKey(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestDefaultPolicyAccountChanges: issue 28's account-change rule gates a
// click, an Enter or a press that activates the submit of a form the
// browser read as changing the account; a fill in it, or another submit,
// is not gated by it. A profile may name the test, and only as a boolean.
func TestDefaultPolicyAccountChanges(t *testing.T) {
	t.Parallel()
	g := defaultGate(t)
	for _, c := range []struct {
		name string
		a    Action
		want string
	}{
		{"click on an icon submit", Action{Verb: VerbClick, Role: "button", Name: "check icon", SubmitsAccountChange: true}, "account-change"},
		{"Enter in its field", Action{Verb: VerbPress, Role: "textbox", Name: "New address", Value: "Enter", SubmitsAccountChange: true}, "account-change"},
		{"Shift+Enter on its submit", Action{Verb: VerbPress, Role: "button", Name: "Done", Value: "Shift+Enter", SubmitsAccountChange: true}, "account-change"},
		{"Enter that presses its default button", Action{Verb: VerbPress, Role: "textbox", Name: "Where?", Value: "Enter",
			Activates: &Control{Role: "button", Name: "Done", SubmitsAccountChange: true}}, "account-change"},
		{"a drag off its submit", Action{Verb: VerbDrag, Role: "button", Name: "Done", SubmitsAccountChange: true}, "account-change"},
		{"a fill in it", Action{Verb: VerbFill, Role: "textbox", Name: "New address", Value: "eve@example.com", SubmitsAccountChange: true}, ""},
		{"Tab in it", Action{Verb: VerbPress, Role: "textbox", Name: "New address", Value: "Tab", Field: true, SubmitsAccountChange: true}, ""},
		{"a sign-in's submit", Action{Verb: VerbClick, Role: "button", Name: "Sign in"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := g.Gated(nil, c.a)
			if ok != (c.want != "") || got != c.want {
				t.Errorf("%s: gated by %q (%v), want %q", c.a, got, ok, c.want)
			}
		})
	}
	if _, err := ParseProfile([]byte(`{"name":"p","gated_actions":[{"name":"x","submits_account_change":"yes"}]}`)); err == nil || !strings.Contains(err.Error(), "submits_account_change") {
		t.Errorf("a non-boolean submits_account_change: %v", err)
	}
	p, err := ParseProfile([]byte(`{"name":"p","gated_actions":[{"name":"mine","submits_account_change":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.GatedActions[0].Describe(); !strings.Contains(got, "changing an account's password, email or settings") {
		t.Errorf("Describe = %q", got)
	}
}
