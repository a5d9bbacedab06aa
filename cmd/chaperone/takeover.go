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
	return func() { web.Detach(id) }, nil
}
