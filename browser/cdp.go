package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/ctxjoin"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// ErrDetached reports a node that is no longer in the page.
var ErrDetached = errors.New("node is no longer in the page")

// releaseTimeout bounds the release of a page object, which runs after the
// call that used it, whose deadline may be spent.
const releaseTimeout = time.Second

// Raw protocol commands. The typed cdproto ones are strict about enum values
// and drop zero fields that some commands need, so these go as raw JSON.
var (
	cmdResolveNode      = cdp.Command[map[string]any, resolveNodeResult]{Method: "DOM.resolveNode"}
	cmdCallFunctionOn   = cdp.Command[map[string]any, scriptResult]{Method: "Runtime.callFunctionOn"}
	cmdReleaseObject    = cdp.Command[map[string]any, json.RawMessage]{Method: "Runtime.releaseObject"}
	cmdEvaluate         = cdp.Command[map[string]any, scriptResult]{Method: "Runtime.evaluate"}
	cmdPartialAXTree    = cdp.Command[map[string]any, partialAXTree]{Method: "Accessibility.getPartialAXTree"}
	cmdDispatchMouse    = cdp.Command[map[string]any, json.RawMessage]{Method: "Input.dispatchMouseEvent"}
	cmdInsertText       = cdp.Command[map[string]any, json.RawMessage]{Method: "Input.insertText"}
	cmdDispatchKeyEvent = cdp.Command[map[string]any, json.RawMessage]{Method: "Input.dispatchKeyEvent"}
	cmdGetLayoutMetrics = cdp.Command[map[string]any, layoutMetrics]{Method: "Page.getLayoutMetrics"}
	cmdFocus            = cdp.Command[map[string]any, json.RawMessage]{Method: "DOM.focus"}
)

type resolveNodeResult struct {
	Object struct {
		ObjectID string `json:"objectId"`
	} `json:"object"`
}

// scriptResult is the result of Runtime.evaluate and Runtime.callFunctionOn.
type scriptResult struct {
	Result struct {
		Type     string          `json:"type"`
		Value    json.RawMessage `json:"value"`
		ObjectID string          `json:"objectId"`
	} `json:"result"`
	ExceptionDetails *struct {
		Text      string `json:"text"`
		Exception *struct {
			Description string `json:"description"`
		} `json:"exception"`
	} `json:"exceptionDetails"`
}

func (r scriptResult) err() error {
	if r.ExceptionDetails == nil {
		return nil
	}
	if e := r.ExceptionDetails.Exception; e != nil && e.Description != "" {
		return fmt.Errorf("script: %s", e.Description)
	}
	return fmt.Errorf("script: %s", r.ExceptionDetails.Text)
}

// decode reports a script's exception as an error, or decodes its JSON
// result into out (which may be nil).
func (r scriptResult) decode(out any) error {
	if err := r.err(); err != nil {
		return err
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// pageObject is a node of the page that scripts run on, as their this,
// until it is released. It belongs to one document: calls on it fail once
// that document is gone. Calls on it count as a user gesture, as the input
// they stand for would.
type pageObject struct {
	t  *Context
	id string
	// frame is the out-of-process frame whose process holds the object,
	// nil for the page's.
	frame *remoteFrame
}

// cdp returns a context for protocol calls in the object's process.
func (o *pageObject) cdp(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.frame != nil {
		return o.frame.cdp(ctx)
	}
	return o.t.cdp(ctx)
}

// nodeOf is the node with the backend node id local in the object's
// process.
func (o *pageObject) nodeOf(local int64) nodeID { return nodeIn(o.frame, local) }

// node returns the DOM node as a page object, or ErrDetached when it is
// gone. Calls on it count as user gestures.
func (t *Context) node(ctx context.Context, node nodeID) (*pageObject, error) {
	r, err := t.route(ctx, node)
	if err != nil {
		return nil, err
	}
	defer r.cancel()
	// In the judging world: the scripts run on it judge what the page
	// does, so they must not run with the page's built-ins.
	obj, err := t.judgedResolve(r.ctx, int64(r.local))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDetached, err)
	}
	return &pageObject{t: t, id: obj.Object.ObjectID, frame: r.frame}, nil
}

// call runs the JavaScript function fn with the object as this and args as
// its arguments, awaiting a promise, and decodes its JSON result into out
// (which may be nil).
func (o *pageObject) call(ctx context.Context, fn string, out any, args ...any) error {
	c, cancel := o.cdp(ctx)
	defer cancel()
	callArgs := argValues(args)
	params := map[string]any{
		"objectId":            o.id,
		"functionDeclaration": fn,
		"arguments":           callArgs,
		"returnByValue":       true,
		"awaitPromise":        true,
		"userGesture":         true,
	}
	res, err := chromedp.Call(c, cmdCallFunctionOn, params)
	if err != nil {
		return err
	}
	return res.decode(out)
}

