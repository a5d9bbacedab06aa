package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Text selection (issue 31): browser_drag with text presses the left
// button at the start of the text and lets go at its end, as a person
// selects what no key selects. The press and the release are a click to
// the page (on the element under both), so the drag is judged as a click
// at its first point is (vision.go's planPoint: the control there, a
// person shown the text's box), and refused where it would end inside
// another control than it starts in. The result says what the browser
// reports as selected, read in the judging world.

// selectText runs browser_drag with text, within the element scope when
// it is a ref.
func (s *Session) selectText(ctx context.Context, c *call, scope, text string) (string, error) {
	var span browser.TextSpan
	p, err := s.gated(ctx, c, func(ctx context.Context) (planned, error) {
		var err error
		var p planned
		p, span, err = s.planSelectText(ctx, scope, text)
		return p, err
	})
	if err != nil {
		return "", err
	}
	var got string
	msg, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		var err error
		got, err = s.tab.SelectText(ctx, span)
		return err
	}, "")
	if err != nil {
		return "", err
	}
	if strings.Join(strings.Fields(got), " ") != span.Text {
		return "", fail(toolapi.ActionFailed, "Dragged over %q, but the page's selection is %q: the page may not let its text be selected, or changed as it was. %s",
			s.clip(span.Text, textLimit), s.clip(got, textLimit), msg)
	}
	in := p.t.Role
	if p.t.Name != "" {
		in += fmt.Sprintf(" %q", s.clip(p.t.Name, textLimit))
	}
	if p.t.Ref != "" {
		in = p.t.Ref + " " + in
	}
	return strings.TrimSpace(fmt.Sprintf("Selected %q (the page's selection, as the browser reports it) by dragging over it in %s. %s", s.clip(got, textLimit), in, msg)), nil
}

// planSelectText finds text (within the ref scope, if any) and plans the
// drag over it as a click at its first point.
func (s *Session) planSelectText(ctx context.Context, scope, text string) (planned, browser.TextSpan, error) {
	var in int64
	if scope != "" {
		t, err := s.target(scope)
		if err != nil {
			return planned{}, browser.TextSpan{}, err
		}
		if t.Dialog != "" {
			return planned{}, browser.TextSpan{}, fail(toolapi.InvalidParams, "A dialog's text cannot be selected.")
		}
		in = t.BackendNodeID
	}
	cctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	span, err := s.tab.FindText(cctx, in, text)
	switch {
	case errors.Is(err, browser.ErrTextNotFound):
		return planned{}, span, fail(toolapi.InvalidParams, "%q does not show on the page%s; give text exactly as the snapshot's text shows it.", s.clip(text, textLimit), scopeNote(scope))
	case errors.Is(err, browser.ErrTextNotInView):
		return planned{}, span, fail(toolapi.ElementNotVisible, "%q does not fit in the viewport at once, so one drag cannot select it: select a shorter part.", s.clip(text, textLimit))
	case errors.Is(err, browser.ErrDetached):
		return planned{}, span, fail(toolapi.RefInvalid, "%s is no longer on the page. Use a ref from the new snapshot.", scope)
	case err != nil:
		return planned{}, span, err
	}
	p, err := s.planPoint(ctx, span.From.X, span.From.Y)
	if err != nil {
		return p, span, err
	}
	end, err := s.tab.ElementAt(cctx, span.To.X, span.To.Y)
	if err != nil && !errors.Is(err, browser.ErrNothingAt) {
		return p, span, err
	}
	if end.Node != p.at.Node && end.Node != end.Hit {
		// The release would land in a control nobody judged.
		return p, span, fail(toolapi.InvalidParams, "%q ends inside another control than it starts in; select a part inside one of them.", s.clip(text, textLimit))
	}
	// The person reads the text: "drag to select "…" in paragraph".
	p.action.Gesture = fmt.Sprintf("drag to select %q in", s.clip(span.Text, textLimit))
	box := snapshot.BBox(span.Box)
	p.action.Box = &box
	return p, span, nil
}

// scopeNote names the ref a search for text was confined to.
func scopeNote(scope string) string {
	if scope == "" {
		return ""
	}
	return " in " + scope
}
