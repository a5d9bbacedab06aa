package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// extractField is one field of browser_extract's items: a CSS selector
// relative to the item ("a@href" for an attribute), or a role and name. In
// JSON a string, "h3" or "a@href", or the short form of a role and name,
// written as the snapshot writes an element, `link "Details"@href`; or an
// object {"role": "link", "name": "Details", "attr": "href"}.
type extractField struct {
	// spec is the field as the page script reads it: the selector, or the
	// role and name in the short form.
	spec string
}

// UnmarshalJSON reads a string or a {role, name, attr} object.
func (f *extractField) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		// The page script reads the short form and says what is wrong
		// with it, as it does for a selector.
		*f = extractField{spec: s}
		return nil
	}
	var o struct {
		Role string `json:"role"`
		Name string `json:"name"`
		Attr string `json:"attr"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&o); err != nil {
		return errors.New(`fields: each is a CSS selector ("h3", "a@href"), role "name", or {"role": …, "name": …, "attr": …}`)
	}
	if strings.TrimSpace(o.Role) == "" || strings.ContainsAny(o.Role, " \"@") {
		return errors.New(`fields: a field by role needs a role, one word: {"role": "link", "name": "Details"}`)
	}
	if strings.ContainsAny(o.Attr, " \"@") {
		return fmt.Errorf("fields: attr %q: one attribute name", o.Attr)
	}
	f.spec = roleSpec(o.Role, o.Name, o.Attr)
	return nil
}

// roleSpec writes a role, name and attribute in the short form.
func roleSpec(role, name, attr string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(name) // a string always encodes
	s := role + " " + strings.TrimSpace(b.String())
	if attr != "" {
		s += "@" + attr
	}
	return s
}
