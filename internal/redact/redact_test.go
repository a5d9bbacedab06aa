package redact

import (
	"encoding/json"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"SHORT": "abc", "LONG": "abcdef", "QUOTED": `say "hi"`, "EMPTY": ""})
	for in, want := range map[string]string{
		"abc then abcdef":           "{{SHORT}} then {{LONG}}",
		`{"v":"say \"hi\""}`:        `{"v":"{{QUOTED}}"}`,
		`say "hi" in the open`:      `{{QUOTED}} in the open`,
		"nothing secret, no abbrev": "nothing secret, no abbrev",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAdd(t *testing.T) {
	t.Parallel()
	r := New(nil)
	if got := r.String("hunter2"); got != "hunter2" {
		t.Fatalf("an empty redactor changed the text: %q", got)
	}
	r.Add("hunter2", "****")
	r.Add("hunter2", "other")
	r.Add("", "****")
	if got := r.String("typed hunter2"); got != "typed ****" {
		t.Errorf("String = %q, want the first stand-in", got)
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	r := New(map[string]string{"TOKEN": "t<o>k"})
	for in, want := range map[string]string{
		`{"ref":"@e1","value":"t<o>k","n":12345678901234567890}`: `{"n":12345678901234567890,"ref":"@e1","value":"{{TOKEN}}"}`,
		`["a","t\u003co\u003ek"]`:                                `["a","{{TOKEN}}"]`,
		`not json t<o>k`:                                         `"not json {{TOKEN}}"`,
	} {
		got := r.JSON(json.RawMessage(in))
		if string(got) != want {
			t.Errorf("JSON(%s) = %s, want %s", in, got, want)
		}
		if !json.Valid(got) {
			t.Errorf("JSON(%s) = %s is not JSON", in, got)
		}
	}
}
