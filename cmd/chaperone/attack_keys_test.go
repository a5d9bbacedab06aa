package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// The gate judges what an input will activate, not the keystroke (issue 22,
// invariant 2): hostile pages of fixtures/site/hostile/keys-*.html, the
// built binary over stdio, the default policy, and the webhook approver, so
// that a test sees whether a person was asked.

// keysServe serves the fixture site and runs the binary on its page path
// (on 127.0.0.1; a cross-site frame comes from localhost), with args after.
func keysServe(t *testing.T, path string, args ...string) (*client.Client, *approvalHost) {
	t.Helper()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	c, host, _ := webhookServe(t, append([]string{"--url", site.URL + path}, args...)...)
	return c, host
}

// keysRefused runs an action the person must be asked about; the person
// says no. It fails the test when the action ran without asking, and
// returns what the person was shown and the result's snapshot.
func keysRefused(t *testing.T, c *client.Client, host *approvalHost, tool string, args map[string]any) (approver.WebhookPayload, *snapshot.Snapshot) {
	t.Helper()
	host.decisions <- map[string]any{"approved": false, "feedback": "not this"}
	r, s := keysAct(t, c, tool, args)
	if r.Success {
		t.Fatalf("%s %v ran without asking a person: %q", tool, args, r.Message)
	}
	if r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
		t.Fatalf("%s %v: error %v %q, want human_rejected", tool, args, r.Error, r.Message)
	}
	return host.asked(t), s
}

// keysAct calls an action tool and returns its result and the result's
// snapshot, checked against the schema. Unlike act it lets a result go
// without a screenshot, as one taken while a dialog is open does.
func keysAct(t *testing.T, c *client.Client, tool string, args map[string]any) (actionResult, *snapshot.Snapshot) {
	t.Helper()
	_, text := call(t, c, tool, args)
	var r actionResult
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	validateSnapshot(t, r.Snapshot)
	var s snapshot.Snapshot
	if err := json.Unmarshal(r.Snapshot, &s); err != nil {
		t.Fatal(err)
	}
	return r, &s
}

// keysAllowed runs an action no rule gates: it must succeed without
// asking.
func keysAllowed(t *testing.T, c *client.Client, host *approvalHost, tool string, args map[string]any) *snapshot.Snapshot {
	t.Helper()
	r, s := keysAct(t, c, tool, args)
	if !r.Success {
		t.Fatalf("%s %v: %v %q", tool, args, r.Error, r.Message)
	}
	host.notAsked(t)
	return s
}

// keysStatus returns the page's status line (#result) as the snapshot's
// text has it, failing when want is not in it.
func keysStatus(t *testing.T, s *snapshot.Snapshot, want string) {
	t.Helper()
	if !strings.Contains(s.Text, want) {
		t.Fatalf("the page does not say %q:\n%s", want, s.Text)
	}
}

// TestKeysModifiedActivationOnAGatedControl reverses issue 22's
// reproduction 2: Shift+Enter and Shift+Space on a gated "Place order"
// button clicked it without asking. Any modifiers, with a ref or on the
// focused element, and a checkbox made of a span are asked about too.
func TestKeysModifiedActivationOnAGatedControl(t *testing.T) {
	t.Parallel()
	c, host := keysServe(t, "/hostile/keys-checkout")
	s := getSnapshot(t, c)
	for _, key := range []string{"Shift+Enter", "Shift+Space", "Control+Enter", "Alt+Enter", "Meta+Space", "Control+Shift+Enter", "NumpadEnter", "\r"} {
		shown, after := keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": key, "ref": browsertest.Ref(t, s, "button", "Place order")})
		if shown.Concrete == nil || shown.Concrete.Name != "Place order" {
			t.Errorf("%s: the person was shown %+v", key, shown.Concrete)
		}
		keysStatus(t, after, "Nothing ordered")
		s = after
	}
	// Focused without a ref: the key goes to what has focus.
	keysAllowed(t, c, host, toolapi.PressKey, map[string]any{"key": "Tab", "ref": browsertest.Ref(t, s, "checkbox", "Subscribe to monthly deliveries")})
	_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "Shift+Enter"})
	keysStatus(t, s, "Nothing ordered")
	// A span styled as a checkbox, toggled by Space on key up.
	_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "Shift+Space", "ref": browsertest.Ref(t, s, "checkbox", "Subscribe to monthly deliveries")})
	keysStatus(t, s, "Nothing ordered")
	// Keys that activate nothing are not asked about.
	keysAllowed(t, c, host, toolapi.PressKey, map[string]any{"key": "Shift+Tab", "ref": browsertest.Ref(t, s, "button", "Place order")})
}

