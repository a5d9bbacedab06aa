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
// only, so the browser is asked for these: one
// DOMDebugger.getEventListeners on the document, the whole tree deep,
// shadow roots and same-process frames included. The document is taken
// from the judging world, whose built-ins the page cannot touch; with
// pierce the browser reports every world's listeners, the page's included,
// and nothing the page says about itself counts.

// cmdEventListeners is DOMDebugger.getEventListeners, with a result that
// keeps only what a capture uses (each listener's event and node).
var cmdEventListeners = cdp.Command[domdebugger.GetEventListenersParams, eventListeners]{Method: domdebugger.CommandGetEventListeners}

// eventListeners is the part of DOMDebugger.getEventListeners' result that
// a capture keeps.
type eventListeners struct {
	Listeners []struct {
		Type          string `json:"type"`
		BackendNodeID int64  `json:"backendNodeId"`
	} `json:"listeners"`
}

// maxGestures bounds the listeners a capture keeps per process: more than
// any element budget shows, fewer than a hostile page may add.
const maxGestures = 20000

// gestureListeners lists the nodes of the process of the chromedp context c
// that listen for a double click or a right click, with base added to their
// backend node ids. Listeners on the window are no node's and are not
// listed: no element answers for them.
func (t *Context) gestureListeners(c context.Context, base int64) ([]capture.Gesture, error) {
	doc, err := t.judgedEvaluate(c, "document", false)
	if err == nil {
		err = doc.err()
	}
	if err != nil {
		return nil, fmt.Errorf("gesture listeners: the document: %w", err)
	}
	if doc.Result.ObjectID == "" {
		return nil, errors.New("gesture listeners: the document is no object")
	}
	defer func() {
		rc, cancel := context.WithTimeout(context.WithoutCancel(c), releaseTimeout)
		defer cancel()
		_, _ = chromedp.Call(rc, cmdReleaseObject, map[string]any{"objectId": doc.Result.ObjectID})
	}()
	depth, pierce := int64(-1), true
	res, err := chromedp.Call(c, cmdEventListeners, domdebugger.GetEventListenersParams{
		ObjectID: runtime.RemoteObjectID(doc.Result.ObjectID), Depth: &depth, Pierce: &pierce,
	})
	if err != nil {
		return nil, fmt.Errorf("gesture listeners: %w", err)
	}
	var out []capture.Gesture
	seen := make(map[capture.Gesture]bool)
	for _, l := range res.Listeners {
		if l.BackendNodeID == 0 || (l.Type != capture.GestureDoubleClick && l.Type != capture.GestureContextMenu) {
			continue
		}
		g := capture.Gesture{Node: l.BackendNodeID + base, Type: l.Type}
		if seen[g] {
			continue
		}
		seen[g] = true
		if out = append(out, g); len(out) >= maxGestures {
			break
		}
	}
	return out, nil
}
