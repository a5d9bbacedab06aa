package browser_test

import (
	"slices"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestPasswordFieldsRemembersShownPasswords: a field seen once as a
// password field is read again after the page turns it into a text field
// ("Show password") or takes it out of the document, and the page's own
// scripts cannot make the reader forget it; a text field never a password
// is not read.
func TestPasswordFieldsRemembersShownPasswords(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/hostile/takeover-password")
	values := func() []string {
		t.Helper()
		fields, err := tab.PasswordFields(testCtx(t))
		if err != nil {
			t.Logf("password fields: %v", err)
		}
		var out []string
		for _, f := range fields {
			out = append(out, f.Value)
		}
		return out
	}
	if got := values(); len(got) != 0 {
		t.Fatalf("empty fields read %q", got)
	}
	for _, step := range []struct{ name, script, want string }{
		{"shown as text", `pw.value = "Person-Secret-42!"; document.getElementById("show").click(); document.getElementById("user").value = "ada"`, "Person-Secret-42!"},
		{"the page clears what it can reach", `delete globalThis[Symbol.for("chaperone.passwordFields")]; pw.value = "Second-Secret-7"`, "Second-Secret-7"},
		{"swapped out of the document", `pw.value = "Third-Secret-9"; pw.replaceWith(Object.assign(document.createElement("input"), {id: "pw2"}))`, "Third-Secret-9"},
		{"a text field drawn as discs", `const d = Object.assign(document.createElement("input"), {value: "Fourth-Secret-1"}); d.style.webkitTextSecurity = "disc"; document.body.append(d)`, "Fourth-Secret-1"},
		{"a password's autocomplete", `document.body.append(Object.assign(document.createElement("input"), {value: "Fifth-Secret-2", autocomplete: "current-password"}))`, "Fifth-Secret-2"},
	} {
		if err := tab.Evaluate(testCtx(t), step.script+"; true", nil); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got := values()
		if !slices.Contains(got, step.want) {
			t.Errorf("%s: read %q, want %q among them", step.name, got, step.want)
		}
		if slices.Contains(got, "ada") {
			t.Errorf("%s: read the user name field, never a password field: %q", step.name, got)
		}
	}
}