// TestKeysFollowFocusIntoACrossSiteFrame reverses issue 22's reproduction
// 2: with focus moved into a cross-site iframe by Tab, Enter (no ref)
// pressed the gated "Pay now" inside it without asking, since the gate
// judged the iframe element.
func TestKeysFollowFocusIntoACrossSiteFrame(t *testing.T) {
	t.Parallel()
	c, host := keysServe(t, "/hostile/keys-frame")
	s := getSnapshot(t, c)
	if _, ok := s.Find("button", "Pay now"); !ok {
		t.Fatalf("the frame's button is not in the snapshot:\n%s", s.Outline())
	}
	// Tab from the coupon field moves focus into the provider's frame, onto
	// its first control.
	s = keysAllowed(t, c, host, toolapi.PressKey, map[string]any{"key": "Tab", "ref": browsertest.Ref(t, s, "textbox", "Coupon")})
	// Focus crosses into another process through the browser: wait until
	// the page says it is there.
	deadline := time.Now().Add(20 * time.Second)
	for s.Focused == nil || *s.Focused != browsertest.Ref(t, s, "button", "Pay now") {
		if time.Now().After(deadline) {
			t.Fatalf("Tab did not move the focus onto the frame's Pay now:\n%s", s.Outline())
		}
		time.Sleep(50 * time.Millisecond)
		s = getSnapshot(t, c)
	}
	for _, key := range []string{"Enter", "Space", "Shift+Enter"} {
		shown, after := keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": key})
		if shown.Concrete == nil || shown.Concrete.Role != "button" || shown.Concrete.Name != "Pay now" {
			t.Errorf("%s: the person was shown %+v, want the frame's Pay now button", key, shown.Concrete)
		}
		keysStatus(t, after, "Not paid")
		s = after
	}
}

// TestKeysEnterSubmitsByTheDefaultButton reverses issue 22's reproduction
// 2: Enter in the "Amount" field of a form whose button is "Send money"
// submitted it without asking. Enter in another field of it, without a ref,
// and in a form with no button that submits on Enter are judged the same.
func TestKeysEnterSubmitsByTheDefaultButton(t *testing.T) {
	t.Parallel()
	c, host := keysServe(t, "/hostile/keys-transfer")
	s := getSnapshot(t, c)
	s = keysAllowed(t, c, host, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Amount"), "value": "900"})
	shown, s := keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(t, s, "textbox", "Amount")})
	if shown.Concrete == nil || shown.Concrete.Activates == nil || shown.Concrete.Activates.Name != "Send money" {
		t.Errorf("the person was shown %+v, want what Enter activates: Send money", shown.Concrete)
	}
	keysStatus(t, s, "No money moved")
	// Without a ref, on the field that has focus.
	keysAllowed(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Recipient")})
	_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "Shift+Enter"})
	keysStatus(t, s, "No money moved")
	// A form with one field and no button submits on Enter.
	s = keysAllowed(t, c, host, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Transfer amount to savings"), "value": "50"})
	_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(t, s, "textbox", "Transfer amount to savings")})
	keysStatus(t, s, "No money moved")
	// Keys that submit nothing are not asked about.
	keysAllowed(t, c, host, toolapi.PressKey, map[string]any{"key": "Tab", "ref": browsertest.Ref(t, s, "textbox", "Amount")})
}

// TestKeysShortcutOnAPageWithAGatedControl reverses issue 22's
// reproduction 2: Control+Enter in a compose box fired the page's send
// shortcut without asking. A chord with Control, Meta or Alt on a page
// that shows a gated control is asked about, and so is a plain key that
// only the page's handlers act on; text editing chords are not.
func TestKeysShortcutOnAPageWithAGatedControl(t *testing.T) {
	t.Parallel()
	c, host := keysServe(t, "/hostile/keys-compose")
	getSnapshot(t, c)
	// Nothing has focus: a plain key goes to the page's own handlers, and
	// "s" sends; Escape moves nothing anywhere.
	_, s := keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "s"})
	keysStatus(t, s, "Draft")
	s = keysAllowed(t, c, host, toolapi.PressKey, map[string]any{"key": "Escape"})
	// On a harmless button, a key that does not activate it is the page's.
	_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "s", "ref": browsertest.Ref(t, s, "button", "Discard")})
	keysStatus(t, s, "Draft")
	s = keysAllowed(t, c, host, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Message"), "value": "Hello all"})
	_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "Control+Enter", "ref": browsertest.Ref(t, s, "textbox", "Message")})
	keysStatus(t, s, "Draft")
	for _, key := range []string{"Meta+Enter", "Alt+s"} {
		_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": key})
		keysStatus(t, s, "Draft")
	}
	// Enter in a one-line field of no form: only a script acts on it.
	_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(t, s, "textbox", "Subject")})
	keysStatus(t, s, "Draft")
	// Select all, copy and undo edit text the same way on every page.
	for _, key := range []string{"Control+a", "Control+c", "Meta+z"} {
		s = keysAllowed(t, c, host, toolapi.PressKey, map[string]any{"key": key, "ref": browsertest.Ref(t, s, "textbox", "Message")})
	}
	keysStatus(t, s, "Draft")
}

