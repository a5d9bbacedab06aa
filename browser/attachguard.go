package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Judging the documents of the tab's own targets in the person's browser
// (Options.Attached), and of nothing else.
//
// Each page of the tab (its window, and each popup its pages open) gets a
// guard: a session of its own where Fetch.enable pauses the document
// requests (and responses: downloads are refused) of the page's frames, and
// where Target.setAutoAttach with waitForDebuggerOnStart makes the browser
// hold each out-of-process frame the page opens before its first request of
// its own, until it is judged in the same way: through the session of the
// target that holds it, attached not flat, its messages travelling inside
// Target.sendMessageToTarget and Target.receivedMessageFromTarget along the
// route of session ids from the page's guard (chromedp routes flat sessions
// only to targets it attached to). A frame lives no longer than the target
// that holds it, so neither does its route.
//
// A popup gets a guard of its own, so that it stays judged when its opener
// closes. Chromium 156 does not hold a page's popups for its session (the
// windowOpen flag of Target.setAutoAttach is accepted and does nothing, on
// a page's session and on its tab's): the browser's session holds them
// (popuphold.go) and judges their documents until their guards are up.
//
// A target the tab did not open is never paused or judged: the hold
// attaches to it only to read its opener, and lets it go.

var (
	evAttachedToTarget     = cdp.Event[attachedToTarget]{Method: "Target.attachedToTarget"}
	evReceivedMessage      = cdp.Event[receivedMessage]{Method: "Target.receivedMessageFromTarget"}
	cmdSetAutoAttach       = cdp.Command[map[string]any, json.RawMessage]{Method: "Target.setAutoAttach"}
	cmdSendMessageToTarget = cdp.Command[map[string]any, json.RawMessage]{Method: "Target.sendMessageToTarget"}
	cmdDetachFromTarget    = cdp.Command[map[string]any, json.RawMessage]{Method: "Target.detachFromTarget"}
)

type attachedToTarget struct {
	SessionID  string `json:"sessionId"`
	TargetInfo struct {
		TargetID target.ID `json:"targetId"`
		Type     string    `json:"type"`
		OpenerID target.ID `json:"openerId"`
	} `json:"targetInfo"`
	WaitingForDebugger bool `json:"waitingForDebugger"`
}

type receivedMessage struct {
	SessionID string `json:"sessionId"`
	Message   string `json:"message"`
}

// guards are a tab's guards, by page target.
type guards struct {
	// mu is held while a guard is set up, so that a page gets one.
	mu sync.Mutex
	m  map[target.ID]*guard
}

// guard judges the documents of one page of the tab and holds the targets
// it opens until they are judged too.
type guard struct {
	t *Context
	s *session
	// ctx is the guard's session; cancel detaches it, never closing the
	// page.
	ctx    context.Context
	cancel context.CancelFunc
	// mark is the identifier of the script that marks the page's titles.
	mark string
	// next numbers the commands sent along routes.
	next atomic.Int64
}

// guardPatterns are what a guard's Fetch.enable pauses: the document
// requests, when there is a document policy, and their responses, which may
// turn into downloads.
func (b *Browser) guardPatterns() map[string]any {
	patterns := []map[string]any{{"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"}}
	if b.opts.DocumentPolicy != nil {
		patterns = append(patterns, map[string]any{"urlPattern": "*", "resourceType": "Document"})
	}
	return map[string]any{"patterns": patterns}
}

// autoAttachHeld is Target.setAutoAttach as a guard sets it: the targets a
// page opens are held until judged, and their sessions are not flat.
var autoAttachHeld = map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": false, "windowOpen": true}

