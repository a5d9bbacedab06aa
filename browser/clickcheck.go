package browser

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/chromedp"
)

// onNodeJS reports whether the element hit (the argument) is the node
// (this), inside it (across shadow roots), or a label of it: what a click
// on the node may land on. It runs in an isolated world, where no
// prototype the page patched takes part.
const onNodeJS = `function(hit) {
	for (let n = hit; n; n = n.parentNode || n.host || null) {
		if (n === this) return true;
		if (n.nodeType === 1 && n.tagName === 'LABEL' && n.control === this) return true;
	}
	return false;
}`

// errMovedUnder reports a click not pressed: the pointer, once there, was
// over another element than the one aimed at. A record reads it as a miss.
var errMovedUnder = errors.New("another element was under the pointer as it arrived; the button was not pressed")

// clickOn returns the send of a click aimed at node: the pointer moves to
// x, y, and the button is pressed there only if the browser's hit test
// still finds the node (or something inside it, or a label of it) at the
// point. A page that moves another element under the pointer as it
// arrives (on pointermove or mouseover) would otherwise have the press
// land on that element, whose default action (a submit, a link) no record
// of the click stops once the page stops the event before the record's
// listeners hear it.
func (t *Context) clickOn(node nodeID) func(ctx context.Context, x, y float64) error {
	return t.clickOnWith(node, Mouse{}, 1)
}

// clickOnWith is clickOn for press n of the click m (mouse.go): each press
// of a double click is looked at as the first is.
func (t *Context) clickOnWith(node nodeID, m Mouse, n int) func(ctx context.Context, x, y float64) error {
	return func(ctx context.Context, x, y float64) error {
		if err := t.Hover(ctx, x, y); err != nil {
			return fmt.Errorf("click at %.0f,%.0f: %w", x, y, err)
		}
		hit, _, err := t.hitTest(ctx, Point{x, y})
		if err != nil {
			return fmt.Errorf("click at %.0f,%.0f: %w", x, y, err)
		}
		ok, err := t.onNode(ctx, node, nodeOf(hit))
		if err != nil {
			return fmt.Errorf("click at %.0f,%.0f: %w", x, y, err)
		}
		if !ok {
			return errMovedUnder
		}
		return t.pressButton(ctx, x, y, m, n)
	}
}

// onNode reports whether hit is node, inside it, or a label of it.
func (t *Context) onNode(ctx context.Context, node, hit nodeID) (bool, error) {
	if hit == node {
		return true, nil
	}
	if hit.frame != node.frame {
		return false, nil
	}
	r, err := t.route(ctx, node)
	if err != nil {
		return false, err
	}
	defer r.cancel()
	objs, err := t.isolatedNodes(r.ctx, []int64{node.id(), hit.id()})
	if err != nil {
		return false, err
	}
	// Released in the background, as a delivery record is: nothing waits on
	// them, and on the click's path each was a round trip before the press,
	// which under load is a wait for three busy processes.
	defer func() {
		for _, o := range objs {
			go releaseRemote(r.ctx, o)
		}
	}()
	res, err := chromedp.Call(r.ctx, cmdCallFunctionOn, map[string]any{
		"objectId": objs[0], "functionDeclaration": onNodeJS,
		"arguments": []map[string]any{{"objectId": objs[1]}}, "returnByValue": true,
	})
	if err != nil {
		return false, err
	}
	var ok bool
	if err := res.decode(&ok); err != nil {
		return false, err
	}
	return ok, nil
}
