package tools

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestPaymentFieldsInStep keeps the browser's test for a form that holds a
// payment-card field (Inspection.SubmitsPayment) in step with the gate's
// test for a fill into one (checkpoint.IsPaymentField): for each field, the
// submit button of a form holding only that field submits a payment exactly
// when a fill into the field is a fill into a payment-card field.
func TestPaymentFieldsInStep(t *testing.T) {
	t.Parallel()
	fields := []string{
		`name="cardnumber"`, `name="card_num"`, `name="Card-Number"`, `name="ccnum"`, `name="cc-num"`,
		`name="cvc"`, `name="CVV2"`, `name="csc"`, `name="security_code"`, `id="securityCode"`,
		`name="expiry"`, `name="expiration"`, `name="exp"`, `name="coupon"`, `name="email"`, `name="cardholder"`,
		`aria-label="Card number"`, `aria-label="Promo code"`, `autocomplete="cc-number"`, `autocomplete="billing cc-exp"`,
		`autocomplete="email" name="cc_number"`, `autocomplete="off"`, `name="ccv"`, `name="discount_card"`,
	}
	var page strings.Builder
	page.WriteString(`<!doctype html><title>Fields</title>`)
	for i, f := range fields {
		fmt.Fprintf(&page, `<form><input %s><button>Go %d.</button></form>`, f, i)
	}
	page.WriteString(`<form><label>Card number <input></label><button>Go label</button></form>`)
	base := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page.String()))
	}))
	h := open(t, "/")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.tab.Navigate(ctx, base); err != nil {
		t.Fatal(err)
	}
	s := h.snap(false)
	for n, f := range append(fields, "label") {
		button := fmt.Sprintf("Go %d.", n)
		if f == "label" {
			button = "Go label"
		}
		b, ok := s.Find("button", button)
		if !ok {
			t.Fatalf("no button %q:\n%s", button, s.Outline())
		}
		i := slices.IndexFunc(s.Elements, func(e snapshot.Element) bool { return e.Ref == b.Ref })
		field := s.Elements[i-1]
		if field.Role != "textbox" {
			t.Fatalf("the element before %q is %s %q, not its field", button, field.Role, field.Name)
		}
		in, err := h.tab.Inspect(ctx, h.s.live[field.Ref].BackendNodeID, false)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := h.tab.Inspect(ctx, h.s.live[b.Ref].BackendNodeID, false)
		if err != nil {
			t.Fatal(err)
		}
		if gate := checkpoint.IsPaymentField(in.Autocomplete, in.FieldName); gate != sub.SubmitsPayment {
			t.Errorf("field %s (autocomplete %q, field name %q): the gate says payment field %v, the browser says its form submits a payment %v",
				html.UnescapeString(f), in.Autocomplete, in.FieldName, gate, sub.SubmitsPayment)
		}
	}
}
