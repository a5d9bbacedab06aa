package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The judging world. The scripts that judge an action (what Inspect sees,
// the delivery record, the focus, what a select holds) must not run with
// the page's built-ins: a page that redefines elementFromPoint,
// getBoundingClientRect, Array.prototype.some or composedPath in its own
// world would make them answer what it likes. They run in an
// isolated world of the node's frame (Page.createIsolatedWorld), which
// shares the frame's DOM and hears its events but has built-ins of its
// own. The world's execution context is made once per frame and document
// and kept; after a navigation the kept one is gone, and the first call
// that finds it gone makes it anew.

// judgeWorld names the isolated world the judging scripts run in.
const judgeWorld = "chaperone-judge"

// maxJudgeWorlds bounds how many frames' judging worlds a tab keeps.
const maxJudgeWorlds = 256

// judgeWorlds keeps, per frame, the execution context of the judging world
// in the frame's current document.
type judgeWorlds struct {
	mu sync.Mutex
	// ids are the contexts, by target and frame: context ids are numbered
	// per process, and a frame may move to another target's process.
	ids map[judgeKey]int64
	// heard holds the targets whose Runtime.executionContextsCleared
	// drops the kept contexts.
	heard map[cdp.FrameID]bool
	// frames remembers the frame other than its target's main frame
	// that a node was found in, so that the next call goes there at once.
	frames map[judgedNode]cdp.FrameID
}

// judgeKey is a frame of a target (a target by its main frame's id, which
// is its own).
type judgeKey struct{ target, frame cdp.FrameID }

// judgedNode is a node by its process (its target's main frame) and its
// backend node id there.
type judgedNode struct {
	main  cdp.FrameID
	local int64
}

// frameOf returns the frame the node was last found in, or main.
func (t *Context) frameOf(n judgedNode) cdp.FrameID {
	t.judge.mu.Lock()
	defer t.judge.mu.Unlock()
	if f, ok := t.judge.frames[n]; ok {
		return f
	}
	return n.main
}

// foundIn remembers that the node is in the frame f.
func (t *Context) foundIn(n judgedNode, f cdp.FrameID) {
	t.judge.mu.Lock()
	defer t.judge.mu.Unlock()
	if t.judge.frames == nil || len(t.judge.frames) >= maxJudgeWorlds {
		t.judge.frames = map[judgedNode]cdp.FrameID{}
	}
	t.judge.frames[n] = f
}

// mainFrame is the main frame of the target of the chromedp context c: its
// id is the target's.
func mainFrame(c context.Context) (cdp.FrameID, error) {
	cc := chromedp.FromContext(c)
	if cc == nil || cc.Target == nil {
		return "", ErrClosed
	}
	return cdp.FrameID(cc.Target.TargetID), nil
}

// judgeContext returns the judging world's execution context in the frame
// f, held by the target of c, made on first use.
func (t *Context) judgeContext(c context.Context, f cdp.FrameID) (id int64, kept bool, err error) {
	main, err := mainFrame(c)
	if err != nil {
		return 0, false, err
	}
	key := judgeKey{target: main, frame: f}
	t.judge.mu.Lock()
	id, kept = t.judge.ids[key]
	t.judge.mu.Unlock()
	if kept {
		return id, true, nil
	}
	t.hearCleared(c)
	w, err := chromedp.Call(c, cmdCreateIsolatedWorld, map[string]any{"frameId": f, "worldName": judgeWorld})
	if err != nil {
		return 0, false, err
	}
	t.judge.mu.Lock()
	if t.judge.ids == nil || len(t.judge.ids) >= maxJudgeWorlds {
		// A page that makes and drops frames by the thousand must not
		// grow the map: what is dropped is made again when needed.
		t.judge.ids = map[judgeKey]int64{}
	}
	t.judge.ids[key] = w.ExecutionContextID
	t.judge.mu.Unlock()
	return w.ExecutionContextID, false, nil
}

// hearCleared makes the target of c drop its kept contexts when it gets a
// new document (Runtime.executionContextsCleared), and a frame's when the
// frame navigates or goes (Page.frameNavigated, Page.frameDetached), once
// per target: a kept context then never names an old document's world
// (even one the back-forward cache keeps), nor, in a process the target
// moved to, another context that has the same number. One that goes some
// other way is found gone when used.
func (t *Context) hearCleared(c context.Context) {
	main, err := mainFrame(c)
	if err != nil {
		return
	}
	t.judge.mu.Lock()
	if t.judge.heard[main] {
		t.judge.mu.Unlock()
		return
	}
	if t.judge.heard == nil || len(t.judge.heard) >= maxJudgeWorlds {
		t.judge.heard = map[cdp.FrameID]bool{}
	}
	t.judge.heard[main] = true
	t.judge.mu.Unlock()
	// For the target's life: the call's context ends with the call.
	drop := func(frame cdp.FrameID) {
		t.judge.mu.Lock()
		defer t.judge.mu.Unlock()
		for k := range t.judge.ids {
			if k.target == main && (frame == "" || k.frame == frame) {
				delete(t.judge.ids, k)
			}
		}
	}
	err = chromedp.Listen(context.WithoutCancel(c), func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExecutionContextsCleared:
			drop("")
		case *page.EventFrameNavigated:
			drop(ev.Frame.ID)
		case *page.EventFrameDetached:
			drop(ev.FrameID)
		}
	})
	if err != nil {
		t.log.Debug("the judging world: not told of new documents", "err", err)
	}
}

