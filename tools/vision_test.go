package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// coveringPerson approves, but while asked the page covers the point with a
// notice of its own: what is at the point is no longer what they approved.
type coveringPerson struct {
	tab   *browser.Context
	asked []checkpoint.Request
}

func (p *coveringPerson) Approve(ctx context.Context, r checkpoint.Request) (checkpoint.Decision, error) {
	p.asked = append(p.asked, r)
	err := p.tab.Evaluate(ctx, `(() => {
		const r = document.getElementById('pay-frame').getBoundingClientRect();
		const d = document.createElement('div');
		d.setAttribute('role', 'dialog');
		d.setAttribute('aria-label', 'Notice');
		d.style.cssText = 'position:fixed;background:#333;left:' + r.left + 'px;top:' + r.top + 'px;width:' + r.width + 'px;height:' + r.height + 'px';
		document.body.append(d);
		return 1;
	})()`, nil)
	return checkpoint.Decision{Approved: err == nil, Channel: checkpoint.ChannelTTY}, err
}

// TestClickAtApprovalBindsToWhatIsAtThePoint: a person approves a click at
// a point on the canvas-drawn Pay button of a cross-site frame, and the
// page covers the point meanwhile. The click is planned again at the same
// point, finds another element there, and does nothing.
func TestClickAtApprovalBindsToWhatIsAtThePoint(t *testing.T) {
	t.Parallel()
	h := openWith(t, "/variants/canvas", Config{Caps: []string{toolapi.CapVision}})
	p, err := checkpoint.LoadProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	person := &coveringPerson{tab: h.tab}
	WithGate(checkpoint.NewGate(p, person, checkpoint.Options{}))(h.s)
	pay, ok := h.snap(true).Find("button", "Pay $20")
	if !ok {
		t.Fatal("no Pay button in the snapshot")
	}
	r := h.act(toolapi.Click, map[string]any{"x": pay.BBox.X + 10, "y": pay.BBox.Y + pay.BBox.Height/2})
	if len(person.asked) != 1 || person.asked[0].Concrete == nil || person.asked[0].Concrete.Name != "Pay $20" {
		t.Fatalf("the person was asked %+v; want once, about the Pay button", person.asked)
	}
	if r.Success || r.Error == nil || *r.Error != toolapi.RefInvalid || !strings.Contains(r.Message, "changed while a human was asked") {
		t.Fatalf("result: error %v, message %q; want ref_invalid: the page changed while a human was asked", r.Error, r.Message)
	}
	if strings.Contains(r.Snapshot.Text, "Paid $20") {
		t.Errorf("paid although the point now holds something else:\n%s", r.Snapshot.Text)
	}
}
