package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/internal/totp"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestTOTPCodeCurrentWhenTyped: {{OTP}} types the code of the time step the
// typing happens in, never the one of when the fill was planned or shown to
// a person (who may take minutes), and waits for the next step when less
// than a third of the period is left, so the code is still good when the
// form is sent. Nothing the agent reads holds a code or the key, though the
// page shows the key and, once sent, the code in its URL and text.
func TestTOTPCodeCurrentWhenTyped(t *testing.T) {
	t.Parallel()
	key, err := totp.Parse(fixtures.TOTPKey)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1_800_000_000, 0) // a time step's start
	for _, tc := range []struct {
		name     string
		at       time.Duration // into the step when the fill is called
		person   time.Duration // how long the person takes to approve; 0: nobody is asked
		wantStep int           // steps after base of the code typed
		wantWait time.Duration
	}{
		{"early in its step", 5 * time.Second, 0, 0, 0},
		{"a third left", 20 * time.Second, 0, 0, 0},
		{"near the step's end: the next code", 25 * time.Second, 0, 1, 5 * time.Second},
		{"last second", 29*time.Second + 900*time.Millisecond, 0, 1, 100 * time.Millisecond},
		{"a person approves for two minutes", 5 * time.Second, 2 * time.Minute, 4, 0},
		{"approved near the end of a later step", 5 * time.Second, 2*time.Minute + 20*time.Second, 5, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			h := openWith(t, "/variants/signin-totp", Config{TOTP: map[string]totp.Key{"OTP": key},
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			clock := &fakeClock{t: base.Add(tc.at)} // polite_test.go
			h.s.secrets.clock, h.s.secrets.sleep = clock.now, clock.sleep
			asked := 0
			if tc.person > 0 {
				p, err := checkpoint.ParseProfile([]byte(`{"name":"otp","checkpoints":[{"url_contains":"/variants/signin-totp"}]}`))
				if err != nil {
					t.Fatal(err)
				}
				person := checkpoint.ApproverFunc(func(_ context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
					if r.Concrete != nil && r.Concrete.Verb == checkpoint.VerbClick {
						return checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY}, nil // Verify
					}
					asked++
					if r.Concrete == nil || r.Concrete.Value != "{{OTP}}" || !r.Concrete.Masked {
						t.Errorf("the person was shown %+v, want {{OTP}}, masked", r.Concrete)
					}
					clock.t = clock.t.Add(tc.person)
					return checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelTTY}, nil
				})
				WithGate(checkpoint.NewGate(p, person, checkpoint.Options{}))(h.s)
			}
			var shown strings.Builder
			record := func(out Output) {
				b, err := json.Marshal(out.Value)
				if err != nil {
					t.Fatal(err)
				}
				shown.Write(b)
			}
			s := h.snap(false)
			if !strings.Contains(s.Text, "{{OTP}}") {
				t.Errorf("the key the page shows is not hidden as {{OTP}}:\n%s", s.Text)
			}
			out := h.call(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Authentication code"), "value": "{{OTP}}"})
			record(out)
			r := out.Value.(toolapi.ActionResult)
			if !r.Success {
				t.Fatalf("fill: %s", r.Message)
			}
			want := key.Code(base.Add(time.Duration(tc.wantStep) * key.Period()))
			if got := h.evalString(`document.querySelector('#otp').value`); got != want {
				t.Errorf("the field holds %q, want %q, the code of step +%d", got, want, tc.wantStep)
			}
			var waited time.Duration
			for _, w := range clock.slept {
				waited += w
			}
			if waited != tc.wantWait {
				t.Errorf("waited %s for a fresh code, want %s", waited, tc.wantWait)
			}
			if (tc.person > 0) != (asked == 1) {
				t.Errorf("the person was asked %d times", asked)
			}
			if !strings.Contains(r.Message, `"{{OTP}}"`) || !strings.Contains(r.Message, "one-time code") {
				t.Errorf("the message does not say a one-time code was typed: %q", r.Message)
			}
			// Sent, the code is in the next page's URL and text.
			s = r.Snapshot
			r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Verify")})
			record(h.call(toolapi.GetSnapshot, map[string]any{"viewport_only": false}))
			if !strings.Contains(r.Snapshot.Page.URL, "code={{OTP}}") || !strings.Contains(r.Snapshot.Text, "code {{OTP}}") {
				t.Errorf("the code sent is not hidden as {{OTP}}: %s\n%s", r.Snapshot.Page.URL, r.Snapshot.Text)
			}
			record(out)
			for what, text := range map[string]string{"results": shown.String(), "log": logs.String()} {
				for _, secret := range []string{want, fixtures.TOTPKey, "mnug c4df", strings.ToLower(fixtures.TOTPKey)} {
					if strings.Contains(text, secret) {
						t.Errorf("the %s hold %q", what, secret)
					}
				}
			}
		})
	}
}

