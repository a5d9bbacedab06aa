package approver

import (
	"context"
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
		URL: "http://127.0.0.1:9/finish", Title: "Finish Cancellation", SnapshotID: "s-1",
		Screenshot: &snapshot.Screenshot{MIMEType: "image/png", Width: 1, Height: 1, Data: onePixelPNG},
		Time:       time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC),
	}
}

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