// argValues are args as Runtime.callFunctionOn takes them.
func argValues(args []any) []map[string]any {
	vs := make([]map[string]any, len(args))
	for i, a := range args {
		vs[i] = map[string]any{"value": a}
	}
	return vs
}

// release lets the page forget the object. It has its own short deadline,
// since ctx's may be spent.
func (o *pageObject) release(ctx context.Context) {
	c, cancel := o.cdp(context.WithoutCancel(ctx))
	defer cancel()
	c, cancelRelease := context.WithTimeout(c, releaseTimeout)
	defer cancelRelease()
	_, _ = chromedp.Call(c, cmdReleaseObject, map[string]any{"objectId": o.id})
}

// releaseRemote releases a remote object, even once c is done.
func releaseRemote(c context.Context, id string) {
	rc, cancel := context.WithTimeout(context.WithoutCancel(c), releaseTimeout)
	defer cancel()
	_, _ = chromedp.Call(rc, cmdReleaseObject, map[string]any{"objectId": id})
}

// callOn runs the JavaScript function fn with the node as this and args as
// its arguments, and decodes its JSON result into out (which may be nil).
func (t *Context) callOn(ctx context.Context, node nodeID, fn string, out any, args ...any) error {
	n, err := t.node(ctx, node)
	if err != nil {
		return err
	}
	defer n.release(ctx)
	return n.call(ctx, fn, out, args...)
}

// callPage runs the JavaScript function fn in the main frame's current
// document, with its window as this and args as its arguments, and decodes
// its JSON result into out (which may be nil). It is one Runtime.evaluate
// of fn applied to args, which travel JSON-encoded beside the function,
// never inside its body. Unlike a call on a node it is no user gesture: the
// server's own watching must not give the page a user activation it would
// not otherwise have.
func (t *Context) callPage(ctx context.Context, fn string, out any, args ...any) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	return callIn(c, fn, out, args...)
}

// callIn is callPage in the main frame of the session of c, a page's or an
// out-of-process frame's.
func callIn(c context.Context, fn string, out any, args ...any) error {
	expr, err := applyJS(fn, args...)
	if err != nil {
		return err
	}
	return evaluate(c, expr, out)
}

// applyJS is the expression that applies the page script fn to args, with
// the window as this; the arguments travel JSON-encoded beside the
// function, never inside its body.
func applyJS(fn string, args ...any) (string, error) {
	list, err := json.Marshal(append([]any{}, args...))
	if err != nil {
		return "", fmt.Errorf("encoding a page script's arguments: %w", err)
	}
	return "(" + fn + ").apply(globalThis, " + string(list) + ")", nil
}

// Evaluate runs a JavaScript expression in the main frame, awaiting a
// promise, and decodes its JSON result into out (which may be nil).
func (t *Context) Evaluate(ctx context.Context, expr string, out any) error {
	c, cancel := t.cdp(ctx)
	defer cancel()
	return evaluate(c, expr, out)
}

// evaluate runs a JavaScript expression in the main frame of the target of
// the chromedp context c, awaiting a promise, and decodes its JSON result
// into out (which may be nil).
func evaluate(c context.Context, expr string, out any) error {
	res, err := chromedp.Call(c, cmdEvaluate, map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	})
	if err != nil {
		return err
	}
	return res.decode(out)
}

// cdp returns a context for protocol calls on the tab: it carries the tab's
// chromedp target (so chromedp.Call and chromedp.Run work on it), ends when
// ctx or the tab ends (the tab ends when its renderer crashes, it is closed,
// or the browser dies), and has ctx's deadline or, when ctx has none, a
// default of 10 s. Every protocol call of the package goes through it.
func (t *Context) cdp(ctx context.Context) (context.Context, context.CancelFunc) {
	p, _ := t.page()
	return within(ctx, p.live, defaultCallTimeout)
}

// within derives from base (a chromedp context, whose values it keeps) a
// context that ends when ctx ends, and that has ctx's deadline or, when ctx
// has none, the default d.
func within(ctx, base context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctxjoin.Join(base, ctx)
	}
	base, cancelDefault := context.WithTimeout(base, d)
	c, stop := ctxjoin.Join(base, ctx)
	return c, func() {
		stop()
		cancelDefault()
	}
}

// object runs fn on the object like call, and returns what it returns as
// a page object of the same process, to be released by the caller.
func (o *pageObject) object(ctx context.Context, fn string, args ...any) (*pageObject, error) {
	c, cancel := o.cdp(ctx)
	defer cancel()
	callArgs := argValues(args)
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
		"objectId": o.id, "functionDeclaration": fn, "arguments": callArgs,
	})
	if err != nil {
		return nil, err
	}
	if err := res.err(); err != nil {
		return nil, err
	}
	return &pageObject{t: o.t, id: res.Result.ObjectID, frame: o.frame}, nil
}
