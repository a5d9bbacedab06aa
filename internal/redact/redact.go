// Package redact replaces the values nothing may show (a secret's, a typed
// password's) by what stands for them, in plain text and in JSON.
package redact

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Redactor replaces every value it knows by its stand-in. A value is also
// replaced as JSON escapes it, so that text holding JSON is served too.
// What it learns by Add it replaces from then on; Add must not run
// concurrently with the other methods.
type Redactor struct {
	// stands maps each value, and its JSON-escaped form, to its stand-in.
	stands map[string]string
	// repl is nil while there is nothing to replace.
	repl *strings.Replacer
}

// New returns a Redactor that writes each secret's value, in secrets by
// name, as the placeholder the agent writes for it: {{NAME}}.
func New(secrets map[string]string) *Redactor {
	r := &Redactor{stands: map[string]string{}}
	changed := false
	for _, name := range slices.Sorted(maps.Keys(secrets)) {
		changed = r.learn(secrets[name], "{{"+name+"}}") || changed
	}
	if changed {
		r.build()
	}
	return r
}

// Add replaces value by stand from now on. An empty value is everywhere and
// hides nothing, so it is not added; a value known already keeps the
// stand-in it was first given.
func (r *Redactor) Add(value, stand string) {
	if r.learn(value, stand) {
		r.build()
	}
}

// learn adds value and its JSON-escaped form, and reports whether it did.
func (r *Redactor) learn(value, stand string) bool {
	if value == "" || value == stand {
		return false
	}
	if _, ok := r.stands[value]; ok {
		return false
	}
	r.stands[value] = stand
	// A string always encodes; its escaped form is what stands between the
	// quotes.
	q, _ := json.Marshal(value)
	if esc := string(q[1 : len(q)-1]); esc != value {
		if _, ok := r.stands[esc]; !ok {
			r.stands[esc] = stand
		}
	}
	return true
}

func (r *Redactor) build() {
	olds := slices.Collect(maps.Keys(r.stands))
	// Longest first: a value that holds another is replaced whole.
	slices.SortFunc(olds, func(a, b string) int {
		return cmp.Or(len(b)-len(a), strings.Compare(a, b))
	})
	pairs := make([]string, 0, 2*len(olds))
	for _, v := range olds {
		pairs = append(pairs, v, r.stands[v])
	}
	r.repl = strings.NewReplacer(pairs...)
}

// String returns s with every known value replaced.
func (r *Redactor) String(s string) string {
	if r.repl == nil {
		return s
	}
	return r.repl.Replace(s)
}

// JSON returns raw with every known value replaced in every string it
// holds, however the JSON escapes it. Input that is not JSON comes back as
// a JSON string of its redacted text, so that what holds it stays valid
// JSON.
func (r *Redactor) JSON(raw json.RawMessage) json.RawMessage {
	if r.repl == nil || len(raw) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		out, _ := json.Marshal(r.String(string(raw))) // a string always encodes
		return out
	}
	out, err := json.Marshal(r.value(v))
	if err != nil {
		out, _ = json.Marshal(r.String(string(raw)))
	}
	return out
}

// value replaces the known values in the strings of v, a decoded JSON
// value, in place.
func (r *Redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.String(v)
	case []any:
		for i := range v {
			v[i] = r.value(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = r.value(v[k])
		}
	}
	return v
}
