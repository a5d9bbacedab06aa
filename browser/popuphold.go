package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp/remote"
)

// Holding the popups of the agent's pages in the person's own browser
// (Options.Attached) until they are guarded.
//
// Chromium holds a new page before its first request only for a session
// that auto-attaches to it with waitForDebuggerOnStart, and a page's
// session is not told of its popups (the windowOpen flag of
// Target.setAutoAttach does nothing on a page's or a tab's session): the
// browser's session alone is, for every new page of the browser. So a
// connection of its own auto-attaches the browser's new pages and lets
// each go at once: a popup of one of the agent's pages once its guard is
// up, so that its first document is judged before it is requested; any
// other page (the person's new tabs, their popups) straight away, with
// nothing of it read but its opener, nothing run in it and no request of
// it paused. The pages open when the hold starts are attached to and
// detached at once. Only Runtime.runIfWaitingForDebugger on the attaching
// session lets a held page go (detaching does not), and chromedp sends
// nothing on a session it did not make: hence the connection of its own.
// When it drops, Chromium lets every page it holds go.

// pageHold is the connection that holds the browser's new pages.
type pageHold struct {
	b    *Browser
	root context.Context
	conn *remote.Conn
	// mu serialises writes on conn.
	mu   sync.Mutex
	next atomic.Int64
	// popups are the sessions of the agent's popups the hold judges until
	// their guards are up, by target, and their tabs by session.
	popups sync.Map // target.ID → target.SessionID
	tabs   sync.Map // target.SessionID → *Context
}

// holdPages starts holding the new pages of the person's browser, for as
// long as the session root lives.
func (b *Browser) holdPages(ctx, root context.Context) error {
	if !b.opts.Attached {
		return nil
	}
	ws, err := endpointWebSocket(ctx, b.opts.CDPEndpoint)
	if err != nil {
		return fmt.Errorf("holding the new pages: %w", scrub(err, b.opts.CDPEndpoint))
	}
	conn, err := remote.DialContext(ctx, ws, dialOptions(ws)...)
	if err != nil {
		return fmt.Errorf("holding the new pages: %w", scrub(dialError(ctx, err), b.opts.CDPEndpoint))
	}
	h := &pageHold{b: b, root: root, conn: conn}
	go func() {
		<-root.Done()
		conn.Close()
	}()
	ready := make(chan error, 1)
	go h.read(ready)
	if err := h.send("", "Target.setAutoAttach", map[string]any{
		"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true,
		"filter": []map[string]any{{"type": "page"}},
	}); err != nil {
		conn.Close()
		return fmt.Errorf("holding the new pages: %w", err)
	}
	c, cancel := within(ctx, root, defaultCallTimeout)
	defer cancel()
	select {
	case err = <-ready:
	case <-c.Done():
		err = c.Err()
	}
	if err != nil {
		conn.Close()
		return fmt.Errorf("holding the new pages: %w", err)
	}
	b.mu.Lock()
	b.hold = h
	b.mu.Unlock()
	return nil
}

// send writes a command, on session (the browser's: ""), without waiting
// for its answer.
func (h *pageHold) send(session target.SessionID, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conn.Write(h.root, &cdproto.Message{ID: h.next.Add(1), SessionID: session,
		Method: cdproto.MethodType(method), Params: jsonv2.Value(raw)})
}

// read handles the connection's messages: the answer to setAutoAttach
// (the first command) goes to ready, each page attached is let go, and
// the document requests of a popup are judged until its guard is up.
func (h *pageHold) read(ready chan<- error) {
	for {
		var msg cdproto.Message
		if err := h.conn.Read(h.root, &msg); err != nil {
			select {
			case ready <- err:
			default:
			}
			return
		}
		switch {
		case msg.ID == 1 && msg.SessionID == "":
			var err error
			if msg.Error != nil {
				err = msg.Error
			}
			ready <- err
		case msg.Method == "Target.attachedToTarget" && msg.SessionID == "":
			var ev attachedToTarget
			if json.Unmarshal(msg.Params, &ev) == nil {
				go h.letGo(ev)
			}
		case msg.Method == "Fetch.requestPaused":
			var ev requestPaused
			t, ok := h.tabs.Load(msg.SessionID)
			if ok && json.Unmarshal(msg.Params, &ev) == nil {
				h.judge(t.(*Context), msg.SessionID, ev)
			}
		}
	}
}