// guardPage sets up the guard of the tab's page id, unless it has one: its
// documents are judged from then on, and the targets it opens are held.
func (t *Context) guardPage(ctx context.Context, s *session, id target.ID) error {
	t.guards.mu.Lock()
	defer t.guards.mu.Unlock()
	if g := t.guards.m[id]; g != nil && g.ctx.Err() == nil {
		return nil
	}
	gctx, cancel := chromedp.NewContext(s.root, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	if _, ok := ctx.Deadline(); !ok {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, startTimeout)
		defer c()
	}
	if err := firstRun(ctx, cancel, func() error { return chromedp.Do(gctx) }); err != nil {
		cancel()
		return fmt.Errorf("guarding a page: %w", err)
	}
	g := &guard{t: t, s: s, ctx: gctx, cancel: cancel}
	if detached, err := chromedp.Detached(gctx); err == nil {
		go func() {
			select {
			case <-detached:
				cancel()
			case <-gctx.Done():
			}
		}()
	}
	// Subscribed before anything is enabled, so that nothing is missed.
	paused := chromedp.Events(gctx, evRequestPaused)
	attached := chromedp.Events(gctx, evAttachedToTarget)
	messages := chromedp.Events(gctx, evReceivedMessage)
	downloads := chromedp.Events(gctx, evPageDownloadWillBegin)
	go func() {
		for ev, err := range downloads {
			if err != nil {
				return
			}
			g.cancelDownload(ev)
		}
	}()
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			g.judge(ev, nil)
		}
	}()
	go func() {
		for ev, err := range attached {
			if err != nil {
				return
			}
			go g.hold(nil, ev)
		}
	}()
	go func() {
		for ev, err := range messages {
			if err != nil {
				return
			}
			g.received([]string{ev.SessionID}, ev.Message)
		}
	}()

	c, cancelCalls := within(ctx, gctx, defaultCallTimeout)
	defer cancelCalls()
	mark, err := markWindow(c)
	if err == nil {
		// Page.downloadWillBegin, for the downloads that are no document's
		// response (refuseDownload).
		_, err = chromedp.Call(c, page.Enable, page.EnableParams{})
	}
	if err == nil {
		_, err = chromedp.Call(c, cmdFetchEnable, t.b.guardPatterns())
	}
	if err == nil {
		_, err = chromedp.Call(c, cmdSetAutoAttach, autoAttachHeld)
	}
	if err != nil {
		cancel()
		return fmt.Errorf("guarding a page: %w", err)
	}
	if t.guards.m == nil {
		t.guards.m = make(map[target.ID]*guard)
	}
	for old, og := range t.guards.m {
		if og.ctx.Err() != nil {
			delete(t.guards.m, old) // its page closed
		}
	}
	g.mark = mark
	t.guards.m[id] = g
	return nil
}

// stopGuards detaches the tab's guards; the pages of handed (the person's
// tabs, which stay open) are given back unmarked.
func (t *Context) stopGuards(handed map[target.ID]bool) {
	t.guards.mu.Lock()
	defer t.guards.mu.Unlock()
	for id, g := range t.guards.m {
		if handed[id] {
			g.unmark()
		}
		g.cancel()
		delete(t.guards.m, id)
	}
}

// stopGuard stops the guard of page id: a tab the person handed over that
// the agent left is theirs again, unmarked, and nothing of theirs is
// judged.
func (t *Context) stopGuard(id target.ID) {
	t.guards.mu.Lock()
	defer t.guards.mu.Unlock()
	if g := t.guards.m[id]; g != nil {
		g.unmark()
		g.cancel()
		delete(t.guards.m, id)
	}
}

// unmark takes the window's mark off the guard's page, as the guard leaves
// it. A page that is gone needs nothing.
func (g *guard) unmark() {
	if g.ctx.Err() != nil {
		return
	}
	c, cancel := context.WithTimeout(g.ctx, closeTimeout)
	defer cancel()
	if err := unmarkWindow(c, g.mark); err != nil {
		g.t.log.Debug("a tab left by the session keeps its mark", "err", err)
	}
}

