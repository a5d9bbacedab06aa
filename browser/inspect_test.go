package browser_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// nodeOf returns the backend node id of the element with the role whose name
// contains name, in a whole-page snapshot of the tab.
func nodeOf(t *testing.T, tab *browser.Context, role, name string) int64 {
	t.Helper()
	s, table, _ := snapshot.Build(captureOf(t, tab, browser.CaptureOptions{}), snapshot.Options{}, 0)
	e, ok := s.Find(role, name)
	if !ok {
		t.Fatalf("no %s %q on %s:\n%s", role, name, s.Page.URL, s.Outline())
	}
	return table[e.Ref].BackendNodeID
}

func inspect(t *testing.T, tab *browser.Context, node int64, scroll bool) *browser.Inspection {
	t.Helper()
	in, err := tab.Inspect(testCtx(t), node, scroll)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestInspectPaymentFacts(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/variants/checkout")
	for _, tc := range []struct {
		role, name     string
		autocomplete   string
		fieldName      string
		submitsPayment bool
	}{
		{"textbox", "Card number", "cc-number", "cardnumber", false},
		{"textbox", "Security code", "cc-csc", "cvc", false},
		{"textbox", "Coupon code", "", "coupon", false},
		{"button", "Place order", "", "place-order", true},
		{"button", "Apply coupon", "", "apply-coupon", false},
		{"button", "Cancel", "", "cancel-checkout", false},
		{"link", "Back to account", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := inspect(t, tab, nodeOf(t, tab, tc.role, tc.name), true)
			if in.Autocomplete != tc.autocomplete || in.FieldName != tc.fieldName || in.SubmitsPayment != tc.submitsPayment {
				t.Errorf("autocomplete %q, field name %q, submits payment %v; want %q, %q, %v",
					in.Autocomplete, in.FieldName, in.SubmitsPayment, tc.autocomplete, tc.fieldName, tc.submitsPayment)
			}
		})
	}
}

func TestInspectFieldNameAndBox(t *testing.T) {
	t.Parallel()
	base := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Fields</title><style>body{margin:0}</style>
			<input name="n1" id="i1" aria-label="Named">
			<input id="i2" aria-label="By id">
			<input aria-label="Only aria">
			<label>Wrapped <input></label>
			<div style="height:3000px"></div>
			<form><input name="card_num"><button style="width:120px;height:30px">Pay</button></form>`))
	}))
	tab := browsertest.Tab(t)
	navigate(t, tab, base)
	for _, tc := range []struct{ name, want string }{
		{"Named", "n1"}, {"By id", "i2"}, {"Only aria", "Only aria"}, {"Wrapped", "Wrapped"},
	} {
		if got := inspect(t, tab, nodeOf(t, tab, "textbox", tc.name), false).FieldName; got != tc.want {
			t.Errorf("field name of %q = %q, want %q", tc.name, got, tc.want)
		}
	}
	// The button below the fold is scrolled into view; its box is where it
	// shows then, and a field named like a card number makes it submit a
	// payment.
	in := inspect(t, tab, nodeOf(t, tab, "button", "Pay"), true)
	if !in.SubmitsPayment {
		t.Error("a submit button of a form with a card_num field does not submit a payment")
	}
	if in.Box.Width != 120 || in.Box.Height != 30 || in.Box.Y < 0 || in.Box.Y+in.Box.Height > 800 {
		t.Errorf("box %+v is not the button's box in the viewport", in.Box)
	}
	if in.X < in.Box.X || in.X > in.Box.X+in.Box.Width || in.Y < in.Box.Y || in.Y > in.Box.Y+in.Box.Height {
		t.Errorf("click point %v,%v outside the box %+v", in.X, in.Y, in.Box)
	}
}

func TestPickOptionsDoesNotChoose(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/survey")
	node := nodeOf(t, tab, "combobox", "How long")
	for _, v := range []string{"1 to 3 years", "1to3", " 1 TO 3 YEARS "} {
		got, err := tab.PickOptions(testCtx(t), node, []string{v}, false)
		if err != nil || len(got) != 1 || got[0] != (browser.Selection{Value: "1to3", Text: "1 to 3 years"}) {
			t.Errorf("PickOption(%q) = %+v, %v", v, got, err)
		}
	}
	var value string
	if err := tab.Evaluate(testCtx(t), `document.querySelector('#tenure').value`, &value); err != nil || value != "" {
		t.Fatalf("PickOption chose: the select holds %q (%v)", value, err)
	}
	if _, err := tab.PickOptions(testCtx(t), node, []string{"forever"}, false); !errors.Is(err, browser.ErrNoOption) {
		t.Errorf("PickOption of no option: %v, want ErrNoOption", err)
	}
	if _, err := tab.PickOptions(testCtx(t), node, []string{"1to3"}, true); !errors.Is(err, browser.ErrOneOption) {
		t.Errorf("PickOptions of a list on a single select: %v, want ErrOneOption", err)
	}
	picked, err := tab.Select(testCtx(t), node, []string{"1 to 3 years"}, false, nil)
	if err != nil || len(picked) != 1 || picked[0].Value != "1to3" {
		t.Fatalf("Select = %+v, %v", picked, err)
	}
}

func TestMaskText(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/variants/checkout")
	node := nodeOf(t, tab, "textbox", "Coupon code")
	if _, err := tab.Type(testCtx(t), node, "s3cr3t", true); err != nil {
		t.Fatal(err)
	}
	if err := tab.MaskText(testCtx(t), node); err != nil {
		t.Fatal(err)
	}
	var got struct{ Security, Value string }
	err := tab.Evaluate(testCtx(t), `(() => { const e = document.querySelector('#coupon');
		return {Security: getComputedStyle(e).webkitTextSecurity, Value: e.value}; })()`, &got)
	if err != nil || got.Security != "disc" || got.Value != "s3cr3t" {
		t.Fatalf("after MaskText: %+v (%v); want the text drawn as discs and the value kept", got, err)
	}
}
