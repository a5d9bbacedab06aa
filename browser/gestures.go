package browser

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// A capture's listeners for the gestures other than a plain click: double
// click and right click (docs/architecture.md, "Exposure by behaviour").
// DOMSnapshot's isClickable counts click, mousedown and mouseup listeners
// only, so the browser is asked for these.
//
// DOMDebugger.getEventListeners is never asked to pierce: with pierce it
// walks user-agent shadow trees and reports every world's listeners, and a
// page of ordinary widgets (widgets3/slider) crashed the renderer a few
// captures later. Instead the document is described once, shadow roots and
// same-process frames included (DOM.describeNode reads the tree without
// running page script), and each tree scope the page owns (the document,
// each open or closed author shadow root, each same-process frame's
// document) is resolved in its page world and asked for its own subtree,
// without pierce. The page's listeners live in its page world, so those are
// the ones reported; nothing the page says about itself counts.

// cmdEventListeners is DOMDebugger.getEventListeners, with a result that
// keeps only what a capture uses (each listener's event and node).
var cmdEventListeners = cdp.Command[domdebugger.GetEventListenersParams, eventListeners]{Method: domdebugger.CommandGetEventListeners}

// cmdDescribeScopes is DOM.describeNode over the whole tree, with a result
// that keeps only what finding the tree scopes needs.
var cmdDescribeScopes = cdp.Command[map[string]any, struct {
	Node scopeNode `json:"node"`
}]{Method: "DOM.describeNode"}

// scopeNode is a node of DOM.describeNode's tree as far as tree scopes go.
type scopeNode struct {
	BackendNodeID   int64       `json:"backendNodeId"`
	ShadowRootType  string      `json:"shadowRootType"`
	Children        []scopeNode `json:"children"`
	ShadowRoots     []scopeNode `json:"shadowRoots"`
	ContentDocument *scopeNode  `json:"contentDocument"`
}

// eventListeners is the part of DOMDebugger.getEventListeners' result that
// a capture keeps.
type eventListeners struct {
	Listeners []listener `json:"listeners"`
}

// listener is one listener of DOMDebugger.getEventListeners: its event and
// the node it listens on (0 for the window).
type listener struct {
	Type          string `json:"type"`
	BackendNodeID int64  `json:"backendNodeId"`
}

// maxGestures bounds the listeners a capture keeps per process: more than
// any element budget shows, fewer than a hostile page may add.
const maxGestures = 20000

// maxScopes bounds the tree scopes (documents and author shadow roots) a
// capture asks for listeners, three calls each: a page of web components
// has tens; one that makes thousands gets the first ones.
const maxScopes = 300

// gestureListeners lists the nodes of the process of the chromedp context c
// that listen for a double click or a right click, with base added to their
// backend node ids. Listeners on the window are no node's and are not
// listed: no element answers for them.
func (t *Context) gestureListeners(c context.Context, base int64) ([]capture.Gesture, error) {
	scopes, err := t.treeScopes(c)
	if err != nil {
		return nil, fmt.Errorf("gesture listeners: %w", err)
	}
	var out []capture.Gesture
	seen := make(map[capture.Gesture]bool)
	for _, scope := range scopes {
		ls, err := scopeListeners(c, scope)
		if err != nil {
			if c.Err() != nil {
				return nil, fmt.Errorf("gesture listeners: %w", err)
			}
			// A scope gone since it was described has no listeners left.
			continue
		}
		for _, l := range ls {
			if l.BackendNodeID == 0 || (l.Type != capture.GestureDoubleClick && l.Type != capture.GestureContextMenu) {
				continue
			}
			g := capture.Gesture{Node: l.BackendNodeID + base, Type: l.Type}
			if seen[g] {
				continue
			}
			seen[g] = true
			if out = append(out, g); len(out) >= maxGestures {
				return out, nil
			}
		}
	}
	return out, nil
}

// treeScopes returns the backend node ids of the document of c's process
// and of each author shadow root and same-process frame document in it, at
// most maxScopes. The document is taken from the judging world, whose
// built-ins the page cannot touch.
func (t *Context) treeScopes(c context.Context) ([]int64, error) {
	doc, err := t.judgedEvaluate(c, "document", false)
	if err == nil {
		err = doc.err()
	}
	if err != nil {
		return nil, fmt.Errorf("the document: %w", err)
	}
	if doc.Result.ObjectID == "" {
		return nil, errors.New("the document is no object")
	}
	defer releaseRemote(c, doc.Result.ObjectID)
	d, err := chromedp.Call(c, cmdDescribeScopes, map[string]any{"objectId": doc.Result.ObjectID, "depth": -1, "pierce": true})
	if err != nil {
		return nil, fmt.Errorf("describe the document: %w", err)
	}
	scopes := []int64{d.Node.BackendNodeID}
	var walk func(n *scopeNode)
	walk = func(n *scopeNode) {
		for i := range n.ShadowRoots {
			// A user-agent shadow root (inputs, media, details) is the
			// browser's own: no page listener is there.
			if r := &n.ShadowRoots[i]; r.ShadowRootType != "user-agent" && len(scopes) < maxScopes {
				scopes = append(scopes, r.BackendNodeID)
				walk(r)
			}
		}
		if cd := n.ContentDocument; cd != nil && len(scopes) < maxScopes {
			scopes = append(scopes, cd.BackendNodeID)
			walk(cd)
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	walk(&d.Node)
	return scopes, nil
}

// scopeListeners lists the listeners in the subtree of one tree scope (a
// document or a shadow root), as its page world holds them, stopping at
// shadow roots and frames.
func scopeListeners(c context.Context, backendNodeID int64) ([]listener, error) {
	// Without an execution context, DOM.resolveNode answers in the page
	// world of the node's document: the world whose listeners count.
	r, err := chromedp.Call(c, cmdResolveNode, map[string]any{"backendNodeId": backendNodeID})
	if err != nil {
		return nil, fmt.Errorf("resolve scope %d: %w", backendNodeID, err)
	}
	if r.Object.ObjectID == "" {
		return nil, fmt.Errorf("resolve scope %d: no object", backendNodeID)
	}
	defer releaseRemote(c, r.Object.ObjectID)
	depth, pierce := int64(-1), false
	res, err := chromedp.Call(c, cmdEventListeners, domdebugger.GetEventListenersParams{
		ObjectID: runtime.RemoteObjectID(r.Object.ObjectID), Depth: &depth, Pierce: &pierce,
	})
	if err != nil {
		return nil, fmt.Errorf("listeners of scope %d: %w", backendNodeID, err)
	}
	return res.Listeners, nil
}