// judge applies the document policy to a request paused in the target at
// route (nil: the guard's page itself), and answers it there; a response
// goes to the download check.
func (g *guard) judge(ev requestPaused, route []string) {
	b := g.t.b
	answer := func(ctx context.Context, method string, params map[string]any) error {
		if route == nil {
			c, cancel := within(ctx, g.ctx, defaultCallTimeout)
			defer cancel()
			_, err := chromedp.Call(c, cdp.Command[map[string]any, json.RawMessage]{Method: method}, params)
			return err
		}
		return g.send(ctx, route, method, params)
	}
	b.refused.begin()
	go func() {
		defer b.refused.end()
		if ev.ResponseStatusCode != 0 {
			g.refuseDownload(ev, answer)
			return
		}
		b.decide(g.s.root, ev, g.t, answer)
	}()
}

// send sends a command to the target at route, through the non-flat
// sessions of the route, without waiting for its answer: commands to one
// session are handled in the order they are sent.
func (g *guard) send(ctx context.Context, route []string, method string, params any) error {
	msg, err := json.Marshal(map[string]any{"id": g.next.Add(1), "method": method, "params": params})
	if err != nil {
		return err
	}
	for i := len(route) - 1; i >= 1; i-- {
		msg, err = json.Marshal(map[string]any{"id": g.next.Add(1), "method": "Target.sendMessageToTarget",
			"params": map[string]any{"sessionId": route[i], "message": string(msg)}})
		if err != nil {
			return err
		}
	}
	c, cancel := within(ctx, g.ctx, defaultCallTimeout)
	defer cancel()
	_, err = chromedp.Call(c, cmdSendMessageToTarget, map[string]any{"sessionId": route[0], "message": string(msg)})
	return err
}

// received handles a message of the target at route: its paused requests,
// and the targets it opens in turn.
func (g *guard) received(route []string, raw string) {
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return
	}
	switch m.Method {
	case "Fetch.requestPaused":
		var ev requestPaused
		if json.Unmarshal(m.Params, &ev) == nil {
			g.judge(ev, route)
		}
	case "Target.attachedToTarget":
		var ev attachedToTarget
		if json.Unmarshal(m.Params, &ev) == nil {
			go g.hold(route, ev)
		}
	case "Target.receivedMessageFromTarget":
		var ev receivedMessage
		if json.Unmarshal(m.Params, &ev) == nil {
			g.received(append(slices.Clone(route), ev.SessionID), ev.Message)
		}
	case "":
		if m.Error != nil {
			g.t.log.Debug("a held target's command failed", "err", m.Error.Message)
		}
	}
}

// hold sets up a target that the target at parent (nil: the guard's page)
// opened and the browser holds, then lets it go: a frame is judged along
// its route, a popup by a guard of its own, anything else (a worker) only
// let go. A popup that cannot be guarded is closed, never let go unjudged.
func (g *guard) hold(parent []string, ev attachedToTarget) {
	ctx := g.ctx
	route := append(slices.Clone(parent), ev.SessionID)
	var err error
	switch ev.TargetInfo.Type {
	case "iframe":
		err = g.send(ctx, route, "Fetch.enable", g.t.b.guardPatterns())
		if err == nil {
			err = g.send(ctx, route, "Target.setAutoAttach", autoAttachHeld)
		}
	case "page":
		if err = g.t.guardPage(ctx, g.s, ev.TargetInfo.TargetID); err != nil {
			g.t.log.Warn("a popup could not be guarded: it is closed", "err", err)
			closeTarget(g.s, ev.TargetInfo.TargetID)
			return
		}
	}
	if err != nil {
		g.t.log.Debug("setting up a held target", "type", ev.TargetInfo.Type, "err", err)
	}
	if ev.WaitingForDebugger {
		_ = g.send(ctx, route, "Runtime.runIfWaitingForDebugger", map[string]any{})
	}
	if ev.TargetInfo.Type == "iframe" {
		return
	}
	// What is not judged along its route needs no session here.
	detach := map[string]any{"sessionId": ev.SessionID}
	if len(parent) == 0 {
		c, cancel := within(ctx, g.ctx, defaultCallTimeout)
		_, _ = chromedp.Call(c, cmdDetachFromTarget, detach)
		cancel()
		return
	}
	_ = g.send(ctx, parent, "Target.detachFromTarget", detach)
}
