package driver

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/chaperone-mcp/chaperone/tools"
)

// maskedValue stands in the run record for a password the model typed.
const maskedValue = "********"

// passwordKind is the snapshot's kind of a password field.
const passwordKind = "password"

// redactor keeps the values the run record must never hold: the secrets the
// run was given (written as their {{NAME}} placeholder) and every password
// the model typed (written as maskedValue). What it has seen once it redacts
// from everything recorded after.
type redactor struct {
	// with maps a value to what stands for it.
	with map[string]string
	repl *strings.Replacer
}

// newRedactor returns a redactor for the secrets, by placeholder name.
func newRedactor(secrets map[string]string) *redactor {
	r := &redactor{with: map[string]string{}}
	for name, value := range secrets {
		r.add(value, "{{"+name+"}}")
	}
	return r
}

// add redacts value from now on, as stand.
func (r *redactor) add(value, stand string) {
	if value == "" || value == stand {
		return
	}
	if _, ok := r.with[value]; ok {
		return
	}
	r.with[value] = stand
	values := make([]string, 0, len(r.with))
	for v := range r.with {
		values = append(values, v)
	}
	// Longest first: a secret that holds another is replaced whole.
	sort.Slice(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
	pairs := make([]string, 0, 2*len(values))
	for _, v := range values {
		pairs = append(pairs, v, r.with[v])
	}
	r.repl = strings.NewReplacer(pairs...)
}

// string returns s with every known value replaced.
func (r *redactor) string(s string) string {
	if r.repl == nil {
		return s
	}
	return r.repl.Replace(s)
}

// json returns raw with every known value replaced in every string it
// holds. Input that is not JSON comes back as a JSON string of its redacted
// text, so that a record line stays valid.
func (r *redactor) json(raw json.RawMessage) json.RawMessage {
	if r.repl == nil || len(raw) == 0 {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		out, _ := json.Marshal(r.string(string(raw))) // a string always encodes
		return out
	}
	out, err := json.Marshal(r.value(v))
	if err != nil {
		out, _ = json.Marshal(r.string(string(raw)))
	}
	return out
}

func (r *redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.string(v)
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

// notePassword learns the value of a browser_fill (or of a
// request_human_approval naming a value) whose target is a password field in
// snap, the newest snapshot the model saw, so that it is masked wherever the
// record would show it. A value for a target snap does not show is masked
// too: nothing says it is not a password.
func (r *redactor) notePassword(name string, input json.RawMessage, snap SnapshotView) {
	if name != tools.Fill && name != tools.RequestApproval {
		return
	}
	var in struct {
		Ref   string `json:"ref"`
		Value string `json:"value"`
	}
	if json.Unmarshal(input, &in) != nil || in.Ref == "" {
		return
	}
	for _, e := range snap.Elements {
		if e.Ref == in.Ref && e.Kind != passwordKind {
			return
		}
	}
	r.add(in.Value, maskedValue)
}

// turn redacts everything a turn record says.
func (r *redactor) turn(rec *TurnRecord) {
	rec.Said = r.string(rec.Said)
	rec.Target = r.string(rec.Target)
	rec.Input = r.json(rec.Input)
	rec.Message = r.string(rec.Message)
	rec.URL = r.string(rec.URL)
	rec.Error = r.string(rec.Error)
}
