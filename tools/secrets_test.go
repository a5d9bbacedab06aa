package tools

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestSecretsAreTypedButNeverShown: a fill of {{API_KEY}} types the secret,
// and nothing the session outputs shows it: not the snapshots (whose page
// echoes it), the messages, the approval prompt, the audit log or the log.
func TestSecretsAreTypedButNeverShown(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-Zq7\"x9<secret>"
	var logs bytes.Buffer
	cfg := Config{Secrets: map[string]string{"API_KEY": secret, "OTHER": "unused-value"},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	g := openGated(t, "/variants/form", `{"name":"profile","checkpoints":[{"url_contains":"/variants/form"}]}`, true, cfg)
	var shown strings.Builder
	record := func(out Output) {
		b, err := json.Marshal(out.Value)
		if err != nil {
			t.Fatal(err)
		}
		shown.Write(b)
	}

	s := g.snap(false)
	user := browsertest.Labelled(t, s, "Username")
	out := g.call(toolapi.Fill, map[string]any{"ref": user, "value": "{{API_KEY}}"})
	record(out)
	r := out.Value.(toolapi.ActionResult)
	if !r.Success {
		t.Fatalf("fill: %s", r.Message)
	}
	var typed, security string
	g.eval(`document.querySelector('#username').value`, &typed)
	g.eval(`getComputedStyle(document.querySelector('#username')).webkitTextSecurity`, &security)
	if typed != secret {
		t.Fatalf("the field holds %q, want the secret", typed)
	}
	if security != "disc" {
		t.Errorf("the field that holds a secret is drawn as %q, want discs", security)
	}
	if e, ok := r.Snapshot.Labelled("Username"); !strings.Contains(r.Message, "{{API_KEY}}") || !ok || e.Value == nil || *e.Value != "{{API_KEY}}" {
		t.Errorf("the placeholder does not stand for the secret: message %q, element %+v", r.Message, e)
	}
	asked := g.person.Requests()
	if len(asked) != 1 || asked[0].Concrete == nil || asked[0].Concrete.Value != "{{API_KEY}}" || !asked[0].Concrete.Masked {
		t.Fatalf("the person was shown %+v, want the placeholder, masked", asked)
	}
	// The page echoes what was typed; the snapshot shows the placeholder.
	out = g.call(toolapi.GetSnapshot, map[string]any{"viewport_only": false})
	record(out)
	if text := out.Value.(*snapshot.Snapshot).Text; !strings.Contains(text, "username={{API_KEY}}") {
		t.Errorf("the page's echo of the secret is not shown as its placeholder: %q", text)
	}
	record(g.call(toolapi.RequestApproval, map[string]any{"action": "type it again", "reason": "x", "ref": user, "verb": "fill", "value": "{{API_KEY}}"}))
	record(g.call(toolapi.CompleteTask, map[string]any{"status": "failed", "reason": "done testing"}))

	// An unknown placeholder is refused, naming the known ones.
	out = g.call(toolapi.Fill, map[string]any{"ref": browsertest.Labelled(t, g.snap(false), "Username"), "value": "{{NOPE}}"})
	record(out)
	r = out.Value.(toolapi.ActionResult)
	wantError(t, r, toolapi.InvalidParams)
	if !strings.Contains(r.Message, "{{API_KEY}}") || !strings.Contains(r.Message, "{{OTHER}}") {
		t.Errorf("the refusal does not name the known secrets: %q", r.Message)
	}

	for what, text := range map[string]string{
		"results": shown.String(), "audit log": g.audit.String(), "log": logs.String(),
		"prompt": strings.Join(asked[0].Lines(), "\n"),
	} {
		if strings.Contains(text, secret) || strings.Contains(text, `sk-live-Zq7\"x9`) || strings.Contains(text, `\u003csecret\u003e`) {
			t.Errorf("the secret is in the %s:\n%s", what, text)
		}
	}
}

// TestPasswordFingerprint: what a person sees of a password tells two
// passwords apart, so that approving one does not approve another, and
// tells nothing of either.
func TestPasswordFingerprint(t *testing.T) {
	t.Parallel()
	s := newSecrets(map[string]string{"PW": "from-the-env"}, nil, nil)
	a, _ := s.value("hunter2", true)
	b, _ := s.value("hunter3", true)
	again, _ := s.value("hunter2", true)
	if !a.masked || a.shown == b.shown || a.shown != again.shown || strings.Contains(a.shown, "hunter") {
		t.Errorf("shown %q, %q, %q: want masked, different for different passwords, the same for the same", a.shown, b.shown, again.shown)
	}
	if elsewhere, _ := newSecrets(nil, nil, nil).value("hunter2", true); elsewhere.shown == a.shown {
		t.Error("the fingerprint does not depend on the session's key")
	}
	p, _ := s.value("{{PW}}", true)
	if p.text != "from-the-env" || p.shown != "{{PW}}" || !p.masked {
		t.Errorf("a secret typed into a password field: %+v", p)
	}
}

// TestRedactSnapshotEveryField hides a secret, URL-encoded, in every string
// an element of a snapshot carries that the page can choose (all but the
// server's own vocabulary), so that a field added later is not forgotten.
func TestRedactSnapshotEveryField(t *testing.T) {
	t.Parallel()
	const pw = "p@ss w0rd/Zq?9"
	enc := url.QueryEscape(pw)
	s := newSecrets(map[string]string{"PW": pw}, nil, nil)
	var e snapshot.Element
	ev := reflect.ValueOf(&e).Elem()
	vocabulary := []string{"Ref", "Role", "NameSource", "Kind"}
	for i := range ev.NumField() {
		if slices.Contains(vocabulary, ev.Type().Field(i).Name) {
			continue
		}
		switch f := ev.Field(i); f.Kind() {
		case reflect.String:
			f.SetString("x " + enc)
		case reflect.Pointer:
			if f.Type().Elem().Kind() == reflect.String {
				v := "x " + enc
				f.Set(reflect.ValueOf(&v))
			}
		}
	}
	snap := &snapshot.Snapshot{Elements: []snapshot.Element{e}, Page: snapshot.Page{URL: "https://x.test/?pw=" + enc, Title: "Results for " + pw},
		Text: "Results for " + strings.ToLower(enc), Notes: []string{enc}, Dialog: &snapshot.Dialog{Type: "alert", Message: pw}}
	s.redactSnapshot(snap)
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(data)), strings.ToLower(enc)) || strings.Contains(string(data), "p@ss") {
		t.Errorf("the snapshot still shows the secret: %s", data)
	}
}

