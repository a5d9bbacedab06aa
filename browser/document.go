package browser

import (
	"context"
	_ "embed" // the page script
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
)

// readDocumentJS fetches the current document's bytes from the page.
//
//go:embed js/readDocument.js
var readDocumentJS string

// ErrTooLarge is the error of DocumentBytes for a document over its cap.
var ErrTooLarge = errors.New("larger than the cap")

// DocumentType returns the media type of the current page's document
// (document.contentType, without parameters): "application/pdf" for a PDF
// the browser shows in its viewer. It cannot run while a JavaScript dialog
// is open (Dialog), which blocks the page's scripts.
func (t *Context) DocumentType(ctx context.Context) (string, error) {
	var typ string
	if err := t.Evaluate(ctx, "document.contentType", &typ); err != nil {
		return "", fmt.Errorf("read the document's type: %w", err)
	}
	if mt, _, err := mime.ParseMediaType(typ); err == nil {
		typ = mt
	}
	return typ, nil
}

// DocumentBytes fetches the current page's document again, from the page,
// so that the browser sends its cookies as it did for the document, and
// returns the bytes and their media type. A body over max bytes is not read
// further: ErrTooLarge, wrapped with its size.
func (t *Context) DocumentBytes(ctx context.Context, max int64) ([]byte, string, error) {
	args, err := json.Marshal([]any{max})
	if err != nil {
		return nil, "", fmt.Errorf("fetch the document: %w", err)
	}
	var a struct {
		Type  string `json:"type"`
		Data  string `json:"data"`
		Error string `json:"error"`
		Size  int64  `json:"size"`
	}
	if err := t.Evaluate(ctx, "("+readDocumentJS+").apply(globalThis, "+string(args)+")", &a); err != nil {
		return nil, "", fmt.Errorf("fetch the document: %w", err)
	}
	switch {
	case a.Error == "too large":
		return nil, "", fmt.Errorf("fetch the document: %s: %w (%s)", FormatBytes(a.Size), ErrTooLarge, FormatBytes(max))
	case a.Error != "":
		return nil, "", fmt.Errorf("fetch the document: %s", a.Error)
	}
	data, err := base64.StdEncoding.DecodeString(a.Data)
	if err != nil {
		return nil, "", fmt.Errorf("fetch the document: decode its bytes: %w", err)
	}
	typ := a.Type
	if mt, _, err := mime.ParseMediaType(typ); err == nil {
		typ = mt
	}
	return data, typ, nil
}
