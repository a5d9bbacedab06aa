package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool's input type is the one source of truth for its arguments: the
// input schema a client sees is derived from it (inputSchema), and so are the
// defaults Session.Call fills in. Each field says what the schema says of
// it:
//
//   - its JSON name, and whether it is optional, by its json tag (omitempty:
//     optional; otherwise required);
//   - its JSON type by its Go type (a pointer, which tells a missing
//     argument from a zero one, does not make null a valid argument);
//   - its description by a jsonschema tag;
//   - the rest by a schema tag, a comma-separated list of:
//     ref (a ref from a snapshot: refPattern, and refDescription unless the
//     jsonschema tag says otherwise), default=JSON, enum=a|b|c (strings),
//     minimum=N, maximum=N.
//
// The schema is trimmed to what the model needs, since tools/list counts
// against the model's tokens: no $schema, no titles, no additionalProperties
// (a client that sends more is not refused for it), no null types.

// refDescription is what the schema says of a ref, for the tools that came
// first; later tools say what a ref is in their descriptions instead, which
// costs fewer tokens in tools/list.
const refDescription = "Element ref from the newest snapshot, e.g. @e5"

// typeSchemas are the schemas of the input types that decode JSON their own
// way; TestChoiceDecodesWhatItsSchemaSays holds choice to its entry.
func typeSchemas() map[reflect.Type]*jsonschema.Schema {
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[choice](): {Types: []string{"string", "array"}, Items: &jsonschema.Schema{Type: "string"}},
	}
}

// inputSchema derives the input schema of a tool from its input type t, a
// struct, and returns it with the default of every field that has one, keyed
// by JSON name, as Session.Call fills them in.
func inputSchema(t reflect.Type) (json.RawMessage, map[string]json.RawMessage, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: typeSchemas()})
	if err != nil {
		return nil, nil, fmt.Errorf("input type %s: %w", t, err)
	}
	s.AdditionalProperties = nil
	if s.Properties == nil {
		// Some clients want properties even when there are none.
		s.Properties = map[string]*jsonschema.Schema{}
	}
	defaults := make(map[string]json.RawMessage)
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p, ok := s.Properties[name]
		if !ok {
			continue
		}
		trim(p)
		if err := applyTag(p, f); err != nil {
			return nil, nil, fmt.Errorf("input type %s, field %s: %w", t, f.Name, err)
		}
		if p.Default != nil {
			defaults[name] = p.Default
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, nil, fmt.Errorf("input type %s: encode its schema: %w", t, err)
	}
	return raw, defaults, nil
}

// trim drops from a property's schema what costs tokens and says nothing
// to the model: the null a pointer field admits, and the schema of a map's
// values.
func trim(p *jsonschema.Schema) {
	if types := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" }); len(p.Types) > 0 {
		p.Types = types
		if len(types) == 1 {
			p.Type, p.Types = types[0], nil
		}
	}
	p.AdditionalProperties = nil
}

// applyTag sets what field f's schema tag says on its property p.
func applyTag(p *jsonschema.Schema, f reflect.StructField) error {
	tag, ok := f.Tag.Lookup("schema")
	if !ok {
		return nil
	}
	for item := range strings.SplitSeq(tag, ",") {
		key, value, _ := strings.Cut(item, "=")
		switch key {
		case "ref":
			p.Pattern = refPattern.String()
			if p.Description == "" {
				p.Description = refDescription
			}
		case "default":
			// The default must decode into the field as an argument would.
			if err := json.Unmarshal([]byte(value), reflect.New(f.Type).Interface()); err != nil {
				return fmt.Errorf("default %s: %w", value, err)
			}
			p.Default = json.RawMessage(value)
		case "enum":
			for v := range strings.SplitSeq(value, "|") {
				p.Enum = append(p.Enum, v)
			}
		case "minimum", "maximum":
			n, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			if key == "minimum" {
				p.Minimum = &n
			} else {
				p.Maximum = &n
			}
		default:
			return fmt.Errorf("schema tag %q: unknown key %q", tag, key)
		}
	}
	return nil
}

// fillDefaults returns args, the JSON arguments of a call, with every default
// filled in that they lack; an argument that is null counts as lacking, as
// it decodes to nothing. No arguments at all are an empty object. Arguments
// that are not a JSON object are an error, and come back as they are.
func fillDefaults(args json.RawMessage, defaults map[string]json.RawMessage) (json.RawMessage, error) {
	if s := strings.TrimSpace(string(args)); s == "" || s == "null" {
		args = json.RawMessage(`{}`)
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(args, &given); err != nil || given == nil {
		return args, errors.New("arguments are not a JSON object")
	}
	added := false
	for k, v := range defaults {
		if cur, ok := given[k]; !ok || strings.TrimSpace(string(cur)) == "null" {
			given[k] = v
			added = true
		}
	}
	if !added {
		return args, nil
	}
	out, err := json.Marshal(given)
	if err != nil {
		return args, fmt.Errorf("arguments with defaults: %w", err)
	}
	return out, nil
}