// TestTypedPasswordLearnt hides a password typed in the open from then on,
// however the page gives it back; a very short one is not learnt.
func TestTypedPasswordLearnt(t *testing.T) {
	t.Parallel()
	s := newSecrets(nil, nil, nil)
	const pw = "Pin@ 42/Xy?"
	if got := s.redact(url.QueryEscape(pw)); got != url.QueryEscape(pw) {
		t.Fatalf("a password not typed yet is hidden: %q", got)
	}
	if _, err := s.value(pw, true); err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{pw, url.QueryEscape(pw), url.PathEscape(pw), strings.ToLower(url.QueryEscape(pw))} {
		if got := s.redact("https://x.test/r?pin=" + form); got != "https://x.test/r?pin="+maskedValue {
			t.Errorf("redact(%q) = %q", form, got)
		}
	}
	if texts := s.texts(); !slices.Contains(texts, pw) {
		t.Errorf("texts() = %q: the screenshot would show the password", texts)
	}
	if _, err := s.value("ab", true); err != nil {
		t.Fatal(err)
	}
	if got := s.redact("tab about"); got != "tab about" {
		t.Errorf("a two-letter password blanks text out: %q", got)
	}
	if _, err := s.value("not-a-password", false); err != nil {
		t.Fatal(err)
	}
	if got := s.redact("not-a-password"); got != "not-a-password" {
		t.Errorf("text typed into a field that is not a password is hidden: %q", got)
	}
}