// forgetJudge drops the kept context id of the frame f of the target of
// c, if it is still id.
func (t *Context) forgetJudge(c context.Context, f cdp.FrameID, id int64) {
	main, err := mainFrame(c)
	if err != nil {
		return
	}
	key := judgeKey{target: main, frame: f}
	t.judge.mu.Lock()
	defer t.judge.mu.Unlock()
	if t.judge.ids[key] == id {
		delete(t.judge.ids, key)
	}
}

// inJudgeWorld runs do with the judging world's execution context in the
// frame f, held by the target of c. When do finds that context gone (its
// document was replaced), the world is made anew in the current document
// and do runs once more. A kept context that is gone is, to
// DOM.resolveNode, one that does not hold the node: that answer too makes
// the world anew, once.
func (t *Context) inJudgeWorld(c context.Context, f cdp.FrameID, do func(contextID int64) error) error {
	for {
		id, kept, err := t.judgeContext(c, f)
		if err != nil {
			return fmt.Errorf("the judging world: %w", err)
		}
		err = do(id)
		if err == nil || !kept || c.Err() != nil || !contextGone(err) && !elsewhereInFrame(err) {
			return err
		}
		t.forgetJudge(c, f, id)
	}
}

// contextGone says whether err is the protocol's answer to a call in an
// execution context that no longer exists.
func contextGone(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "context") && (strings.Contains(s, "cannot find") || strings.Contains(s, "not found") ||
		strings.Contains(s, "destroyed") || strings.Contains(s, "no execution"))
}

// elsewhereInFrame says whether err is DOM.resolveNode's answer for a node
// of another frame than the context's.
func elsewhereInFrame(err error) bool {
	return strings.Contains(err.Error(), "does not belong to the document")
}

// judgedEvaluate evaluates expr in the judging world of the main frame of
// the target of c, and returns its result unread (as an object when
// byValue is false).
func (t *Context) judgedEvaluate(c context.Context, expr string, byValue bool) (scriptResult, error) {
	f, err := mainFrame(c)
	if err != nil {
		return scriptResult{}, err
	}
	var res scriptResult
	err = t.inJudgeWorld(c, f, func(id int64) error {
		var err error
		res, err = chromedp.Call(c, cmdEvaluate, map[string]any{
			"expression": expr, "returnByValue": byValue, "awaitPromise": byValue, "contextId": id,
		})
		return err
	})
	return res, err
}

// judgedResolve resolves the node with the backend node id local, in the
// process of c, to an object of the judging world of its frame: the
// target's main frame, else the frame of this process that holds it
// (another origin of the same site, or a same-origin frame).
func (t *Context) judgedResolve(c context.Context, local int64) (resolveNodeResult, error) {
	main, err := mainFrame(c)
	if err != nil {
		return resolveNodeResult{}, err
	}
	n := judgedNode{main: main, local: local}
	first := t.frameOf(n)
	obj, err := t.judgedResolveIn(c, first, local)
	if err == nil || !elsewhereInFrame(err) {
		return obj, err
	}
	tree, terr := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	if terr != nil {
		return obj, err
	}
	for _, ft := range flattenFrames(tree.FrameTree, nil) {
		if ft.Frame.ID == first {
			continue
		}
		o, ferr := t.judgedResolveIn(c, ft.Frame.ID, local)
		switch {
		case ferr == nil:
			if ft.Frame.ID != main {
				t.foundIn(n, ft.Frame.ID)
			}
			return o, nil
		case c.Err() != nil:
			return o, ferr
		}
	}
	return obj, err
}

// judgedResolveIn resolves the node with the backend node id local in the
// judging world of the frame f, held by the target of c.
func (t *Context) judgedResolveIn(c context.Context, f cdp.FrameID, local int64) (resolveNodeResult, error) {
	var obj resolveNodeResult
	err := t.inJudgeWorld(c, f, func(id int64) error {
		var err error
		obj, err = chromedp.Call(c, cmdResolveNode, map[string]any{"backendNodeId": local, "executionContextId": id})
		if err == nil && obj.Object.ObjectID == "" {
			// A node of another origin's frame in this process resolves,
			// in this frame's world, to no object at all (the world may
			// not reach it): it is elsewhere, as a node of another
			// document is.
			err = errNotInFrame
		}
		return err
	})
	return obj, err
}

// errNotInFrame is DOM.resolveNode's answer, as inJudgeWorld reads it, for
// a node that the frame's world cannot reach.
var errNotInFrame = errors.New("Node with given id does not belong to the document of this world")

// judgedCall is callIn in the judging world: it runs the page script fn,
// with the window as this, in the main frame of the target of c, and
// decodes its JSON result into out (which may be nil).
func (t *Context) judgedCall(c context.Context, fn string, out any, args ...any) error {
	expr, err := applyJS(fn, args...)
	if err != nil {
		return err
	}
	res, err := t.judgedEvaluate(c, expr, true)
	if err != nil {
		return err
	}
	return res.decode(out)
}

// isolatedNodes resolves the nodes (ids as a capture numbers them), all in
// the process of the chromedp context c, to objects of the judging world of
// their frame, and returns their object ids there, to be released by the
// caller. The world's context is the kept one (judgedResolve): a click's
// check and a verdict's look add no round trip to make a world, and no
// world per call to the page.
func (t *Context) isolatedNodes(c context.Context, nodes []int64) ([]string, error) {
	objs := make([]string, 0, len(nodes))
	for _, n := range nodes {
		obj, err := t.judgedResolve(c, int64(nodeOf(n).local))
		if err != nil {
			for _, o := range objs {
				_, _ = chromedp.Call(c, cmdReleaseObject, map[string]any{"objectId": o})
			}
			return nil, fmt.Errorf("node %d: %w: %v", n, ErrDetached, err)
		}
		objs = append(objs, obj.Object.ObjectID)
	}
	return objs, nil
}
