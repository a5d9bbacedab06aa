package tools

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// TestSecretsAreTypedButNeverShown: a fill of {{API_KEY}} types the secret,
// and nothing the session outputs shows it: not the snapshots (whose page
// echoes it), the messages, the approval prompt, the audit log or the log.
func TestSecretsAreTypedButNeverShown(t *testing.T) {
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
	out := g.call(Fill, map[string]any{"ref": user, "value": "{{API_KEY}}"})
	record(out)
	r := out.Value.(ActionResult)
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
	out = g.call(GetSnapshot, map[string]any{"viewport_only": false})
	record(out)
	if text := out.Value.(*snapshot.Snapshot).Text; !strings.Contains(text, "username={{API_KEY}}") {
		t.Errorf("the page's echo of the secret is not shown as its placeholder: %q", text)
	}
	record(g.call(RequestApproval, map[string]any{"action": "type it again", "reason": "x", "ref": user, "verb": "fill", "value": "{{API_KEY}}"}))
	record(g.call(CompleteTask, map[string]any{"status": "failed", "reason": "done testing"}))

	// An unknown placeholder is refused, naming the known ones.
	out = g.call(Fill, map[string]any{"ref": browsertest.Labelled(t, g.snap(false), "Username"), "value": "{{NOPE}}"})
	record(out)
	r = out.Value.(ActionResult)
	wantError(t, r, InvalidParams)
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
	s := newSecrets(map[string]string{"PW": "from-the-env"})
	a, _ := s.value("hunter2", true)
	b, _ := s.value("hunter3", true)
	again, _ := s.value("hunter2", true)
	if !a.masked || a.shown == b.shown || a.shown != again.shown || strings.Contains(a.shown, "hunter") {
		t.Errorf("shown %q, %q, %q: want masked, different for different passwords, the same for the same", a.shown, b.shown, again.shown)
	}
	if elsewhere, _ := newSecrets(nil).value("hunter2", true); elsewhere.shown == a.shown {
		t.Error("the fingerprint does not depend on the session's key")
	}
	p, _ := s.value("{{PW}}", true)
	if p.text != "from-the-env" || p.shown != "{{PW}}" || !p.masked {
		t.Errorf("a secret typed into a password field: %+v", p)
	}
}
