package checkpoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// resolvedSchema compiles the embedded profile schema.
func resolvedSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(ProfileSchema(), &s); err != nil {
		t.Fatalf("profile schema: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve profile schema: %v", err)
	}
	return rs
}

func validateAgainstSchema(t *testing.T, rs *jsonschema.Resolved, data []byte) error {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	return rs.Validate(v)
}

func TestBuiltinProfiles(t *testing.T) {
	t.Parallel()
	if got := strings.Join(BuiltinProfiles(), ","); got != "default,demo,netflix" {
		t.Fatalf("BuiltinProfiles() = %s, want default,demo,netflix", got)
	}
	rs := resolvedSchema(t)
	// The default policy gates actions, not pages; TestDefaultPolicy checks it.
	for _, name := range []string{"demo", "netflix"} {
		t.Run(name, func(t *testing.T) {
			p, err := LoadProfile(name)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != name {
				t.Errorf("Name = %q", p.Name)
			}
			data, _ := embedded.ReadFile("profiles/" + name + ".json")
			if err := validateAgainstSchema(t, rs, data); err != nil {
				t.Errorf("built-in profile does not validate against the schema: %v", err)
			}
			// The spec's rules, checked through behaviour, on pages of the
			// profile's own origin.
			if p, err = p.WithDemoSite("https://x"); err != nil {
				t.Fatal(err)
			}
			origin := p.AllowedOrigins[0]
			g := NewGate(p, nil, Options{})
			cases := []struct {
				name       string
				snap       string
				checkpoint bool
				success    bool
				failures   int
			}{
				{"finish page by title", `{"page":{"url":"https://x/finish","title":"Finish Cancellation - StreamFlix"}}`, true, false, 0},
				{"finish page by button", `{"page":{"url":"https://x/y","title":"Account"},"elements":[{"ref":"@e1","role":"button","name":"Finish Cancellation"}]}`, true, false, 0},
				{"a link is no button", `{"page":{"url":"https://x/y","title":"Account"},"elements":[{"ref":"@e1","role":"link","name":"Finish cancellation"}]}`, false, false, 0},
				{"cancelled by title", `{"page":{"url":"https://x/cancelled","title":"Membership Cancelled"}}`, false, true, 0},
				{"cancelled by heading", `{"page":{"url":"https://x/done","title":"StreamFlix"},"elements":[{"ref":"@e1","role":"heading","name":"Your membership has been cancelled","level":1}]}`, false, true, 0},
				{"account page", `{"page":{"url":"https://x/account","title":"Account"},"elements":[{"ref":"@e1","role":"button","name":"Cancel Membership"}]}`, false, false, 0},
				{"error page", `{"page":{"url":"https://x/error?code=5","title":"Oops"},"text":"We were unable to process your request."}`, false, false, 2},
				{"could not", `{"page":{"url":"https://x/finish","title":"Finish"},"elements":[{"ref":"@e2","role":"alert","name":"We could not cancel"}]}`, false, false, 1},
			}
			for _, c := range cases {
				s := snap(t, strings.ReplaceAll(c.snap, "https://x", origin))
				if _, ok := g.Checkpoint(s); ok != c.checkpoint {
					t.Errorf("%s: checkpoint = %v, want %v", c.name, ok, c.checkpoint)
				}
				if ok, msg := g.Verify(s); ok != c.success {
					t.Errorf("%s: verify = %v (%s), want %v", c.name, ok, msg, c.success)
				}
				if f := g.Failures(s); len(f) != c.failures {
					t.Errorf("%s: failures = %q, want %d", c.name, f, c.failures)
				}
			}
		})
	}
}

func TestDemoProfileServesItsOwnSite(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("demo")
	if err != nil {
		t.Fatal(err)
	}
	if !p.UsesDemoSite() {
		t.Fatal("demo profile does not use the demo site")
	}
	q, err := p.WithDemoSite("http://127.0.0.1:4567")
	if err != nil {
		t.Fatal(err)
	}
	if q.StartURL != "http://127.0.0.1:4567/account" {
		t.Errorf("StartURL = %q", q.StartURL)
	}
	if len(q.AllowedOrigins) != 1 || q.AllowedOrigins[0] != "http://127.0.0.1:4567" {
		t.Errorf("AllowedOrigins = %q", q.AllowedOrigins)
	}
	if p.StartURL != "demo:/account" {
		t.Errorf("WithDemoSite changed the original: %q", p.StartURL)
	}
	n, _ := LoadProfile("netflix")
	if n.UsesDemoSite() {
		t.Error("netflix uses the demo site")
	}
	if same, _ := n.WithDemoSite("http://127.0.0.1:1"); same != n {
		t.Error("WithDemoSite changed a profile that does not use the demo site")
	}
}

