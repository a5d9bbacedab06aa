package browser

import (
	"context"
	"errors"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// JavaScript dialogs. An open dialog blocks input, scripts and screenshots
// on its page until it is answered, so each page notes the dialog from its
// own events (tabPage.onEvent) and Settle from its watch, whichever hears
// first.

// ErrNoDialog is returned by HandleDialog when no dialog is open.
var ErrNoDialog = errors.New("no JavaScript dialog is open")

// openDialog notes the dialog that opened. Settle notes it too, as soon as
// it hears of it, before it returns.
func (p *tabPage) openDialog(d capture.Dialog) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dialog = &d
	select {
	case <-p.dialogOpened:
	default:
		close(p.dialogOpened)
	}
}

func (p *tabPage) clearDialog() {
	p.mu.Lock()
	if p.dialog != nil {
		p.dialog = nil
		p.dialogOpened = make(chan struct{})
	}
	p.mu.Unlock()
}

// state returns the open dialog (nil if none) and a channel that is closed
// when a dialog opens.
func (p *tabPage) state() (*capture.Dialog, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dialog == nil {
		return nil, p.dialogOpened
	}
	d := *p.dialog
	return &d, p.dialogOpened
}

// Dialog returns the JavaScript dialog open on the page, or nil.
func (t *Context) Dialog() *capture.Dialog {
	p, _ := t.page()
	d, _ := p.state()
	return d
}

// HandleDialog answers the open JavaScript dialog: accept presses OK (with
// promptText in a prompt), otherwise Cancel. It returns ErrNoDialog when no
// dialog is open.
func (t *Context) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	p, _ := t.page()
	if d, _ := p.state(); d == nil {
		return ErrNoDialog
	}
	c, cancel := t.cdp(ctx)
	defer cancel()
	_, err := chromedp.Call(c, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{
		Accept: accept, PromptText: promptText,
	})
	if err != nil {
		return t.fail("answering the dialog", err)
	}
	p.clearDialog()
	return nil
}
