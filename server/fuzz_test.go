package server

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/chaperone-mcp/chaperone/tools"
)

// FuzzToolArguments feeds a tool call's raw arguments through what the
// server does before the tool decodes them: mcp-go's decoding into an any,
// then the schema's defaults. For every tool, arguments that are an object
// (or absent) come out an object with every default and every given
// argument unchanged; arguments the input schema accepts are still accepted
// with the defaults in; anything else is an error, never a panic.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `{"ref":"@e1"}`, `{"viewport_only":false}`, `{"direction":"down","amount":5}`,
		`{"ref":"@e2","value":"x","clear_first":false}`, `[1,2]`, `"text"`, `{"amount":null}`, `{"ref":"@e1","extra":{"a":[1]}}`,
	} {
		f.Add([]byte(seed))
	}
	type tool struct {
		name     string
		defaults map[string]any
		schema   *jsonschema.Resolved
	}
	var all []tool
	for _, d := range tools.Definitions() {
		var s jsonschema.Schema
		if err := json.Unmarshal(d.InputSchema, &s); err != nil {
			f.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			f.Fatal(err)
		}
		all = append(all, tool{d.Name, d.Defaults(), r})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw any
		if json.Unmarshal(data, &raw) != nil {
			return // mcp-go refuses the request before any tool sees it
		}
		given, isObject := raw.(map[string]any)
		for _, tl := range all {
			args, err := withDefaults(raw, tl.defaults)
			if raw != nil && !isObject {
				if err == nil {
					t.Fatalf("%s: arguments %s that are no object were accepted as %s", tl.name, data, args)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: arguments %s: %v", tl.name, data, err)
			}
			var out map[string]any
			if err := json.Unmarshal(args, &out); err != nil {
				t.Fatalf("%s: %s is no object: %v", tl.name, args, err)
			}
			for k, v := range tl.defaults {
				if _, ok := given[k]; !ok && !jsonSame(out[k], v) {
					t.Errorf("%s: default %s = %v missing from %s", tl.name, k, v, args)
				}
			}
			for k, v := range given {
				if !jsonSame(out[k], v) {
					t.Errorf("%s: argument %s changed from %v to %v", tl.name, k, v, out[k])
				}
			}
			if isObject && tl.schema.Validate(given) == nil {
				if err := tl.schema.Validate(out); err != nil {
					t.Errorf("%s: %s is valid but %s with defaults is not: %v", tl.name, data, args, err)
				}
			}
		}
	})
}

func jsonSame(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