func TestLoadProfileFile(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile(filepath.Join("testdata", "shop.json"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "shop-checkout" || p.MaxTurns != 12 || len(p.AllowedOrigins) != 2 || p.Guidance == "" {
		t.Errorf("profile = %+v", p)
	}
	g := NewGate(p, nil, Options{})
	pay := snap(t, `{"page":{"url":"https://PAY.example.com/checkout","title":"Pay"}}`)
	if name, ok := g.Checkpoint(pay); !ok || name != "payment" {
		t.Errorf("Checkpoint(pay) = %q, %v", name, ok)
	}
	testMode := snap(t, `{"page":{"url":"https://pay.example.com/checkout","title":"Pay"},"text":"TEST MODE: no money moves"}`)
	if _, ok := g.Checkpoint(testMode); ok {
		t.Error("not(text_contains) did not exclude the test-mode page")
	}
	data, _ := os.ReadFile(filepath.Join("testdata", "shop.json"))
	if err := validateAgainstSchema(t, resolvedSchema(t), data); err != nil {
		t.Errorf("schema rejects a good profile: %v", err)
	}
}

func TestBadProfiles(t *testing.T) {
	t.Parallel()
	rs := resolvedSchema(t)
	const head = `"name":"x","start_url":"https://example.com/"`
	cases := []struct {
		name, json, want string
	}{
		{"not json", `{"name": `, "not valid JSON"},
		{"not an object", `[1,2]`, "not a JSON object"},
		{"no name", `{"start_url":"https://example.com/"}`, "name: is required"},
		{"empty start url", `{"name":"x","start_url":" "}`, "start_url: must not be empty"},
		{"relative start url", `{"name":"x","start_url":"/account"}`, "start_url: must be an absolute http(s) URL"},
		{"unknown field", `{` + head + `,"checkpoint":[]}`, "checkpoint: unknown field"},
		{"element without role", `{` + head + `,"checkpoints":[{"title_contains":"a"},{"element":{"name_contains":"pay"}}]}`, "checkpoints[1].element: role is required"},
		{"two tests", `{` + head + `,"success_indicators":[{"title_contains":"a","url_contains":"b"}]}`, "success_indicators[0]: has title_contains and url_contains"},
		{"empty condition", `{` + head + `,"checkpoints":[{"name":"n"}]}`, "checkpoints[0]: needs one of title_contains"},
		{"bad regexp", `{` + head + `,"checkpoints":[{"url_matches":"(unclosed"}]}`, "checkpoints[0].url_matches: not a valid regular expression"},
		{"nested unknown", `{` + head + `,"failure_indicators":[{"any":[{"url_contains":"e"},{"text_contain":"x"}]}]}`, "failure_indicators[0].any[1].text_contain: unknown field"},
		{"empty any", `{` + head + `,"checkpoints":[{"any":[]}]}`, "checkpoints[0].any: must not be empty"},
		{"empty text", `{` + head + `,"checkpoints":[{"not":{"title_contains":" "}}]}`, "checkpoints[0].not.title_contains: must not be empty"},
		{"number as text", `{` + head + `,"checkpoints":[{"title_contains":5}]}`, "checkpoints[0].title_contains: must be a string"},
		{"bad origin", `{` + head + `,"allowed_origins":["https://a.com/path"]}`, "allowed_origins[0]: must be an origin"},
		{"bad max turns", `{` + head + `,"max_turns":0}`, "max_turns: must be a whole number of at least 1"},
		{"element extra", `{` + head + `,"checkpoints":[{"element":{"role":"button","text":"x"}}]}`, "checkpoints[0].element.text: unknown field"},
		{"empty dialog", `{` + head + `,"checkpoints":[{"dialog":{}}]}`, "checkpoints[0].dialog: needs type or message_contains"},
		{"dialog of no kind", `{` + head + `,"checkpoints":[{"dialog":{"type":"modal"}}]}`, `checkpoints[0].dialog.type: must be one of alert, confirm, prompt, beforeunload, got "modal"`},
		{"dialog extra", `{` + head + `,"checkpoints":[{"dialog":{"message":"x"}}]}`, "checkpoints[0].dialog.message: unknown field"},
		{"dialog text not a string", `{` + head + `,"failure_indicators":[{"dialog":{"message_contains":3}}]}`, "failure_indicators[0].dialog: type and message_contains must be strings"},
		{"gated actions not a list", `{` + head + `,"gated_actions":{"name":"buy"}}`, "gated_actions: must be a list of action rules"},
		{"action rule not an object", `{` + head + `,"gated_actions":["buy"]}`, "gated_actions[0]: must be an object"},
		{"action rule without name", `{` + head + `,"gated_actions":[{"verb":"click"}]}`, "gated_actions[0].name: is required"},
		{"action rule gating nothing", `{` + head + `,"gated_actions":[{"name":"n"}]}`, "gated_actions[0]: gates nothing"},
		{"action rule gating nothing, explicitly", `{` + head + `,"gated_actions":[{"name":"n","payment_field":false}]}`, "gated_actions[0]: gates nothing"},
		{"action rule with an unknown verb", `{` + head + `,"gated_actions":[{"name":"n","verb":"tap"}]}`, `gated_actions[0].verb: must be one of click, fill, select, press, navigate, drag, upload, got "tap"`},
		{"action rule with name_contains", `{` + head + `,"gated_actions":[{"name":"n","name_contains":"buy"}]}`, "gated_actions[0].name_contains: unknown field"},
		{"action rule with a bad regexp", `{` + head + `,"gated_actions":[{"name":"n","name_matches":"(buy"}]}`, "gated_actions[0].name_matches: not a valid regular expression"},
		{"action rule flag not a bool", `{` + head + `,"gated_actions":[{"name":"n","payment_field":"yes"}]}`, "gated_actions[0].payment_field: must be true or false"},
		{"action rule with an empty role", `{` + head + `,"gated_actions":[{"name":"n","role":" "}]}`, "gated_actions[0].role: must not be empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseProfile([]byte(c.json))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
			if c.name == "bad regexp" || c.name == "bad origin" || c.name == "not json" || c.name == "action rule with a bad regexp" {
				return // beyond what the schema can say
			}
			if validateAgainstSchema(t, rs, []byte(c.json)) == nil {
				t.Errorf("the schema accepts what the parser rejects")
			}
		})
	}
}

func TestLoadProfileErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "bad-element.json")
	_, err := LoadProfile(path)
	if want := "profile " + path + ": checkpoints[1].element: role is required"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	_, err = LoadProfile("nosuchprofile")
	if err == nil || !strings.Contains(err.Error(), "built-in: default, demo, netflix") {
		t.Errorf("unknown name: error = %v", err)
	}
	_, err = LoadProfile(filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: error = %v", err)
	}
}

