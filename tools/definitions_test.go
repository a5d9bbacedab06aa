package tools

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func resolveSchema(t *testing.T, raw json.RawMessage) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("parse schema %s: %v", raw, err)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatalf("resolve schema %s: %v", raw, err)
	}
	return r
}

func TestDefinitionsAreTheSevenTools(t *testing.T) {
	var names []string
	for _, d := range Definitions() {
		names = append(names, d.Name)
	}
	want := []string{"get_snapshot", "browser_click", "browser_fill", "browser_select", "browser_scroll", "request_human_approval", "complete_task"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
}

// TestDescriptionsCarryTheirParts checks the six parts of every description,
// that the example's input validates against the input schema, and that
// every error code a description names exists.
func TestDescriptionsCarryTheirParts(t *testing.T) {
	codes := []Code{RefInvalid, ElementDisabled, ElementObscured, ElementNotVisible, ActionFailed, Timeout, HumanRejected, InvalidParams}
	example := regexp.MustCompile(`Example: (\{.*?\}) →`)
	for _, d := range Definitions() {
		t.Run(d.Name, func(t *testing.T) {
			purpose, _, _ := strings.Cut(d.Description, ". ")
			if len(purpose) < 20 {
				t.Errorf("purpose %q is too short", purpose)
			}
			for _, part := range []string{refsDie, " When: ", " Patterns: 1) ", " 2) ", " Errors: ", " Example: "} {
				if !strings.Contains(d.Description, part) {
					t.Errorf("description lacks %q", part)
				}
			}
			m := example.FindStringSubmatch(d.Description)
			if m == nil {
				t.Fatalf("no example input in %q", d.Description)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
				t.Fatalf("example input %s: %v", m[1], err)
			}
			if err := resolveSchema(t, d.InputSchema).Validate(args); err != nil {
				t.Errorf("example input %s does not validate: %v", m[1], err)
			}
			resolveSchema(t, d.OutputSchema)

			_, errs, _ := strings.Cut(d.Description, " Errors: ")
			errs, _, _ = strings.Cut(errs, ".")
			errs = regexp.MustCompile(` \([^)]*\)`).ReplaceAllString(errs, "")
			if strings.HasPrefix(errs, "none") {
				return
			}
			for _, c := range strings.Split(errs, ", ") {
				if !slices.Contains(codes, Code(c)) {
					t.Errorf("description names unknown error code %q", c)
				}
			}
			for _, c := range codes {
				if d.Name != "browser_scroll" && c != InvalidParams && !strings.Contains(errs, string(c)) {
					// scroll has no enabled/obscured checks and no gate.
					t.Errorf("errors %q lack %s", errs, c)
				}
			}
		})
	}
}

func TestInputSchemas(t *testing.T) {
	defs := make(map[string]Definition)
	for _, d := range Definitions() {
		defs[d.Name] = d
	}
	valid := []struct {
		tool string
		args string
	}{
		{"get_snapshot", `{}`},
		{"get_snapshot", `{"viewport_only":false}`},
		{"browser_click", `{"ref":"@e0"}`},
		{"browser_fill", `{"ref":"@e12","value":"10/11/2011","clear_first":false}`},
		{"browser_select", `{"ref":"@e3","value":"Too expensive"}`},
		{"browser_scroll", `{"direction":"bottom"}`},
		{"browser_scroll", `{"ref":"@e3"}`},
		{"browser_scroll", `{"ref":"@e3","direction":"down","amount":50}`},
		{"request_human_approval", `{"action":"Click Finish","reason":"last step"}`},
		{"complete_task", `{"status":"failed","reason":"blocked"}`},
	}
	invalid := []struct {
		tool string
		args string
	}{
		{"browser_click", `{}`},
		{"browser_click", `{"ref":"e3"}`},
		{"browser_click", `{"ref":"@e3x"}`},
		{"browser_fill", `{"ref":"@e3"}`},
		{"browser_scroll", `{"direction":"left"}`},
		{"browser_scroll", `{"direction":"down","amount":0}`},
		{"complete_task", `{"status":"done","reason":"x"}`},
		{"request_human_approval", `{"action":"x"}`},
	}
	check := func(tool, args string, wantOK bool) {
		t.Helper()
		d, ok := defs[tool]
		if !ok {
			t.Fatalf("no tool %s", tool)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(args), &v); err != nil {
			t.Fatal(err)
		}
		err := resolveSchema(t, d.InputSchema).Validate(v)
		if (err == nil) != wantOK {
			t.Errorf("%s %s: validate error %v, want ok=%v", tool, args, err, wantOK)
		}
	}
	for _, c := range valid {
		check(c.tool, c.args, true)
	}
	for _, c := range invalid {
		check(c.tool, c.args, false)
	}
}

func TestDefaults(t *testing.T) {
	want := map[string]map[string]any{
		"get_snapshot":   {"viewport_only": true},
		"browser_fill":   {"clear_first": true},
		"browser_scroll": {"amount": float64(300)},
	}
	for _, d := range Definitions() {
		got := d.Defaults()
		if len(got) != len(want[d.Name]) {
			t.Errorf("%s defaults = %v, want %v", d.Name, got, want[d.Name])
			continue
		}
		for k, v := range want[d.Name] {
			if got[k] != v {
				t.Errorf("%s default %s = %v, want %v", d.Name, k, got[k], v)
			}
		}
	}
}

func TestAnnotationsTellTheTruth(t *testing.T) {
	for _, d := range Definitions() {
		switch d.Name {
		case "get_snapshot":
			if !d.ReadOnly || d.Destructive {
				t.Errorf("%s must be read-only", d.Name)
			}
		case "browser_click", "browser_fill", "browser_select", "browser_scroll":
			if d.ReadOnly {
				t.Errorf("%s changes the page: not read-only", d.Name)
			}
		}
	}
}

// TestDefinitionsStayCompact bounds the size of the definitions: tools/list
// adds little beyond them, and the whole must stay under 3,000 tokens.
func TestDefinitionsStayCompact(t *testing.T) {
	b, err := json.Marshal(Definitions())
	if err != nil {
		t.Fatal(err)
	}
	if tokens := len(b) / 4; tokens > 2700 {
		t.Errorf("definitions are %d tokens (chars/4), want ≤ 2,700", tokens)
	}
}