// letGo lets a page the hold attached to go: a popup of one of the
// agent's pages with its document requests paused for the hold to judge,
// until its guard is up (release); any other page at once, detached.
func (h *pageHold) letGo(ev attachedToTarget) {
	id, sid := ev.TargetInfo.TargetID, target.SessionID(ev.SessionID)
	var t *Context
	if ev.WaitingForDebugger && ev.TargetInfo.OpenerID != "" {
		t = h.b.tabOf(ev.TargetInfo.OpenerID)
		if sid, ok := h.popups.Load(ev.TargetInfo.OpenerID); t == nil && ok {
			// A popup of a popup the tab has not heard of yet.
			if v, ok := h.tabs.Load(sid); ok {
				t = v.(*Context)
			}
		}
	}
	if t != nil {
		h.tabs.Store(sid, t)
		h.popups.Store(id, sid)
		// Commands to one session are handled in order: the popup runs
		// with its requests paused.
		_ = h.send(sid, "Fetch.enable", h.b.guardPatterns())
		_ = h.send(sid, "Runtime.runIfWaitingForDebugger", struct{}{})
		return
	}
	if ev.WaitingForDebugger {
		_ = h.send(sid, "Runtime.runIfWaitingForDebugger", struct{}{})
	}
	_ = h.send("", "Target.detachFromTarget", map[string]any{"sessionId": sid})
}

// judge judges a document request of a popup the hold keeps, as its guard
// will once it is up.
func (h *pageHold) judge(t *Context, sid target.SessionID, ev requestPaused) {
	t.mu.Lock()
	s := t.sess
	t.mu.Unlock()
	if s == nil {
		return
	}
	answer := func(_ context.Context, method string, params map[string]any) error {
		return h.send(sid, method, params)
	}
	b := h.b
	b.refused.begin()
	go func() {
		defer b.refused.end()
		if ev.ResponseStatusCode != 0 {
			(&guard{t: t, s: s}).refuseDownload(ev, answer)
			return
		}
		if b.opts.DocumentPolicy == nil {
			_ = answer(s.root, cmdContinueRequest.Method, map[string]any{"requestId": ev.RequestID})
			return
		}
		b.decide(s.root, ev, t, answer)
	}()
}

// release ends the hold's watch over popup id once its guard is up.
func (h *pageHold) release(id target.ID) {
	v, ok := h.popups.LoadAndDelete(id)
	if !ok {
		return
	}
	sid := v.(target.SessionID)
	h.tabs.Delete(sid)
	_ = h.send("", "Target.detachFromTarget", map[string]any{"sessionId": sid})
}

// releaseHold tells the hold that popup id is guarded.
func (b *Browser) releaseHold(id target.ID) {
	b.mu.Lock()
	h := b.hold
	b.mu.Unlock()
	if h != nil {
		h.release(id)
	}
}

// tabOf is the tab whose page, or guarded target, id is.
func (b *Browser) tabOf(id target.ID) *Context {
	b.mu.Lock()
	tabs := make([]*Context, 0, len(b.tabs))
	for t := range b.tabs {
		tabs = append(tabs, t)
	}
	b.mu.Unlock()
	for _, t := range tabs {
		t.mu.Lock()
		in := t.pages.find(id) >= 0
		t.mu.Unlock()
		if !in {
			t.guards.mu.Lock()
			in = t.guards.m[id] != nil
			t.guards.mu.Unlock()
		}
		if in {
			return t
		}
	}
	return nil
}
