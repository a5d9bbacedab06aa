package main

import (
	"context"
	"fmt"
	"io"

	"github.com/chaperone-mcp/chaperone/approver"
	"github.com/chaperone-mcp/chaperone/tools"
)

// sessionWheel is a session's browser as the console's live view reaches
// it (approver.Wheel).
type sessionWheel struct{ s *tools.Session }

func (w sessionWheel) Screencast(ctx context.Context) (<-chan approver.LiveFrame, error) {
	frames, err := w.s.Screencast(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan approver.LiveFrame)
	go func() {
		defer close(out)
		for f := range frames {
			select {
			case out <- approver.LiveFrame{JPEG: f.JPEG, Width: f.Width, Height: f.Height}:
			case <-ctx.Done():
			}
		}
	}()
	return out, nil
}

func (w sessionWheel) TakeOver()            { w.s.TakeOver() }
func (w sessionWheel) HandBack(note string) { w.s.HandBack(note) }
func (w sessionWheel) Taken() bool          { return w.s.Taken() }

func (w sessionWheel) Input(ctx context.Context, ev approver.PersonInput) error {
	return w.s.PersonInput(ctx, ev)
}

// PersonTabs and HandOver make the console's tab picker reach the session
// (approver.Handover): the person's own tabs, for the person only.
func (w sessionWheel) PersonTabs(ctx context.Context) ([]approver.PersonTab, error) {
	tabs, err := w.s.PersonTabs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]approver.PersonTab, len(tabs))
	for i, t := range tabs {
		out[i] = approver.PersonTab{ID: t.ID, Title: t.Title, URL: t.URL}
	}
	return out, nil
}

func (w sessionWheel) HandOver(ctx context.Context, id string) error {
	_, err := w.s.HandOver(ctx, id)
	return err
}

// attachLive makes session id's browser reachable from the console's live
// view and prints the view's address on stderr, for the person: it is a
// capability, and never goes into an MCP message or the log. It returns
// the detach to call when the session closes; with no console, nothing.
func attachLive(web *approver.Web, stderr io.Writer, id string, s *tools.Session) (func(), error) {
	if web == nil {
		return func() {}, nil
	}
	u, err := web.Attach(id, sessionWheel{s})
	if err != nil {
		return nil, fmt.Errorf("live view: %w", err)
	}
	fmt.Fprintf(stderr, "Live view (watch the browser, take over, hand back): %slive\n", u)
	if s != nil && s.Attached() {
		fmt.Fprintf(stderr, "Tab picker (hand one of your own tabs to the agent): %stabs\n", u)
	}
	return func() { web.Detach(id) }, nil
}
