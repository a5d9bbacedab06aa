package browser

import (
	"context"
	_ "embed" // the page script
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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
//
// A document that goes away (a PIN pad's last digit sends the form, on the
// click that typed it) reports its fields' values as it goes, to be
// returned by the next call: what nothing read in time is not lost.
func (t *Context) PasswordFields(ctx context.Context) ([]PasswordField, error) {
	p, _ := t.page()
	if err := t.hearLeavingPasswords(ctx, p); err != nil {
		t.log.Debug("password fields: hearing documents that go away", "err", err)
	}
	answers, err := t.inEveryFrame(ctx, passwordWorld, passwordFieldsJS, maxPasswordFields, passwordsLeaving)
	var out []PasswordField
	if p != nil {
		out = p.left.take()
	}
	if err != nil {
		return out, fmt.Errorf("password fields: %w", err)
	}
	var errs []error
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

// passwordsLeaving is the binding through which a document reports its
// password fields as it goes away; only the password world has it.
const passwordsLeaving = "chaperonePasswordsLeaving"

// leftPasswords are the password fields documents of a page reported as
// they went away, until PasswordFields takes them.
type leftPasswords struct {
	mu sync.Mutex
	// heard is set once the page's target has the binding and is heard.
	heard  bool
	fields []PasswordField
}

// take returns the fields reported and forgets them.
func (l *leftPasswords) take() []PasswordField {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.fields
	l.fields = nil
	return out
}

// hearLeavingPasswords makes sure that documents of the page p report their
// password fields as they go away, for as long as the page lives.
func (t *Context) hearLeavingPasswords(ctx context.Context, p *tabPage) error {
	if p == nil || p.live == nil {
		return nil
	}
	p.left.mu.Lock()
	defer p.left.mu.Unlock()
	if p.left.heard {
		return nil
	}
	err := chromedp.Listen(p.live, func(ev any) {
		b, ok := ev.(*runtime.EventBindingCalled)
		if !ok || b.Name != passwordsLeaving {
			return
		}
		var r struct {
			URL    string          `json:"url"`
			Fields []PasswordField `json:"fields"`
		}
		if json.Unmarshal([]byte(b.Payload), &r) != nil {
			return
		}
		p.left.mu.Lock()
		defer p.left.mu.Unlock()
		for _, f := range r.Fields {
			if len(p.left.fields) < maxPasswordFields {
				p.left.fields = append(p.left.fields, PasswordField{Key: r.URL + "/" + f.Key, Value: f.Value})
			}
		}
	})
	if err != nil {
		return err
	}
	c, cancel := t.cdp(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, cmdAddBinding, map[string]any{"name": passwordsLeaving, "executionContextName": passwordWorld}); err != nil {
		return err
	}
	p.left.heard = true
	return nil
}
