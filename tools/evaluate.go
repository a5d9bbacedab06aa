package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// evaluateInput is the arguments of browser_evaluate.
type evaluateInput struct {
	Function string `json:"function"`
}

// Bounds of browser_evaluate: a script a person can read whole, a run that
// ends, and an answer within the token budget.
const (
	maxScript     = 4000
	scriptTimeout = 10 * time.Second
	scriptResult  = 2000
)

// evaluate runs browser_evaluate (--caps eval): every script is put to a
// person, shown whole and escaped, with the page it would run on
// (Gate.AuthorizeScript), and runs only once they approve it, only in the
// document they saw; a rejected script never reaches the page. Its answer
// is masked like every output, and so are the parts of a secret in it: a
// script may return the halves of a password apart (secrets.redactParts).
func (s *Session) evaluate(ctx context.Context, c *call, in evaluateInput) (string, error) {
	fn := strings.TrimSpace(in.Function)
	if fn == "" {
		return "", fail(toolapi.InvalidParams, "function is the source of a JavaScript function, e.g. \"() => document.title\".")
	}
	if n := utf8.RuneCountInString(fn); n > maxScript {
		return "", fail(toolapi.InvalidParams, "The script is %d characters; a person must read it whole before it runs, so at most %d.", n, maxScript)
	}
	if d := s.tab.Dialog(); d != nil {
		return "", fail(toolapi.InvalidParams, "A %s dialog is open and the page waits for it: answer it with browser_click on OK or Cancel first.", d.Type)
	}
	w, err := s.tab.PageWhere(ctx)
	if err != nil {
		return "", fmt.Errorf("find the page the script runs in: %w", err)
	}
	a := checkpoint.Action{Verb: checkpoint.VerbScript, Value: fn,
		Where: checkpoint.Where{Target: w.Target, Frame: w.Frame, Document: w.Document, URL: s.secrets.redact(w.URL)}}
	d, err := s.gate.AuthorizeScript(ctx, s.shown(ctx, nil), a)
	if err != nil {
		return "", fail(toolapi.HumanRejected, "The approval request was withdrawn before a human answered (%v); the script was not run.", err)
	}
	if !d.Approved {
		return "", fail(toolapi.HumanRejected, "The script was not run. %s", d.Message())
	}
	c.approval = d.RequestID
	if now, err := s.tab.PageWhere(ctx); err != nil || now != w {
		return "", fail(toolapi.ActionFailed, "The page changed while a human was asked (another tab, a navigation or a reload): the script was not run. Ask again on this page.")
	}
	var result string
	msg, err := s.settle(ctx, c, scriptTimeout, func(ctx context.Context) error {
		r, err := s.tab.RunScript(ctx, w, fn, scriptTimeout)
		result = r
		return err
	}, scriptStarted)
	var thrown *browser.ScriptError
	switch {
	case errors.As(err, &thrown):
		return "", fail(toolapi.ActionFailed, "The script ran and threw (page data): %s", clip(s.secrets.redactParts()(thrown.Message), messageLimit))
	case errors.Is(err, browser.ErrDocumentChanged):
		return "", fail(toolapi.ActionFailed, "The page changed after the approval (a navigation or a reload): the script was not run. Ask again on this page.")
	case err != nil:
		return "", err
	}
	rest := strings.TrimPrefix(msg, scriptStarted)
	return strings.TrimSpace(fmt.Sprintf("The script ran, approved by a person. It returned (page data, untrusted): %s %s", clip(s.secrets.redactParts()(result), scriptResult), rest)), nil
}

// scriptStarted opens what browser_evaluate says when the script did not
// finish (a timeout), and is replaced by its result when it did.
const scriptStarted = "The script was started."
