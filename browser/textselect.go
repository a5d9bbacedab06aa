package browser

import (
	"context"
	_ "embed" // the page script of this file
	"errors"
	"fmt"
	"strings"
)

// Text selection by dragging over text, as a person selects what no key
// selects (text outside a field). The text is found, and the selection
// read back, in the judging world (judgeworld.go): what is reported as
// selected is what the browser's own getSelection holds, whatever the
// page's scripts say of it.

//go:embed js/findText.js
var findTextJS string

// Errors of FindText: text that shows nowhere in the scope asked, and text
// too long to show in the viewport at once.
var (
	ErrTextNotFound  = errors.New("the text is not on the page")
	ErrTextNotInView = errors.New("the text does not fit in the viewport")
)

// TextSpan is where some text shows, for a drag that selects it.
type TextSpan struct {
	// Text is the text as found, runs of white space as one space.
	Text string
	// From and To are where the drag presses and lets go, in
	// main-viewport CSS pixels.
	From, To Point
	// Box is the text's box.
	Box Box
}

// FindText finds the first place text shows in the element scope (0: the
// page), brought into view. Only the main frame's text is found: a drag's
// points are the main viewport's.
func (t *Context) FindText(ctx context.Context, scope int64, text string) (TextSpan, error) {
	var found struct {
		Found, Visible         bool
		FromX, FromY, ToX, ToY float64
		Box                    Box
		Text                   string
	}
	var err error
	if scope != 0 {
		n := nodeOf(scope)
		if n.frame != 0 {
			return TextSpan{}, fmt.Errorf("find text: the element is in a frame of another site, whose text cannot be selected by a drag from here: %w", ErrTextNotFound)
		}
		err = t.callOn(ctx, n, findTextJS, &found, text)
	} else {
		c, cancel := t.cdp(ctx)
		err = t.judgedCall(c, findTextJS, &found, text)
		cancel()
	}
	if err != nil {
		return TextSpan{}, fmt.Errorf("find text: %w", err)
	}
	if !found.Found {
		return TextSpan{}, ErrTextNotFound
	}
	if !found.Visible {
		return TextSpan{}, ErrTextNotInView
	}
	return TextSpan{Text: found.Text, From: Point{found.FromX, found.FromY}, To: Point{found.ToX, found.ToY}, Box: found.Box}, nil
}

// SelectText drags over span as a person selects text with the mouse: the
// page's selection is emptied first, so that the press does not start
// dragging text selected before, then the left button is pressed at
// span.From, moved in steps and let go at span.To. It returns the text
// selected then, as the browser reports it.
func (t *Context) SelectText(ctx context.Context, span TextSpan) (string, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	if err := t.judgedCall(c, "function() { getSelection().removeAllRanges(); }", nil); err != nil {
		return "", fmt.Errorf("select text: %w", err)
	}
	if err := t.Drag(ctx, span.From.X, span.From.Y, span.To.X, span.To.Y); err != nil {
		return "", fmt.Errorf("select text: %w", err)
	}
	return t.SelectedText(ctx)
}

// SelectedText returns the text selected in the page's main frame (or in
// the field that holds the selection), as the browser reports it.
func (t *Context) SelectedText(ctx context.Context) (string, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	var got string
	const read = `function() {
		const a = document.activeElement;
		if (a && (a.tagName === 'INPUT' || a.tagName === 'TEXTAREA') && typeof a.selectionStart === 'number' && a.selectionEnd > a.selectionStart) {
			return a.value.slice(a.selectionStart, a.selectionEnd);
		}
		return String(getSelection());
	}`
	if err := t.judgedCall(c, read, &got); err != nil {
		return "", fmt.Errorf("read the selection: %w", err)
	}
	return strings.TrimSpace(got), nil
}