// TestTOTPWaitEndsWithTheCall: a wait for a fresh code ends with the call
// (a takeover, a client that went away), and nothing is typed.
func TestTOTPWaitEndsWithTheCall(t *testing.T) {
	t.Parallel()
	key, err := totp.Parse(fixtures.TOTPKey)
	if err != nil {
		t.Fatal(err)
	}
	h := openWith(t, "/variants/signin-totp", Config{TOTP: map[string]totp.Key{"OTP": key}})
	clock := &fakeClock{t: time.Unix(1_800_000_028, 0), cancel: true}
	h.s.secrets.clock, h.s.secrets.sleep = clock.now, clock.sleep
	r := h.act(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, h.snap(false), "textbox", "Authentication code"), "value": "{{OTP}}"})
	if r.Success {
		t.Fatalf("the fill went on after its wait was cut short: %s", r.Message)
	}
	if got := h.evalString(`document.querySelector('#otp').value`); got != "" {
		t.Errorf("the field holds %q, want nothing typed", got)
	}
	// An unknown name is refused naming the codes the session knows.
	r = h.act(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, h.snap(false), "textbox", "Authentication code"), "value": "{{OTPX}}"})
	wantError(t, r, toolapi.InvalidParams)
	if !strings.Contains(r.Message, "{{OTP}} (a one-time code)") {
		t.Errorf("the refusal does not name the known codes: %q", r.Message)
	}
}

// TestTOTPIntoPrompt: a code filled into a JavaScript prompt is made when
// OK sends it, not when it was filled, and the page's echo of it shows
// {{OTP}}.
func TestTOTPIntoPrompt(t *testing.T) {
	t.Parallel()
	key, err := totp.Parse(fixtures.TOTPKey)
	if err != nil {
		t.Fatal(err)
	}
	h := openWith(t, "/variants/dialogs", Config{TOTP: map[string]totp.Key{"OTP": key}})
	base := time.Unix(1_800_000_000, 0)
	clock := &fakeClock{t: base.Add(5 * time.Second)} // polite_test.go
	h.s.secrets.clock, h.s.secrets.sleep = clock.now, clock.sleep
	r := h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, h.snap(true), "button", "Set name")})
	r = h.ok(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "textbox", ""), "value": "{{OTP}}"})
	clock.t = clock.t.Add(time.Minute) // the agent takes a minute to click OK
	r = h.ok(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, r.Snapshot, "button", "OK")})
	want := key.Code(base.Add(time.Minute))
	if got := h.evalString(`document.querySelector('#prompt-result').textContent`); got != want {
		t.Errorf("the page got %q, want %q, the code when OK was clicked", got, want)
	}
	if s := h.snap(false); strings.Contains(s.Text, want) || !strings.Contains(s.Text, "{{OTP}}") {
		t.Errorf("the page's echo of the code is not hidden as {{OTP}}:\n%s", s.Text)
	}
}

