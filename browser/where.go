package browser

import (
	"context"
	_ "embed" // the page script of Where
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Where names the place a node is in: the page (tab) that holds it, its
// frame, and the document of that frame. Backend node ids repeat across
// pages and documents; an approval given for a node holds only in the same
// Where.
type Where struct {
	// Target is the browser's id of the page (tab), even for a node of an
	// out-of-process frame.
	Target string
	// Frame is the id of the node's frame and Document the loader id of the
	// frame's document, which changes with every navigation of the frame,
	// a reload included.
	Frame    string
	Document string
	// URL is the frame's document URL.
	URL string
}

// Raw protocol commands of where.go (see cdp.go for why raw).
var (
	cmdDescribeDocNode = cdp.Command[map[string]any, describeDocResult]{Method: "DOM.describeNode"}
	cmdGetFrameTree    = cdp.Command[map[string]any, frameTreeResult]{Method: "Page.getFrameTree"}
	cmdGetFrameOwner   = cdp.Command[map[string]any, frameOwnerResult]{Method: "DOM.getFrameOwner"}
)

type describeDocResult struct {
	Node struct {
		BackendNodeID   int64 `json:"backendNodeId"`
		ContentDocument *struct {
			BackendNodeID int64 `json:"backendNodeId"`
		} `json:"contentDocument"`
	} `json:"node"`
}

type frameOwnerResult struct {
	BackendNodeID int64 `json:"backendNodeId"`
}

type frameTreeResult struct {
	FrameTree frameTreeNode `json:"frameTree"`
}

type frameTreeNode struct {
	Frame struct {
		ID       string `json:"id"`
		LoaderID string `json:"loaderId"`
		URL      string `json:"url"`
		Fragment string `json:"urlFragment"`
	} `json:"frame"`
	ChildFrames []frameTreeNode `json:"childFrames"`
}

// frameOfDocument finds, in the frame tree of one process (c), the frame
// whose document is the node doc: a child frame whose owner element holds
// doc as its content document, else the tree's root. The protocol names no
// frame for a document node, but it does for a frame's owner element.
func frameOfDocument(c context.Context, tree *frameTreeNode, doc int64) (*frameTreeNode, error) {
	var found *frameTreeNode
	var walk func(n *frameTreeNode) error
	walk = func(n *frameTreeNode) error {
		for i := range n.ChildFrames {
			child := &n.ChildFrames[i]
			owner, err := chromedp.Call(c, cmdGetFrameOwner, map[string]any{"frameId": child.Frame.ID})
			if err == nil {
				d, err := chromedp.Call(c, cmdDescribeDocNode, map[string]any{"backendNodeId": owner.BackendNodeID})
				if err != nil {
					return fmt.Errorf("describe the owner of frame %s: %w", child.Frame.ID, err)
				}
				if cd := d.Node.ContentDocument; cd != nil && cd.BackendNodeID == doc {
					found = child
					return nil
				}
			}
			// A frame of another process has no owner here; its own
			// children may still be local.
			if err := walk(child); err != nil || found != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(tree); err != nil {
		return nil, err
	}
	if found == nil {
		found = tree
	}
	return found, nil
}

// ownerDocumentJS returns the document a node belongs to.
//
//go:embed js/ownerDocument.js
var ownerDocumentJS string

// Where says where the node is: the current page, the node's frame and its
// document. It asks the process that holds the node, as every node method
// does. A node that is gone is ErrDetached.
func (t *Context) Where(ctx context.Context, backendNodeID int64) (Where, error) {
	p, _ := t.page()
	w := Where{Target: string(p.id)}
	n, err := t.node(ctx, nodeOf(backendNodeID))
	if err != nil {
		return w, fmt.Errorf("where is node %d: %w", backendNodeID, err)
	}
	// Both objects are released in the background: nothing waits on them,
	// and every action's plan would otherwise pay two round trips for them.
	defer func() { go n.release(ctx) }()
	c, cancel := n.cdp(ctx)
	defer cancel()
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
		"objectId": n.id, "functionDeclaration": ownerDocumentJS,
	})
	if err == nil {
		err = res.err()
	}
	if err != nil {
		return w, fmt.Errorf("where is node %d: its document: %w", backendNodeID, err)
	}
	doc := &pageObject{t: t, id: res.Result.ObjectID, frame: n.frame}
	defer func() { go doc.release(ctx) }()
	d, err := chromedp.Call(c, cmdDescribeDocNode, map[string]any{"objectId": doc.id})
	if err != nil {
		return w, fmt.Errorf("where is node %d: describe its document: %w", backendNodeID, err)
	}
	tree, err := chromedp.Call(c, cmdGetFrameTree, map[string]any{})
	if err != nil {
		return w, fmt.Errorf("where is node %d: frame tree: %w", backendNodeID, err)
	}
	f, err := frameOfDocument(c, &tree.FrameTree, d.Node.BackendNodeID)
	if err != nil {
		return w, fmt.Errorf("where is node %d: %w", backendNodeID, err)
	}
	w.Frame, w.Document, w.URL = f.Frame.ID, f.Frame.LoaderID, f.Frame.URL+f.Frame.Fragment
	return w, nil
}

// PageWhere says where the current page's main document is, for an action
// on the page as a whole or on its JavaScript dialog. It asks the browser
// nothing: it is what the page's events said last, which an open dialog,
// blocking the page, does not stop.
func (t *Context) PageWhere(ctx context.Context) (Where, error) {
	p, _ := t.page()
	p.mu.Lock()
	defer p.mu.Unlock()
	// Before its first navigation a page has only its initial blank
	// document, which no event named: that document is the empty one.
	return Where{Target: string(p.id), Frame: string(p.mainFrame), Document: string(p.mainDoc), URL: p.url}, nil
}

// setDocument notes the loader id of the main frame's new document.
func (p *tabPage) setDocument(id cdp.LoaderID) {
	p.mu.Lock()
	p.mainDoc = id
	p.mu.Unlock()
}
