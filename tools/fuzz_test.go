package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// FuzzRefLookup looks arbitrary refs up in a live table: exactly the refs in
// the table are found; anything else is ref_invalid with a message a person
// or a model can read (no control characters, valid UTF-8), never a panic.
func FuzzRefLookup(f *testing.F) {
	for _, seed := range []string{"@e1", "@e42", "@e2", "e1", "@e", "@e01", "@e1\n", "@E1", " @e1", "@e١", "@e99999999999999999999", "\x1b[31m@e1"} {
		f.Add(seed)
	}
	live := snapshot.Table{
		"@e1":  {Ref: "@e1", BackendNodeID: 1, Role: "button", Name: "Buy"},
		"@e42": {Ref: "@e42", BackendNodeID: 42, Role: "link", Name: "Home"},
	}
	s := &Session{live: live}
	f.Fuzz(func(t *testing.T, ref string) {
		got, err := s.target(ref)
		want, ok := live[ref]
		if ok {
			if err != nil || got != want {
				t.Fatalf("target(%q) = %+v, %v; want %+v", ref, got, err, want)
			}
			return
		}
		var p *problem
		if !errors.As(err, &p) || p.code != toolapi.RefInvalid {
			t.Fatalf("target(%q) = %+v, %v; want ref_invalid", ref, got, err)
		}
		if !utf8.ValidString(p.msg) || strings.ContainsFunc(p.msg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("target(%q): message %q carries control characters or bad UTF-8", ref, p.msg)
		}
		if refPattern.MatchString(ref) != !strings.Contains(p.msg, "is not a ref") {
			t.Errorf("target(%q): message %q disagrees with the ref pattern", ref, p.msg)
		}
	})
}

// FuzzToolArguments feeds a call's raw JSON arguments, as any transport
// hands them to Session.Call, through what Call does before the tool decodes
// them: fillDefaults. For every tool, arguments that are an object (or
// absent, or null) come out an object with every default where its argument
// was missing or null, and every other argument unchanged; arguments the
// input schema accepts are still accepted with the defaults in; anything
// else is an error and comes back as it was, never a panic.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `null`, ` null `, `{"ref":"@e1"}`, `{"viewport_only":false}`, `{"direction":"down","amount":5}`,
		`{"ref":"@e2","value":"x","clear_first":false}`, `[1,2]`, `"text"`, `{"amount":null}`, `{"ref":"@e1","extra":{"a":[1]}}`,
		`{"amount":1,"amount":null}`, `{`, `{"limit":0}`,
	} {
		f.Add([]byte(seed))
	}
	type tool struct {
		name     string
		defaults map[string]json.RawMessage
		schema   *jsonschema.Resolved
	}
	var all []tool
	for _, tl := range catalog {
		var s jsonschema.Schema
		if err := json.Unmarshal(tl.def.InputSchema, &s); err != nil {
			f.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			f.Fatal(err)
		}
		all = append(all, tool{tl.def.Name, tl.defaults, r})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// An object is what decodes into named raw values; a number too
		// big for a float64 is still an object's member, which a tool
		// that has no such field ignores.
		var given map[string]json.RawMessage
		isObject := json.Unmarshal(data, &given) == nil && given != nil
		if s := strings.TrimSpace(string(data)); s == "" || s == "null" {
			isObject = true
		}
		var decoded any
		valid := json.Unmarshal(data, &decoded) == nil
		for _, tl := range all {
			args, err := fillDefaults(data, tl.defaults)
			if !isObject {
				if err == nil || !bytes.Equal(args, data) {
					t.Fatalf("%s: arguments %q that are no object came out %q, error %v", tl.name, data, args, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: arguments %q: %v", tl.name, data, err)
			}
			var out map[string]json.RawMessage
			if err := json.Unmarshal(args, &out); err != nil || out == nil {
				t.Fatalf("%s: %s is no object: %v", tl.name, args, err)
			}
			for k, v := range tl.defaults {
				if g, ok := given[k]; (!ok || isNull(g)) && !jsonSame(out[k], v) {
					t.Errorf("%s: default %s = %s missing from %s", tl.name, k, v, args)
				}
			}
			for k, v := range given {
				if _, ok := tl.defaults[k]; ok && isNull(v) {
					continue
				}
				if !jsonSame(out[k], v) {
					t.Errorf("%s: argument %s changed from %s to %s", tl.name, k, v, out[k])
				}
			}
			if m, ok := decoded.(map[string]any); valid && ok && tl.schema.Validate(m) == nil {
				var filled any
				if err := json.Unmarshal(args, &filled); err != nil {
					t.Fatal(err)
				}
				if err := tl.schema.Validate(filled); err != nil {
					t.Errorf("%s: %s is valid but %s with defaults is not: %v", tl.name, data, args, err)
				}
			}
		}
	})
}

func isNull(raw json.RawMessage) bool { return strings.TrimSpace(string(raw)) == "null" }

// jsonSame reports whether a and b are the same JSON: the same value, or,
// for what no Go value holds (a number past float64), the same text.
func jsonSame(a, b json.RawMessage) bool {
	norm := func(r json.RawMessage) string {
		var v any
		if err := json.Unmarshal(r, &v); err == nil {
			out, _ := json.Marshal(v)
			return string(out)
		}
		var c, h bytes.Buffer
		json.Compact(&c, r)
		json.HTMLEscape(&h, c.Bytes())
		return h.String()
	}
	return a != nil && b != nil && norm(a) == norm(b)
}
