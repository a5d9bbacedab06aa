package tools

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestAccountChangeRule is issue 28's account-change rule of the default
// policy: a submit of a form that sets a password, or edits the email,
// phone or user name of the account, asks a person, however the form
// words its purpose (or draws it as an icon); a sign-in, a search, a
// newsletter or a forgotten-password form does not. The browser reads the
// form as it is when the submit is judged: its fields (type, autocomplete,
// name, label, what was typed over the page's own value), its submit's
// name, its action and its page. Each case is a page of its own, at the
// path given; fill, when set, is typed into the field named first, as the
// agent would before submitting.
func TestAccountChangeRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, form string
		fill             [2]string // field name, value
		want             bool
		// noEnter: Enter in a field submits nothing here (no form), or
		// submits what the button does not (the button is a toggle).
		noEnter bool
	}{
		// Passwords set: a change, or a sign-up.
		{"new password, icon submit", "/security", `<form action="/pw"><input type="password" aria-label="Current" autocomplete="current-password"><input type="password" aria-label="New" autocomplete="new-password"><button class="icon-check"><svg aria-hidden="true" width="16" height="16"><path d="M0 0h16v16H0z"/></svg></button></form>`, [2]string{}, true, false},
		{"autocomplete=new-password alone, Continue", "/welcome", `<form action="/next"><input type="password" aria-label="Choose one" autocomplete="new-password"><button>Continue</button></form>`, [2]string{}, true, false},
		{"two password fields, no autocomplete, Apply", "/x", `<form action="/a"><input type="password" aria-label="One"><input type="password" aria-label="Two"><button>Apply</button></form>`, [2]string{}, true, false},
		{"a password drawn as discs in a text field", "/x", `<form action="/a"><input type="password" aria-label="Password"><input aria-label="Once more" style="-webkit-text-security:disc"><button>OK</button></form>`, [2]string{}, true, false},
		{"a password named repeat", "/x", `<form action="/a"><input type="password" name="pw_repeat" aria-label="Password"><button>Go</button></form>`, [2]string{}, true, false},
		{"says Log in, sets a new password", "/login", `<form action="/login"><input type="email" aria-label="Email"><input type="password" aria-label="Password" autocomplete="new-password"><button>Log in</button></form>`, [2]string{}, true, false},
		// Email, phone, user name edited.
		{"email in other words, typed over the page's value", "/u/7", `<form action="/u/7/r"><label>Where should we reach you? <input type="email" value="alice@example.com"></label><button>Done</button></form>`, [2]string{"Where should we reach you?", "eve@evil.example"}, true, false},
		{"email and current password, Update", "/me", `<form action="/me"><input type="email" aria-label="New address"><input type="password" aria-label="Password" autocomplete="current-password"><button>Update</button></form>`, [2]string{}, true, false},
		{"email on a settings page, icon submit", "/settings/email", `<form action="/e"><input type="email" aria-label="Address"><input type="password" aria-label="Password"><button aria-label="✓"></button></form>`, [2]string{}, true, false},
		{"phone, Save", "/x", `<form action="/p"><input type="tel" aria-label="Number"><button>Save</button></form>`, [2]string{}, true, false},
		{"user name by autocomplete, Rename", "/x", `<form action="/n"><input aria-label="Handle" autocomplete="username"><button>Rename</button></form>`, [2]string{}, true, false},
		{"email by name only, Confirm", "/x", `<form action="/c"><input name="user_email" aria-label="Address"><button>Confirm</button></form>`, [2]string{}, true, false},
		{"a profile of several fields", "/x", `<form action="/p"><input aria-label="Display name"><input type="email" aria-label="Email"><button>OK</button></form>`, [2]string{}, true, false},
		{"recovery phone in the action", "/x", `<form action="/account/recovery"><input name="mobile" aria-label="Mobile"><button>Next</button></form>`, [2]string{}, true, false},
		{"inputmode email, Update", "/x", `<form action="/c"><input inputmode="email" aria-label="Where to"><button>Update</button></form>`, [2]string{}, true, false},
		{"no form element: fields and a Save button in a card", "/x", `<div class="card"><input aria-label="Display name" value="Alice"><input type="email" aria-label="Email" value="alice@example.com"><button type="button">Save</button></div>`, [2]string{}, true, true},
		{"an icon sending the form by script", "/x", `<form action="/p" onsubmit="return false"><input aria-label="Display name"><input type="email" aria-label="Email"><div role="button" tabindex="0" class="icon-check" onclick="this.closest('form').requestSubmit()"></div></form>`, [2]string{}, true, false},
		{"email prefilled by script, icon submit, typed over", "/x", `<form action="/e"><input type="email" aria-label="Address"><button aria-label="✓"></button></form><script>document.querySelector('input').value = 'alice@example.com'</script>`, [2]string{"Address", "eve@evil.example"}, true, false},
		{"phone prefilled by script in no words, typed over", "/x", `<form action="/e"><input type="tel" aria-label="Reach"><button><svg aria-hidden="true" width="16" height="16"><path d="M0 0h16v16H0z"/></svg></button></form><script>document.querySelector('input').value = '+1 555 0100'</script>`, [2]string{"Reach", "+1 555 0199"}, true, false},
		{"Enter in a form-less field over the page's email", "/x", `<div class="card"><input type="email" aria-label="Address" value="alice@example.com"><button type="button" aria-label="✓"></button></div>`, [2]string{"Address", "eve@evil.example"}, true, false},
		{"Enter in a form-less field, a profile", "/x", `<div><div><input aria-label="Display name"></div><div><input type="email" aria-label="Email"></div><div><span role="button" tabindex="0">OK</span></div></div>`, [2]string{}, true, false},
		{"fields in a custom element's shadow root, Save beside it", "/x", `<div><x-fields></x-fields><button type="button">Save</button></div><script>customElements.define('x-fields', class extends HTMLElement { constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<input aria-label="Display name"><input type="email" aria-label="Email">'; } });</script>`, [2]string{}, true, false},
		{"a form whose fields are in a shadow root, icon submit", "/x", `<form action="/p"><x-fields></x-fields><button aria-label="✓"></button></form><script>customElements.define('x-fields', class extends HTMLElement { constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<input aria-label="Display name"><input type="email" aria-label="Email">'; } });</script>`, [2]string{}, true, false},
		{"email the page fills once the field is clicked, typed over", "/x", `<form action="/e"><input type="email" aria-label="Address" onclick="this.value ||= 'alice@example.com'"><button aria-label="✓"></button></form>`, [2]string{"click Address", "eve@evil.example"}, true, false},
		// Not account changes.
		{"email prefilled by script, unchanged", "/x", `<form action="/e"><input type="email" aria-label="Address"><button aria-label="✓"></button></form><script>document.querySelector('input').value = 'alice@example.com'</script>`, [2]string{}, false, false},
		{"Enter in a form-less search box", "/settings", `<div><input type="search" aria-label="Search settings"><button type="button" aria-label="🔍"></button></div>`, [2]string{}, false, false},
		{"Enter in a form-less newsletter box", "/", `<div><input type="email" aria-label="Email"><button type="button">Get updates</button></div>`, [2]string{}, false, false},
		{"a show-password toggle", "/x", `<form action="/p"><input type="password" aria-label="New" autocomplete="new-password"><button type="button">Show password</button></form>`, [2]string{}, false, true},
		{"a search button beside a search box, no form", "/settings", `<div><input type="search" aria-label="Search settings"><button type="button">Search</button></div>`, [2]string{}, false, true},
		{"sign-in", "/", `<form action="/login"><input type="email" aria-label="Email"><input type="password" aria-label="Password" autocomplete="current-password"><button>Sign in</button></form>`, [2]string{}, false, false},
		{"sign-in, icon submit, to /session", "/", `<form action="/session"><input aria-label="User" autocomplete="username"><input type="password" aria-label="Password"><button aria-label="→"></button></form>`, [2]string{}, false, false},
		{"sign-in in no words", "/", `<form action="/x"><input name="username" aria-label="User"><input type="password" aria-label="Password"><button>Go</button></form>`, [2]string{}, false, false},
		{"sign-in under /account/login, Continue", "/account/login", `<form><input type="email" aria-label="Email"><button>Continue</button></form>`, [2]string{}, false, false},
		{"newsletter", "/", `<form action="/news"><input type="email" aria-label="Email"><button>Get updates</button></form>`, [2]string{}, false, false},
		{"forgotten password", "/", `<form action="/forgot"><input type="email" aria-label="Email"><button>Reset password</button></form>`, [2]string{}, false, false},
		{"search", "/settings", `<form action="/search"><input type="search" aria-label="Search"><button>Search</button></form>`, [2]string{}, false, false},
		{"email unchanged from the page's", "/u/7", `<form action="/u/7/r"><label>Where should we reach you? <input type="email" value="alice@example.com"></label><button>Done</button></form>`, [2]string{}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			page := `<!doctype html><title>Account</title>` + tc.form
			base := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Write([]byte(page))
			}))
			h := open(t, "/")
			if r := h.act(toolapi.Navigate, map[string]any{"url": base + tc.path}); !r.Success {
				t.Fatalf("navigate: %s", r.Message)
			}
			if tc.fill[0] != "" {
				// "click NAME": the field is clicked before it is filled.
				name, clickFirst := strings.CutPrefix(tc.fill[0], "click ")
				s := h.snap(false)
				f, ok := s.Find("textbox", name)
				if !ok {
					t.Fatalf("no field %q:\n%s", name, s.Outline())
				}
				if clickFirst {
					r := h.act(toolapi.Click, map[string]any{"ref": f.Ref})
					if !r.Success {
						t.Fatalf("click: %s", r.Message)
					}
					if f, ok = r.Snapshot.Find("textbox", name); !ok {
						t.Fatalf("no field %q after the click", name)
					}
				}
				if r := h.act(toolapi.Fill, map[string]any{"ref": f.Ref, "value": tc.fill[1]}); !r.Success {
					t.Fatalf("fill: %s", r.Message)
				}
			}
			s := h.snap(false)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			whole, err := h.s.page(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			p, err := checkpoint.LoadProfile("default")
			if err != nil {
				t.Fatal(err)
			}
			gate := checkpoint.NewGate(p, nil, checkpoint.Options{})
			var button, field bool
			for _, e := range s.Elements {
				tg := h.s.live[e.Ref]
				insp, err := h.tab.Inspect(ctx, tg.BackendNodeID, true)
				if err != nil {
					t.Fatalf("inspect %s %q: %v", e.Role, e.Name, err)
				}
				switch {
				case e.Role == "button":
					button = true
					a := h.s.actionOn(checkpoint.VerbClick, tg, insp)
					rule, gated := gate.Gated(whole, a)
					if gated != tc.want || (gated && rule != "account-change") {
						t.Errorf("click %s %q: gated %v by %q, want account-change %v", e.Role, e.Name, gated, rule, tc.want)
					}
				case (e.Role == "textbox" || e.Role == "searchbox") && !tc.noEnter:
					// Enter in a field submits the form by its first
					// button: the same judgement.
					field = true
					if insp.EnterSubmitsAccountChange != tc.want {
						t.Errorf("Enter in %s %q submits an account change %v, want %v", e.Role, e.Name, insp.EnterSubmitsAccountChange, tc.want)
					}
				}
			}
			if !button || (!field && !tc.noEnter) {
				t.Errorf("the page's submit or field was not in the snapshot:\n%s", s.Outline())
			}
		})
	}
}