// TestKeysHostedCardFields reverses issue 22's reproduction 7: a checkout
// whose card number lives in a cross-site iframe, as Stripe's and
// Braintree's hosted fields do, was submitted without asking. Enter in its
// email field is judged the same.
func TestKeysHostedCardFields(t *testing.T) {
	t.Parallel()
	c, host := keysServe(t, "/hostile/keys-hosted")
	s := getSnapshot(t, c)
	if _, ok := s.Find("textbox", "Card number"); !ok {
		t.Fatalf("the hosted card field is not in the snapshot:\n%s", s.Outline())
	}
	shown, s := keysRefused(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Continue")})
	if shown.Concrete == nil || !shown.Concrete.SubmitsPayment {
		t.Errorf("the person was shown %+v, want a submit of a payment form", shown.Concrete)
	}
	keysStatus(t, s, "Not submitted")
	_, s = keysRefused(t, c, host, toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(t, s, "textbox", "Email")})
	keysStatus(t, s, "Not submitted")
}

// TestKeysUploadIsJudgedAsItsClick reverses issue 22's reproduction 9:
// browser_upload on a "Place order" element that is not a file input
// clicked it without asking; and an upload approval showed only the file's
// base name, so that private/report.txt and public/report.txt looked the
// same. After an upload the server checks that the input holds the files
// given, which a page's change handler can swap.
func TestKeysUploadIsJudgedAsItsClick(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, sub := range []string{"private", "public"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "report.txt"), []byte(sub+" figures"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, host := keysServe(t, "/hostile/keys-upload", "--caps", "upload", "--upload-dir", dir)
	s := getSnapshot(t, c)
	target := browsertest.Ref(t, s, "button", "Place order")
	shown, s := keysRefused(t, c, host, toolapi.Upload, map[string]any{"ref": target, "paths": []string{"private/report.txt"}})
	keysStatus(t, s, "Nothing ordered")
	if want := filepath.Join(real, "private", "report.txt"); shown.Concrete == nil || !strings.Contains(shown.Concrete.Value, want) ||
		!strings.Contains(shown.Prompt+strings.Join(shown.Lines, "\n")+shown.Action, want) {
		t.Errorf("the person was shown %+v (%q), want the path %s", shown.Concrete, shown.Action, want)
	}
	// A file input the page rigs: what it holds is not what was approved.
	r, _ := keysAct(t, c, toolapi.Upload, map[string]any{"ref": browsertest.Ref(t, s, "button", "Attachment"), "paths": []string{"public/report.txt"}})
	host.notAsked(t)
	if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "payload.txt") {
		t.Errorf("an upload the page swapped: success %v error %v %q, want action_failed naming payload.txt", r.Success, r.Error, r.Message)
	}
}

// TestKeysDropIsJudgedByItsTarget reverses issue 22's reproduction 9:
// dragging onto a "Delete forever" drop zone was never gated, since the
// drop target was not judged. A drop onto an everyday zone is not asked
// about.
func TestKeysDropIsJudgedByItsTarget(t *testing.T) {
	t.Parallel()
	c, host := keysServe(t, "/hostile/keys-drop", "--caps", "drag")
	s := getSnapshot(t, c)
	shown, s := keysRefused(t, c, host, toolapi.Drag, map[string]any{
		"from_ref": browsertest.Ref(t, s, "listitem", "Family photos"), "to_ref": browsertest.Ref(t, s, "region", "Delete forever")})
	if shown.Concrete == nil || !strings.Contains(shown.Concrete.Value, "Delete forever") {
		t.Errorf("the person was shown %+v", shown.Concrete)
	}
	keysStatus(t, s, "Nothing moved")
	s = keysAllowed(t, c, host, toolapi.Drag, map[string]any{
		"from_ref": browsertest.Ref(t, s, "listitem", "Tax returns"), "to_ref": browsertest.Ref(t, s, "region", "Archive")})
	keysStatus(t, s, "Archived: Tax returns")
}