// TestTOTPCodeHiddenInItsForms: a code, once made, and the key are hidden
// in what a page makes of them (internal/redact), as a --secret is; a code
// never made is not, since nothing typed it.
func TestTOTPCodeHiddenInItsForms(t *testing.T) {
	t.Parallel()
	key, err := totp.Parse("otpauth://totp/StreamFlix:alice?secret=" + strings.ToLower(fixtures.TOTPKey))
	if err != nil {
		t.Fatal(err)
	}
	s := newSecrets(nil, map[string]totp.Key{"OTP": key}, nil)
	at := time.Unix(1_800_000_005, 0)
	s.clock = func() time.Time { return at }
	text, found, err := s.expand("{{OTP}}")
	if err != nil || !found || text != key.Code(at) {
		t.Fatalf("expand = %q, %v, %v; want the code %s", text, found, err, key.Code(at))
	}
	code := text
	spaced := code[:3] + " " + code[3:]
	reversed := string([]byte{code[5], code[4], code[3], code[2], code[1], code[0]})
	fullWidth := strings.Map(func(r rune) rune { return r - '0' + '０' }, code)
	for _, shown := range []string{
		"Your code " + code + " was accepted",
		"code=" + code + "&next=%2F",
		"Code: " + spaced,
		"edoc " + reversed,
		"全角 " + fullWidth,
		"mnug c4df ojxw 4zjn mzux q5dv ojss 2mtg",
		fixtures.TOTPKey + "====",
		"otpauth%3A%2F%2Ftotp%2FStreamFlix%3Aalice%3Fsecret%3D" + fixtures.TOTPKey,
		"key 6368617065726f6e652d666978747572652d3266", // the key's bytes in hex
		"chaperone-fixture-2f", // and as text
	} {
		got := s.redact(shown)
		for _, leak := range []string{code, spaced, reversed, fullWidth, "MNUGC4DF", "mnug", "6368617065726f6e652d666978747572652d3266", "chaperone-fixture"} {
			if strings.Contains(strings.ToUpper(got), strings.ToUpper(leak)) {
				t.Errorf("redact(%q) = %q, which still holds %q", shown, got, leak)
			}
		}
	}
	// The next step's code was never typed: it is just a number.
	if next := key.Code(at.Add(30 * time.Second)); s.redact(next) != next {
		t.Errorf("a code never typed is hidden: %q", s.redact(next))
	}
}

// TestTOTPCodeSplitOverBoxes: a page that spreads the code it was typed
// over six one-digit boxes (as sign-in pages do) shows the agent no digit
// of it in the boxes' values, though no box alone holds the code; boxes of
// a code never typed keep their digits.
func TestTOTPCodeSplitOverBoxes(t *testing.T) {
	t.Parallel()
	key, err := totp.Parse(fixtures.TOTPKey)
	if err != nil {
		t.Fatal(err)
	}
	s := newSecrets(nil, map[string]totp.Key{"OTP": key}, nil)
	at := time.Unix(1_800_000_005, 0)
	s.clock = func() time.Time { return at }
	code, _, err := s.expand("{{OTP}}")
	if err != nil {
		t.Fatal(err)
	}
	boxes := func(digits string, between bool) *snapshot.Snapshot {
		snap := &snapshot.Snapshot{}
		for i, d := range digits {
			v := string(d)
			snap.Elements = append(snap.Elements, snapshot.Element{Ref: fmt.Sprintf("e%d", 2*i), Role: "textbox", Name: fmt.Sprintf("Digit %d", i+1), Value: &v})
			if between {
				snap.Elements = append(snap.Elements, snapshot.Element{Ref: fmt.Sprintf("e%d", 2*i+1), Role: "button", Name: "Paste"})
			}
		}
		return snap
	}
	values := func(snap *snapshot.Snapshot) string {
		var b strings.Builder
		for _, e := range snap.Elements {
			if e.Value != nil {
				b.WriteString(*e.Value)
			}
		}
		return b.String()
	}
	for _, between := range []bool{false, true} {
		snap := boxes(code, between)
		s.redactSnapshot(snap)
		if got := values(snap); strings.ContainsAny(got, "0123456789") {
			t.Errorf("the boxes (buttons between: %v) still show digits of the code %s: %q", between, code, got)
		}
	}
	next := key.Code(at.Add(30 * time.Second))
	if snap := boxes(next, false); values(snap) != next {
		t.Fatal("test setup")
	} else if s.redactSnapshot(snap); values(snap) != next {
		t.Errorf("boxes of a code never typed lost their digits: %q", values(snap))
	}
}

