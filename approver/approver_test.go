package approver

import (
	"context"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// testRequest is a checkpoint request with a screenshot, as the gate makes
// them.
func testRequest(id string) checkpoint.Request {
	return checkpoint.Request{
		ID: id, Session: "sess-1", Kind: checkpoint.KindCheckpoint,
		Action: `click button "Finish Cancellation"`, Reason: `The page matches checkpoint "final cancellation step"`,
		Concrete: &checkpoint.Action{Verb: checkpoint.VerbClick, Ref: "@e4", Node: 4, Role: "button", Name: "Finish Cancellation",
			Box: &snapshot.BBox{X: 0, Y: 0, Width: 1, Height: 1}},
		URL: "http://127.0.0.1:9/finish", Title: "Finish Cancellation", SnapshotID: "s-1",
		Screenshot: &snapshot.Screenshot{MIMEType: "image/png", Width: 1, Height: 1, Data: onePixelPNG},
		Time:       time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC),
	}
}

// hostile is text a page or a model may send to repaint a person's screen:
// an ANSI clear-screen and a right-to-left override.
const hostile = "\x1b[2J\u202e"

// hostileRequest is an agent's request in words alone, on a page whose
// title, like the words, carries hostile text.
func hostileRequest(id string) checkpoint.Request {
	r := testRequest(id)
	r.Kind, r.Concrete = checkpoint.KindAgent, nil
	r.Action = "pay the invoice " + hostile
	r.Words = r.Action
	r.Reason = "the page says so " + hostile
	r.Title = hostile + "Invoice"
	return r
}

// readsRaw reports whether s shows a person hostile text unescaped.
func readsRaw(s string) bool { return strings.ContainsAny(s, "\x1b\u202e") }

// onePixelPNG is a valid 1×1 PNG.
var onePixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00\x00IEND\xaeB`\x82")

type result struct {
	d   checkpoint.Decision
	err error
}

func approveAsync(ctx context.Context, a checkpoint.Approver, r checkpoint.Request) <-chan result {
	ch := make(chan result, 1)
	go func() {
		d, err := a.Approve(ctx, r)
		ch <- result{d, err}
	}()
	return ch
}