func TestProfileRoundTrip(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("netflix")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParseProfile(data)
	if err != nil {
		t.Fatalf("re-parse %s: %v", data, err)
	}
	if fmt.Sprint(q.SuccessIndicators) == "" || describeAny(q.SuccessIndicators) != describeAny(p.SuccessIndicators) {
		t.Errorf("round trip changed the success indicators: %s", describeAny(q.SuccessIndicators))
	}
	d, _ := LoadProfile("default")
	if data, err = json.Marshal(d); err != nil {
		t.Fatal(err)
	}
	if q, err = ParseProfile(data); err != nil {
		t.Fatalf("re-parse %s: %v", data, err)
	}
	if len(q.GatedActions) != len(d.GatedActions) {
		t.Fatalf("round trip kept %d of %d gated actions", len(q.GatedActions), len(d.GatedActions))
	}
	for i, r := range q.GatedActions {
		if r.Describe() != d.GatedActions[i].Describe() || r.Label() != d.GatedActions[i].Label() {
			t.Errorf("round trip changed rule %d: %s, was %s", i, r.Describe(), d.GatedActions[i].Describe())
		}
	}
}

func ExampleLoadProfile() {
	p, err := LoadProfile("netflix")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.StartURL)
	fmt.Println("checkpoint:", p.Checkpoints[0].Label(), "=", p.Checkpoints[0].Describe())
	fmt.Println("success:", describeAny(p.SuccessIndicators))
	// Output:
	// https://www.netflix.com/account
	// checkpoint: final cancellation step = title contains "finish cancellation" or a button whose name contains "finish cancel"
	// success: title contains "cancelled" or a heading whose name contains "cancelled"
}