// TestKeysDialogIsJudgedByItsMessage reverses issue 22's reproduction 9: a
// confirm("Also charge $900 for insurance?") opened by an approved click
// was accepted without asking. Its OK is judged like a button saying the
// message; a harmless confirm's OK is not asked about.
func TestKeysDialogIsJudgedByItsMessage(t *testing.T) {
	t.Parallel()
	c, host := keysServe(t, "/hostile/keys-confirm")
	s := getSnapshot(t, c)
	host.decisions <- map[string]any{"approved": true}
	r, s := keysAct(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Place order")})
	if p := host.asked(t); p.Concrete == nil || p.Concrete.Name != "Place order" {
		t.Fatalf("the person was asked about %+v", p.Concrete)
	}
	if !r.Success || s.Dialog == nil || !strings.Contains(s.Dialog.Message, "Also charge $900") {
		t.Fatalf("the approved click: %v %q, dialog %+v", r.Error, r.Message, s.Dialog)
	}
	shown, s := keysRefused(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "OK")})
	if shown.Concrete == nil || shown.Concrete.Dialog == nil || !strings.Contains(shown.Concrete.Dialog.Message, "Also charge $900") {
		t.Errorf("the person was shown %+v", shown.Concrete)
	}
	if s.Dialog == nil {
		t.Fatalf("the refused OK closed the dialog:\n%s", s.Text)
	}
	s = keysAllowed(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Cancel")})
	keysStatus(t, s, "Order placed")
	if strings.Contains(s.Text, "insurance charged") {
		t.Fatalf("the insurance was charged:\n%s", s.Text)
	}
	s = keysAllowed(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Add gift wrap")})
	s = keysAllowed(t, c, host, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "OK")})
	keysStatus(t, s, "Gift wrap added")
}

// TestKeysLabelClickIsJudgedByItsControl: a click on a label activates the
// label's control, so a label dressed as a "Continue" button for a hidden
// one-click "Buy now" button is judged as a click on that button.
func TestKeysLabelClickIsJudgedByItsControl(t *testing.T) {
	t.Parallel()
	c, host := keysServe(t, "/hostile/keys-checkout")
	s := getSnapshot(t, c)
	var label string
	for _, e := range s.Elements {
		if e.Name == "Continue" {
			label = e.Ref
		}
	}
	if label == "" {
		t.Fatalf("the label is not in the snapshot:\n%s", s.Outline())
	}
	shown, s := keysRefused(t, c, host, toolapi.Click, map[string]any{"ref": label})
	if shown.Concrete == nil || shown.Concrete.Activates == nil || shown.Concrete.Activates.Name != "Buy now with one click" {
		t.Errorf("the person was shown %+v, want what the label activates", shown.Concrete)
	}
	keysStatus(t, s, "Nothing ordered")
}

// TestKeysEnterChangedOnItsKeydown: Enter in a search field is judged by
// what it submits, the "Search" button; the field's keydown then moved a
// gated "Place order" button into the form ahead of it, or sent the form
// to another site, and Enter placed the order, or sent the form there,
// though nobody was asked about either; so did a focus handler that moved
// the button as the field took focus for the key. What Enter submits is
// read again once the field has focus and once the keydown has run;
// changed, nothing more is pressed.
func TestKeysEnterChangedOnItsKeydown(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the form was sent to the other site: %s", r.URL)
		_, _ = w.Write([]byte("<!doctype html><title>Elsewhere</title><p>Received</p>"))
	}))
	t.Cleanup(other.Close)
	for _, trick := range []string{"swap", "action=" + other.URL + "/collect", "focus-swap"} {
		t.Run(strings.SplitN(trick, "=", 2)[0], func(t *testing.T) {
			t.Parallel()
			c, host := keysServe(t, "/hostile/keys-enter-swap?trick="+url.QueryEscape(trick))
			s := getSnapshot(t, c)
			s = keysAllowed(t, c, host, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Search orders"), "value": "espresso"})
			r, s := keysAct(t, c, toolapi.PressKey, map[string]any{"key": "Enter", "ref": browsertest.Ref(t, s, "textbox", "Search orders")})
			if r.Success {
				t.Errorf("Enter ran though its keydown changed what it submits: %q", r.Message)
			}
			keysStatus(t, s, "No order placed")
			if strings.Contains(s.Text, "Received") {
				t.Errorf("the page went to the other site:\n%s", s.Text)
			}
			host.notAsked(t)
		})
	}
}