// TestTOTPCodeBoxesInTheBrowser: a sign-in page moves the code typed into
// its field over six one-digit boxes; neither the snapshot's boxes nor
// browser_extract of them, as six fields of one item or as six items,
// shows the agent a digit of it.
func TestTOTPCodeBoxesInTheBrowser(t *testing.T) {
	t.Parallel()
	key, err := totp.Parse(fixtures.TOTPKey)
	if err != nil {
		t.Fatal(err)
	}
	const page = `<!doctype html><title>Two-step</title><label>Code <input id="c"></label>
<div id="boxes"><span class="box"><input aria-label="Digit 1"></span><span class="box"><input aria-label="Digit 2"></span><span class="box"><input aria-label="Digit 3"></span><span class="box"><input aria-label="Digit 4"></span><span class="box"><input aria-label="Digit 5"></span><span class="box"><input aria-label="Digit 6"></span></div>
<script>document.getElementById('c').addEventListener('input', (e) => {
  const boxes = document.querySelectorAll('#boxes input');
  [...e.target.value].slice(0, 6).forEach((d, i) => { boxes[i].value = d; });
});</script>`
	base := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	h := openWith(t, "/", Config{TOTP: map[string]totp.Key{"OTP": key}})
	clock := &fakeClock{t: time.Unix(1_800_000_005, 0)} // polite_test.go
	h.s.secrets.clock, h.s.secrets.sleep = clock.now, clock.sleep
	code := key.Code(clock.t)
	if r := h.act(toolapi.Navigate, map[string]any{"url": base + "/"}); !r.Success {
		t.Fatalf("navigate: %s", r.Message)
	}
	f, ok := h.snap(false).Find("textbox", "Code")
	if !ok {
		t.Fatal("no code field")
	}
	r := h.act(toolapi.Fill, map[string]any{"ref": f.Ref, "value": "{{OTP}}"})
	if !r.Success {
		t.Fatalf("fill: %s", r.Message)
	}
	var boxes strings.Builder
	for _, e := range r.Snapshot.Elements {
		if strings.HasPrefix(e.Name, "Digit") && e.Value != nil {
			boxes.WriteString(*e.Value)
		}
	}
	if strings.ContainsAny(boxes.String(), "0123456789") {
		t.Errorf("the snapshot's boxes show %q of the code %s", boxes.String(), code)
	}
	fields := map[string]any{}
	for i := 1; i <= 6; i++ {
		fields[fmt.Sprintf("d%d", i)] = fmt.Sprintf(`textbox "Digit %d"`, i)
	}
	for name, args := range map[string]map[string]any{
		"one item, six fields": {"selector": "#boxes", "fields": fields},
		"six items":            {"selector": "#boxes .box", "fields": map[string]any{"v": `textbox ""`}},
	} {
		out := h.call(toolapi.Extract, args)
		data, err := json.Marshal(out.Value)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Items []map[string]string `json:"items"`
		}
		json.Unmarshal(data, &got)
		var all strings.Builder
		for _, it := range got.Items {
			for i := 1; i <= 6; i++ {
				all.WriteString(it[fmt.Sprintf("d%d", i)])
			}
			all.WriteString(it["v"])
		}
		if len(got.Items) == 0 {
			t.Errorf("%s: no items: %s", name, data)
		}
		if strings.ContainsAny(all.String(), "0123456789") {
			t.Errorf("%s: browser_extract shows %q of the code %s: %s", name, all.String(), code, data)
		}
	}
}
