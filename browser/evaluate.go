package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// ErrDocumentChanged reports a script that was not run because the page is
// no longer the document it was approved on.
var ErrDocumentChanged = errors.New("the page is no longer the document the script was approved on")

// ScriptError is a script of the agent's that threw, or that is no function.
type ScriptError struct{ Message string }

func (e *ScriptError) Error() string { return "the script threw: " + e.Message }

// RunScript runs fn, the source of a JavaScript function ("() =>
// document.title"), in the page's own world of the current page's main
// document, awaiting what it returns, and returns that as JSON (or as the
// browser describes it, when it is not JSON). It runs only in the document
// w names (the one a person approved it on): the document object it runs on
// is taken first and its document then checked to be w's, and a call on it
// fails once that document is gone, so no navigation in between lets fn
// run elsewhere. A script still running after timeout is stopped.
func (t *Context) RunScript(ctx context.Context, w Where, fn string, timeout time.Duration) (string, error) {
	p, _ := t.page()
	if string(p.id) != w.Target {
		return "", ErrDocumentChanged
	}
	c, cancel := within(ctx, p.live, timeout)
	defer cancel()
	doc, err := chromedp.Call(c, cmdEvaluate, map[string]any{"expression": "document"})
	if err != nil {
		return "", fmt.Errorf("run the script: take the document: %w", err)
	}
	if err := doc.err(); err != nil || doc.Result.ObjectID == "" {
		return "", fmt.Errorf("run the script: take the document: %v", err)
	}
	obj := &pageObject{t: t, id: doc.Result.ObjectID}
	defer obj.release(ctx)
	tree, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return "", fmt.Errorf("run the script: read the page's document: %w", err)
	}
	if f := tree.FrameTree.Frame; f == nil || string(f.LoaderID) != w.Document || string(f.ID) != w.Frame {
		return "", ErrDocumentChanged
	}
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
		"objectId": obj.id, "functionDeclaration": fn, "awaitPromise": true, "returnByValue": true,
	})
	if err != nil {
		if c.Err() != nil {
			// A script that loops keeps the page's thread: stop it.
			s, stop := within(context.WithoutCancel(ctx), p.live, releaseTimeout)
			_, _ = chromedp.Call(s, runtime.TerminateExecution, cdp.Empty{})
			stop()
			return "", fmt.Errorf("run the script: %w", context.DeadlineExceeded)
		}
		return "", &ScriptError{Message: err.Error()}
	}
	if err := res.err(); err != nil {
		return "", &ScriptError{Message: err.Error()}
	}
	if len(res.Result.Value) > 0 {
		return string(res.Result.Value), nil
	}
	return res.Result.Type, nil
}
