package browser

import (
	"context"
	_ "embed" // the page scripts of this file
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// What an input activates when it is not the element it goes to: the gate
// judges that (docs/architecture.md, "Keys, drags, uploads").

var (
	// implicitSubmitJS finds what Enter in a field submits.
	//go:embed js/implicitSubmit.js
	implicitSubmitJS string

	// formTextJS reads a form's text.
	//go:embed js/formText.js
	formTextJS string

	// holdsPaymentFieldJS tells whether a document holds a card field.
	//go:embed js/holdsPaymentField.js
	holdsPaymentFieldJS string

	// labelControlJS finds the control a click in a label activates.
	//go:embed js/labelControl.js
	labelControlJS string

	// inputFilesJS lists the files a file input holds.
	//go:embed js/inputFiles.js
	inputFilesJS string
)

// cmdDescribeFocus describes a node with what following focus needs: its
// name, and for a frame's owner element the frame and, in process, its
// document.
var cmdDescribeFocus = cdp.Command[map[string]any, describedNode]{Method: "DOM.describeNode"}

type describedNode struct {
	Node struct {
		BackendNodeID   int64  `json:"backendNodeId"`
		NodeName        string `json:"nodeName"`
		PseudoType      string `json:"pseudoType"`
		FrameID         string `json:"frameId"`
		ContentDocument *struct {
			BackendNodeID int64 `json:"backendNodeId"`
		} `json:"contentDocument"`
	} `json:"node"`
}

// maxFrameDepth bounds how deep focus is followed through nested frames.
const maxFrameDepth = 16

// Activation is the control an input activates when that is not the
// element the input goes to.
type Activation struct {
	// Node is its backend node id (frames.go).
	Node int64
	// Role and Name are its accessible role and name; a form with no name
	// of its own is named by its text.
	Role string
	Name string
	// SubmitsForm says that activating it submits a form, sent to
	// FormAction (Inspection's).
	SubmitsForm bool
	FormAction  string
}

// formTextMax bounds the text that names a form with no name of its own.
const formTextMax = 200

// EnterActivates returns what Enter in the field backendNodeID submits
// (HTML's implicit submission): the form's default button, or the form
// itself when it has no submit button and submits on Enter. It returns nil
// when Enter submits nothing.
func (t *Context) EnterActivates(ctx context.Context, backendNodeID int64) (*Activation, error) {
	return t.activated(ctx, nodeOf(backendNodeID), implicitSubmitJS)
}

// activated runs the page script fn on the node, which returns the element
// an input on the node activates or null, and describes that element.
func (t *Context) activated(ctx context.Context, node nodeID, fn string) (*Activation, error) {
	n, err := t.node(ctx, node)
	if err != nil {
		return nil, err
	}
	defer n.release(ctx)
	c, cancel := n.cdp(ctx)
	defer cancel()
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
		"objectId": n.id, "functionDeclaration": fn, "returnByValue": false,
	})
	if err != nil {
		return nil, fmt.Errorf("find what an input on node %s activates: %w", node, err)
	}
	if err := res.err(); err != nil {
		return nil, fmt.Errorf("find what an input on node %s activates: %w", node, err)
	}
	if res.Result.ObjectID == "" {
		return nil, nil
	}
	obj := &pageObject{t: t, id: res.Result.ObjectID, frame: n.frame}
	defer obj.release(ctx)
	d, err := chromedp.Call(c, cmdDescribeFocus, map[string]any{"objectId": obj.id})
	if err != nil {
		return nil, fmt.Errorf("describe what an input on node %s activates: %w", node, err)
	}
	activated := obj.nodeOf(d.Node.BackendNodeID)
	a := &Activation{Node: activated.id()}
	if a.Role, a.Name, err = t.axOf(ctx, activated); err != nil {
		return nil, fmt.Errorf("what an input on node %s activates: %w", node, err)
	}
	if d.Node.NodeName == "FORM" {
		if a.Role == "" || a.Role == "none" || a.Role == "generic" {
			a.Role = "form"
		}
		if a.Name == "" {
			if err := obj.call(ctx, formTextJS, &a.Name, formTextMax); err != nil {
				return nil, fmt.Errorf("read the form node %s submits: %w", node, err)
			}
		}
	}
	return a, nil
}

// labelControl returns the control a click on the node activates through
// the label the node is in, and whether that control submits a payment
// form; nil when there is none.
func (t *Context) labelControl(ctx context.Context, node nodeID) (*Activation, bool, error) {
	a, err := t.activated(ctx, node, labelControlJS)
	if err != nil || a == nil {
		return nil, false, err
	}
	in, err := t.inspect(ctx, nodeOf(a.Node), false, false)
	if err != nil {
		return nil, false, fmt.Errorf("the control of the label: %w", err)
	}
	a.SubmitsForm, a.FormAction = in.SubmitsForm, in.FormAction
	return a, in.SubmitsPayment, nil
}

// axOf returns the accessible role and name of a node now.
func (t *Context) axOf(ctx context.Context, node nodeID) (role, name string, err error) {
	r, err := t.route(ctx, node)
	if err != nil {
		return "", "", err
	}
	defer r.cancel()
	tree, err := chromedp.Call(r.ctx, cmdPartialAXTree, map[string]any{"backendNodeId": r.local, "fetchRelatives": false})
	if err != nil {
		return "", "", fmt.Errorf("accessibility of node %s: %w", node, err)
	}
	for _, n := range tree.Nodes {
		if n.BackendDOMNodeID == r.local {
			return n.Role.String(), n.Name.String(), nil
		}
	}
	return "", "", nil
}

