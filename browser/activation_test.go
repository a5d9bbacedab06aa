package browser_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// keysNode returns the backend node id of the element role name on the page
// now, in any frame.
func keysNode(t *testing.T, tab *browser.Context, role, name string) int64 {
	t.Helper()
	s, table, _ := snapshot.Build(captureOf(t, tab, browser.CaptureOptions{}), snapshot.Options{}, 1)
	return table[browsertest.Ref(t, s, role, name)].BackendNodeID
}

// TestFocusedFollowsIntoFrames: the focused element is found in the deepest
// frame, whether the frame is another site's (its own process) or another
// origin of the same site (the page's process, which page scripts cannot
// read into).
func TestFocusedFollowsIntoFrames(t *testing.T) {
	t.Parallel()
	t.Run("cross-site", func(t *testing.T) {
		tab := payPage(t)
		node := keysNode(t, tab, "textbox", "Card number")
		if node>>32 == 0 {
			t.Fatalf("the card field %d is not in an out-of-process frame", node)
		}
		if err := tab.Focus(testCtx(t), node); err != nil {
			t.Fatal(err)
		}
		got, err := tab.Focused(testCtx(t))
		if err != nil || got != node {
			t.Fatalf("Focused = %d, %v; want the card field %d", got, err, node)
		}
	})
	t.Run("same site, other origin", func(t *testing.T) {
		inner := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `<!doctype html><title>Inner</title><label>Code <input id="code"></label>`)
		}))
		outer := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<!doctype html><title>Outer</title><label>Name <input id="name"></label><iframe title="Inner" src="%s/"></iframe>`, inner)
		}))
		tab := browsertest.Tab(t)
		navigate(t, tab, outer+"/")
		node := keysNode(t, tab, "textbox", "Code")
		if err := tab.Focus(testCtx(t), node); err != nil {
			t.Fatal(err)
		}
		got, err := tab.Focused(testCtx(t))
		if err != nil || got != node {
			t.Fatalf("Focused = %d, %v; want the frame's field %d", got, err, node)
		}
	})
}

// TestEnterActivates: Enter in a field activates the form's default button,
// or a button-less form with one field; in a text area, nothing.
func TestEnterActivates(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	site := browsertest.Site(t)
	navigate(t, tab, site+"/hostile/keys-transfer")
	for _, tc := range []struct {
		field, role, name string
	}{
		{"Amount", "button", "Send money"},
		{"Recipient", "button", "Send money"},
		{"Transfer amount to savings", "form", "Transfer amount to savings"},
	} {
		a, err := tab.EnterActivates(testCtx(t), keysNode(t, tab, "textbox", tc.field))
		if err != nil || a == nil || a.Role != tc.role || a.Name != tc.name {
			t.Errorf("Enter in %s activates %+v, %v; want %s %q", tc.field, a, err, tc.role, tc.name)
		}
	}
	navigate(t, tab, site+"/hostile/keys-compose")
	if a, err := tab.EnterActivates(testCtx(t), keysNode(t, tab, "textbox", "Message")); err != nil || a != nil {
		t.Errorf("Enter in a text area activates %+v, %v; want nothing", a, err)
	}
	if a, err := tab.EnterActivates(testCtx(t), keysNode(t, tab, "textbox", "To")); err != nil || a != nil {
		t.Errorf("Enter in a field of no form activates %+v, %v; want nothing", a, err)
	}
}

// TestHostedCardFieldsMakeAPaymentForm: a submit on a page whose card field
// lives in a cross-site frame submits a payment; a form on a page with no
// card field does not.
func TestHostedCardFieldsMakeAPaymentForm(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	site := browsertest.Site(t)
	navigate(t, tab, site+"/hostile/keys-hosted")
	keysNode(t, tab, "textbox", "Card number") // the frame is there
	for _, tc := range []struct {
		role, name string
	}{{"button", "Continue"}, {"textbox", "Email"}} {
		in, err := tab.Inspect(testCtx(t), keysNode(t, tab, tc.role, tc.name), false)
		if err != nil {
			t.Fatal(err)
		}
		if !in.EnterSubmitsPayment || in.SubmitsPayment != (tc.role == "button") {
			t.Errorf("%s %q: submits payment %v, by Enter %v", tc.role, tc.name, in.SubmitsPayment, in.EnterSubmitsPayment)
		}
	}
	navigate(t, tab, site+"/hostile/keys-transfer")
	in, err := tab.Inspect(testCtx(t), keysNode(t, tab, "button", "Send money"), false)
	if err != nil {
		t.Fatal(err)
	}
	if in.SubmitsPayment || in.EnterSubmitsPayment {
		t.Errorf("a transfer form with no card field submits a payment: %+v", in)
	}
}
