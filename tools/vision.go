package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Coordinates (capability vision): a click or a hover at a point of the
// viewport, for canvases, maps and charts, whose insides have no refs. The
// point is no licence to act on what nobody judged: the element the
// browser's hit test finds there, in whatever frame holds it, is judged,
// approved and confirmed as a click on its ref would be (browser/point.go).

// pointInput is the arguments of browser_click under the capability
// vision: a ref, as without it, or a point, to click or only hover at.
type pointInput struct {
	Ref   string   `json:"ref,omitempty" schema:"ref"`
	X     *float64 `json:"x,omitempty"`
	Y     *float64 `json:"y,omitempty"`
	Hover bool     `json:"hover,omitempty"`
	// As browser_click's (clickInput).
	Button    string   `json:"button,omitempty"`
	Count     int      `json:"count,omitempty"`
	Modifiers []string `json:"modifiers,omitempty"`
}

// replacedUnder marks t as giving way, under the capability c, to the
// entry of the same name that c turns on: browser_click is listed with x
// and y only under vision, so the default set does not grow.
func replacedUnder(c string, t tool) tool {
	t.unless = c
	return t
}

// clickOrPoint runs browser_click under vision: at a point when x or y is
// given, else on the ref as browser_click does.
func (s *Session) clickOrPoint(ctx context.Context, c *call, in pointInput) (string, error) {
	switch {
	case in.X != nil || in.Y != nil:
		if in.Ref != "" {
			return "", fail(toolapi.InvalidParams, "browser_click takes ref or x and y, not both.")
		}
		return s.clickAt(ctx, c, in)
	case in.Hover:
		return "", fail(toolapi.InvalidParams, "hover goes with x and y; to hover over a ref, use browser_hover.")
	}
	return s.click(ctx, c, clickInput{Ref: in.Ref, Button: in.Button, Count: in.Count, Modifiers: in.Modifiers})
}

// pointMark is the side, in CSS pixels, of the square a person's
// screenshot draws around the point.
const pointMark = 12

// clickAt runs browser_click at a point: the element at the point is found,
// judged by the gate when the input is a click, and the input sent to the
// point and confirmed to reach that element.
func (s *Session) clickAt(ctx context.Context, c *call, in pointInput) (string, error) {
	if in.X == nil || in.Y == nil {
		return "", fail(toolapi.InvalidParams, "browser_click at a point needs both x and y, a point of the viewport in CSS pixels (as the snapshot's bbox values).")
	}
	x, y := *in.X, *in.Y
	m, gesture, err := mouseInput{in.Button, in.Count, in.Modifiers}.mouse()
	if err != nil {
		return "", err
	}
	if in.Hover && gesture != "" {
		return "", fail(toolapi.InvalidParams, "hover moves the pointer and presses nothing: leave out button, count and modifiers.")
	}
	plan := func(ctx context.Context) (planned, error) {
		p, err := s.planPoint(ctx, x, y)
		p.action.Gesture = gesture
		if err == nil {
			err = pastes(m, p.action)
		}
		return p, err
	}
	var p planned
	if in.Hover {
		// A hover changes nothing a person must approve, as browser_hover.
		p, err = plan(ctx)
	} else {
		p, err = s.gated(ctx, c, plan)
	}
	if err != nil {
		return "", err
	}
	verb := "Clicked"
	input := func(ctx context.Context, at browser.PointTarget) error {
		return s.tab.ClickAtWith(ctx, at, m, s.stillApproved(p, plan))
	}
	if in.Hover {
		verb, input = "Hovered", s.tab.HoverAt
	}
	// The point judged is where the input goes: the point asked, on the
	// whole pixel the browser's hit test read (browser.PointTarget.At).
	at := p.at.At
	where := at.String()
	if at != (browser.Point{X: x, Y: y}) {
		where += fmt.Sprintf(" (the whole pixel of %g,%g, as the browser's hit test reads it)", x, y)
	}
	msg, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
		return input(ctx, p.at)
	}, fmt.Sprintf("%s at %s on %s%s.", verb, where, s.pointWhat(p), gestureNote(gesture)))
	if err != nil {
		var d *browser.DeliveryError
		if errors.As(err, &d) {
			what := "nothing in its frame received it, twice"
			switch {
			case d.Pressed > 0:
				what = fmt.Sprintf("%s. %s before it did, and nothing more was pressed", s.clip(d.Received, textLimit), pressesNote(d.Pressed))
			case d.Gone:
				what = "its document went away first"
			case d.Received != "":
				what = s.clip(d.Received, textLimit) + " received it instead"
			}
			return "", fail(toolapi.ActionFailed, "The %s at %s did not reach %s, which was there when it was sent: %s. Check the new snapshot before trying again.", d.Input, at, s.pointWhat(p), what)
		}
		return "", err
	}
	return msg, nil
}

// planPoint plans a click at x, y on what is there now: the control the
// element at the point is part of, else that element, with its role and
// name, where it is, and the point marked for a person.
func (s *Session) planPoint(ctx context.Context, x, y float64) (planned, error) {
	if d := s.tab.Dialog(); d != nil {
		return planned{}, fail(toolapi.InvalidParams, "A %s dialog is open and takes no pointer: answer it with browser_click on OK or Cancel.", d.Type)
	}
	cctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	at, err := s.tab.ElementAt(cctx, x, y)
	if errors.Is(err, browser.ErrNothingAt) {
		return planned{}, fail(toolapi.InvalidParams, "Nothing to act on at %g,%g: %v. x and y are viewport CSS pixels, as the snapshot's bbox values and viewport size.", x, y, err)
	}
	if err != nil {
		return planned{}, err
	}
	insp, err := s.tab.Inspect(cctx, at.Node, false)
	if errors.Is(err, browser.ErrDetached) {
		return planned{}, fail(toolapi.ActionFailed, "What was at %g,%g went away before it could be checked; nothing was done. Take a snapshot and try again.", x, y)
	}
	if err != nil {
		return planned{}, err
	}
	t := snapshot.Target{BackendNodeID: at.Node, Role: insp.AXRole, Name: insp.AXName}
	if t.Role == "" || t.Role == "none" || t.Role == "generic" {
		t.Role = insp.Tag
	}
	for _, live := range s.live {
		if live.BackendNodeID == at.Node && live.Dialog == "" {
			t = live
		}
	}
	a := s.actionOn(checkpoint.VerbClick, t, insp)
	// The person sees the point, not the element's box: on a canvas the
	// point is what the click means. It is the point judged, where the
	// input will go.
	a.Box = &snapshot.BBox{X: at.At.X - pointMark/2, Y: at.At.Y - pointMark/2, Width: pointMark, Height: pointMark}
	return planned{t: t, insp: insp, action: a, at: at}, nil
}

// pointWhat says what is at a planned point, for the agent: the element's
// ref when the snapshot has it, its role and name, and the site of its
// frame.
func (s *Session) pointWhat(p planned) string {
	what := fmt.Sprintf("%s %q", p.t.Role, s.clip(p.t.Name, textLimit))
	if p.t.Ref != "" {
		what = p.t.Ref + " " + what
	}
	site, err := checkpoint.Site(p.insp.Origin)
	if err != nil {
		site, err = checkpoint.Site(p.insp.DocumentURL)
	}
	switch {
	case err != nil:
	case p.insp.DocumentURL != s.tab.URL():
		what += " in a frame of " + site
	default:
		what += " (" + site + ")"
	}
	return what
}