// framesHoldPayment reports whether a frame of the page holds a
// payment-card field: an out-of-process frame anywhere in it (hosted card
// fields, as Stripe's and Braintree's, live in one), or a same-origin frame
// of the page's document. A frame that cannot be asked counts as none.
func (t *Context) framesHoldPayment(ctx context.Context) bool {
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		found bool
	)
	ask := func(c context.Context, framesOnly bool) {
		var n int
		if err := t.judgedCall(c, holdsPaymentFieldJS, &n, PaymentFieldPattern, framesOnly); err == nil && n > 0 {
			mu.Lock()
			found = true
			mu.Unlock()
		}
	}
	// The page's own frames are asked while the out-of-process ones are
	// listed: on the plan of every submit, one round trip for the time of
	// two.
	wg.Go(func() { ask(c, true) })
	frames := p.liveFrames()
	// Frames the page added since the last capture are attached now.
	if cc := chromedp.FromContext(c); cc != nil && cc.Target != nil {
		if fs, err := t.remoteFrames(c, p, cc); err == nil {
			frames = fs
		}
	}
	for _, f := range frames {
		wg.Go(func() {
			fc, cancel := f.cdp(ctx)
			defer cancel()
			ask(fc, false)
		})
	}
	wg.Wait()
	return found
}

// FileInfo is a file a file input holds: its name and size in bytes.
type FileInfo struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// Files returns the files the file input backendNodeID holds now.
func (t *Context) Files(ctx context.Context, backendNodeID int64) ([]FileInfo, error) {
	var files []FileInfo
	if err := t.callOn(ctx, nodeOf(backendNodeID), inputFilesJS, &files); err != nil {
		return nil, fmt.Errorf("read the files of node %d: %w", backendNodeID, err)
	}
	return files, nil
}

// Focused returns the backend node id of the element that has focus, in the
// deepest frame: through open shadow roots and frames of any origin,
// following focus into out-of-process frames by their sessions. It returns
// 0 when nothing but the page itself has focus, and a frame's iframe
// element when focus is in that frame but on no element of it.
func (t *Context) Focused(ctx context.Context) (int64, error) {
	c, cancel := t.cdp(ctx)
	defer func() { cancel() }()
	res, err := t.judgedEvaluate(c, "("+activeElementJS+")()", false)
	if err != nil {
		return 0, fmt.Errorf("find the focused element: %w", err)
	}
	if err := res.err(); err != nil {
		return 0, fmt.Errorf("find the focused element: %w", err)
	}
	var frame *remoteFrame
	var found int64
	id := res.Result.ObjectID
	for depth := 0; id != "" && depth < maxFrameDepth; depth++ {
		obj := &pageObject{t: t, id: id, frame: frame}
		d, err := chromedp.Call(c, cmdDescribeFocus, map[string]any{"objectId": id})
		obj.release(ctx)
		if err != nil {
			return 0, fmt.Errorf("describe the focused element: %w", err)
		}
		found = obj.nodeOf(d.Node.BackendNodeID).id()
		if d.Node.NodeName != "IFRAME" && d.Node.NodeName != "FRAME" {
			break
		}
		// Focus is in a frame the page script could not read into:
		// follow it there.
		next := t.focusInFrame(ctx, c, d)
		if next.id == "" {
			break
		}
		if next.ctx != nil {
			cancel()
			c, cancel, frame = next.ctx, next.cancel, next.frame
		}
		id = next.id
	}
	return found, nil
}

// frameFocus is the focused element of a frame: its object id, and when it
// lives in another process than its frame's owner, a context for calls
// there (end it with cancel) and that frame.
type frameFocus struct {
	id     string
	ctx    context.Context
	cancel context.CancelFunc
	frame  *remoteFrame
}

// focusInFrame finds the focused element inside the frame whose owner
// element d describes, in the process of c: in that process by the frame's
// document, or out of process through the frame's session. Its id is ""
// when nothing in the frame has focus or the frame cannot be reached.
func (t *Context) focusInFrame(ctx context.Context, c context.Context, d describedNode) frameFocus {
	if cd := d.Node.ContentDocument; cd != nil && cd.BackendNodeID != 0 {
		// Another origin in this process: the protocol reads its document.
		var doc resolveNodeResult
		var err error
		if d.Node.FrameID != "" {
			doc, err = t.judgedResolveIn(c, cdp.FrameID(d.Node.FrameID), cd.BackendNodeID)
		} else {
			doc, err = t.judgedResolve(c, cd.BackendNodeID)
		}
		if err != nil {
			return frameFocus{}
		}
		defer chromedp.Call(c, cmdReleaseObject, map[string]any{"objectId": doc.Object.ObjectID})
		res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{"objectId": doc.Object.ObjectID, "functionDeclaration": activeElementJS})
		if err != nil || res.err() != nil {
			return frameFocus{}
		}
		return frameFocus{id: res.Result.ObjectID}
	}
	if d.Node.FrameID == "" {
		return frameFocus{}
	}
	p, _ := t.page()
	fs := p.frameSet()
	f := fs.byTargetOf(target.ID(d.Node.FrameID))
	if f == nil {
		// A frame no capture has seen yet.
		pc, pcancel := t.cdp(ctx)
		if cc := chromedp.FromContext(pc); cc != nil && cc.Target != nil {
			_, _ = t.remoteFrames(pc, p, cc)
		}
		pcancel()
		f = fs.byTargetOf(target.ID(d.Node.FrameID))
	}
	if f == nil {
		return frameFocus{}
	}
	fc, cancel := f.cdp(ctx)
	res, err := t.judgedEvaluate(fc, "("+activeElementJS+")()", false)
	if err != nil || res.err() != nil || res.Result.ObjectID == "" {
		cancel()
		return frameFocus{}
	}
	return frameFocus{id: res.Result.ObjectID, ctx: fc, cancel: cancel, frame: f}
}
