package browser

import (
	"context"
	_ "embed" // the page script
	"errors"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// passwordFieldsJS remembers a document's password fields and reads them.
//
//go:embed js/passwordFields.js
var passwordFieldsJS string

// passwordWorld names the isolated world PasswordFields reads in: the
// page's scripts share its DOM but not its globals, so a page cannot make
// it forget a field.
const passwordWorld = "chaperone-passwords"

// maxPasswordFields bounds the fields remembered per document.
const maxPasswordFields = 64

var cmdCreateIsolatedWorld = cdp.Command[map[string]any, struct {
	ExecutionContextID int64 `json:"executionContextId"`
}]{Method: "Page.createIsolatedWorld"}

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
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	defer cancel()
	cc := chromedp.FromContext(c)
	if cc == nil || cc.Target == nil {
		return nil, t.fail("password fields", ErrClosed)
	}
	if _, err := t.remoteFrames(c, p, cc); err != nil {
		t.log.Debug("password fields: listing the frames", "err", err)
	}
	var (
		mu   sync.Mutex
		out  []PasswordField
		errs []error
		wg   sync.WaitGroup
	)
	read := func(c context.Context) {
		fields, err := passwordFieldsIn(c)
		mu.Lock()
		defer mu.Unlock()
		out = append(out, fields...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	wg.Go(func() { read(c) })
	for _, f := range p.liveFrames() {
		wg.Go(func() {
			fc, cancel := f.cdp(ctx)
			defer cancel()
			read(fc)
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// passwordFieldsIn reads the password fields of every frame of the target
// of the chromedp context c, each in the isolated world.
func passwordFieldsIn(c context.Context) ([]PasswordField, error) {
	tree, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("password fields: the frame tree: %w", err)
	}
	var (
		out  []PasswordField
		errs []error
	)
	for _, f := range flattenFrames(tree.FrameTree, nil) {
		world, err := chromedp.Call(c, cmdCreateIsolatedWorld, map[string]any{"frameId": f.Frame.ID, "worldName": passwordWorld})
		if err != nil {
			errs = append(errs, fmt.Errorf("password fields of %s: %w", f.Frame.URL, err))
			continue
		}
		expr, err := applyJS(passwordFieldsJS, maxPasswordFields)
		if err != nil {
			return nil, err
		}
		res, err := chromedp.Call(c, cmdEvaluate, map[string]any{
			"expression": expr, "returnByValue": true, "contextId": world.ExecutionContextID,
		})
		var fields []PasswordField
		if err == nil {
			err = res.decode(&fields)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("password fields of %s: %w", f.Frame.URL, err))
			continue
		}
		for _, pf := range fields {
			out = append(out, PasswordField{Key: string(f.Frame.ID) + "/" + pf.Key, Value: pf.Value})
		}
	}
	return out, errors.Join(errs...)
}
