package browser

import (
	"context"
	_ "embed" // the page script
	"encoding/json"
	"errors"
	"fmt"
)

// passwordFieldsJS remembers a document's password fields and reads them.
//
//go:embed js/passwordFields.js
var passwordFieldsJS string

// passwordWorld names the isolated world PasswordFields reads in
// (worlds.go): a page cannot make it forget a field.
const passwordWorld = "chaperone-passwords"

// maxPasswordFields bounds the fields remembered per document.
const maxPasswordFields = 64

// PasswordField is the value of a field that is, or was, a password field;
// Key tells one field's value from another's (a frame, a document, a field)
// so that a caller keeps only each field's newest value.
type PasswordField struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// PasswordFields returns the value of every field of the current page that
// is a password field, or was one when PasswordFields last looked at its
// document (a page's "Show password" makes it a text field), in every
// frame: the page's own, same- or cross-origin, in or out of process. It
// reads each frame it can and reports the frames it could not.
func (t *Context) PasswordFields(ctx context.Context) ([]PasswordField, error) {
	answers, err := t.inEveryFrame(ctx, passwordWorld, passwordFieldsJS, maxPasswordFields)
	if err != nil {
		return nil, fmt.Errorf("password fields: %w", err)
	}
	var (
		out  []PasswordField
		errs []error
	)
	for _, a := range answers {
		var fields []PasswordField
		if a.err == nil && len(a.value) > 0 {
			a.err = json.Unmarshal(a.value, &fields)
		}
		if a.err != nil {
			errs = append(errs, fmt.Errorf("password fields: %w", a.err))
			continue
		}
		for _, f := range fields {
			out = append(out, PasswordField{Key: a.url + "/" + f.Key, Value: f.Value})
		}
	}
	return out, errors.Join(errs...)
}
