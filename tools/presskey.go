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

// pressKeyInput is the arguments of browser_press_key.
type pressKeyInput struct {
	Key string `json:"key,omitempty"`
	Ref string `json:"ref,omitempty"`
	// Text is typed a key per character instead of Key (a line break is
	// Enter), for pages that read keystrokes.
	Text string `json:"text,omitempty"`
}

// keyExamples is what an unknown key name is told to look like.
const keyExamples = "keys look like Enter, Escape, Tab, ArrowDown, Backspace, PageDown, a single character (a), or a chord (Control+A, Shift+Tab, Meta+Enter)"

// pressKey runs browser_press_key: the key goes to the element of ref,
// focused first, or else to whatever has focus; the gate sees the key, that
// element and what the key will activate.
func (s *Session) pressKey(ctx context.Context, c *call, in pressKeyInput) (string, error) {
	if in.Text != "" || in.Key == "" {
		return s.typeText(ctx, c, in)
	}
	s.typed.key(in.Key)
	chord, err := browser.ParseKey(in.Key)
	if err != nil {
		return "", fail(toolapi.InvalidParams, "%v: %s.", err, keyExamples)
	}
	var msg string
	p, err := s.committed(ctx, c, func(ctx context.Context) (planned, error) {
		p, err := s.planPress(ctx, in.Ref, chord)
		// A character typed into a password field is masked in the
		// audit log, whether or not the press then happens.
		c.masked = c.masked || p.action.Masked
		return p, err
	}, func(ctx context.Context, p planned) error {
		done := fmt.Sprintf("Pressed %s.", p.action.Value)
		if p.action.Role != "" {
			done = fmt.Sprintf("Pressed %s on %s %q.", p.action.Value, p.action.Role, p.action.Name)
		}
		var err error
		msg, err = s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
			if in.Ref != "" {
				if err := s.tab.Focus(ctx, p.t.BackendNodeID); err != nil {
					return fail(toolapi.InvalidParams, "%s (%s %q) cannot take the keyboard focus; press the key without ref, or click the element first.", p.t.Ref, p.t.Role, p.t.Name)
				}
			}
			// The gate judged the element that had focus; a page that
			// moves focus elsewhere (on focus, say) would send the key
			// to an element nobody judged. Press checks it again once
			// the key is down.
			if now, err := s.tab.Focused(ctx); err != nil || now != p.t.BackendNodeID {
				return fail(toolapi.ActionFailed, "The page moved the keyboard focus away from %s before %s was pressed; nothing was pressed. Take a snapshot and try again.", pressTarget(p), p.action.Value)
			}
			if in.Ref != "" && chord.IsEnter() && p.insp != nil {
				// Focus ran the page's handlers, which may have changed
				// what Enter submits since it was judged (another
				// default button, another place the form is sent to);
				// Press checks the keydown's own.
				insp, err := s.tab.Inspect(ctx, p.t.BackendNodeID, false)
				if err != nil {
					return err
				}
				now, err := s.pressAction(ctx, p.t, insp, chord)
				if err != nil {
					return err
				}
				a, b := now.action, p.action
				if (a.Activates == nil) != (b.Activates == nil) || (a.Activates != nil && *a.Activates != *b.Activates) ||
					a.Submits != b.Submits || a.SubmitsTo != b.SubmitsTo || a.SubmitsPayment != b.SubmitsPayment ||
					a.SubmitsAccountChange != b.SubmitsAccountChange {
					return &browser.ChangedError{Input: "key", Now: fmt.Sprintf("once %s had focus, %s submitted something other than was judged", pressTarget(p), p.action.Value)}
				}
			}
			return s.tab.Press(ctx, chord)
		}, done)
		return err
	})
	if err == nil && p.t.BackendNodeID != 0 && chord.Navigates() {
		// A slider moved by its keys says where it is now, as a person
		// sees the handle move.
		if v, verr := s.tab.SliderValue(ctx, p.t.BackendNodeID); verr == nil && v != "" {
			msg += fmt.Sprintf(" It shows %s.", s.clip(v, textLimit))
		}
	}
	return msg, err
}

// pressTarget says where a planned press goes, for messages.
func pressTarget(p planned) string {
	if p.action.Role == "" {
		return "the page"
	}
	return fmt.Sprintf("%s %q", p.action.Role, p.action.Name)
}

// planPress plans pressing chord on ref, checked like a click target, or
// with no ref on the element that has focus now, in the deepest frame,
// which is what the key will act on.
func (s *Session) planPress(ctx context.Context, ref string, chord browser.Chord) (planned, error) {
	if ref != "" {
		t, err := s.target(ref)
		if err != nil {
			return planned{}, err
		}
		if t.Dialog != "" {
			return planned{}, fail(toolapi.InvalidParams, "%s belongs to a dialog: answer it with browser_click on OK or Cancel.", t.Ref)
		}
		insp, err := s.checkFor(ctx, t, true, true)
		if err != nil {
			return planned{}, err
		}
		return s.pressAction(ctx, t, insp, chord)
	}
	if d := s.tab.Dialog(); d != nil {
		return planned{}, fail(toolapi.InvalidParams, "A %s dialog is open and takes no keys: answer it with browser_click on OK or Cancel.", d.Type)
	}
	node, err := s.tab.Focused(ctx)
	if err != nil {
		return planned{}, err
	}
	if node == 0 {
		// Nothing in particular has focus: the key goes to the page.
		return s.pressAction(ctx, snapshot.Target{}, nil, chord)
	}
	insp, err := s.tab.Inspect(ctx, node, false)
	if errors.Is(err, browser.ErrDetached) {
		return planned{}, fail(toolapi.ActionFailed, "The element that had the keyboard focus went away; nothing was pressed. Take a snapshot and try again.")
	}
	if err != nil {
		return planned{}, err
	}
	t := snapshot.Target{BackendNodeID: node, Role: insp.AXRole, Name: insp.AXName}
	for _, live := range s.live {
		if live.BackendNodeID == node && live.Dialog == "" {
			t = live
		}
	}
	return s.pressAction(ctx, t, insp, chord)
}

// pressAction is the press a person approves: the key, the element it acts
// on (none when insp is nil: the page), and what it activates besides:
// Enter in a field submits its form by the form's default button; a chord
// with Control, Meta or Alt, or any key but Tab, arrows and the like sent
// to the page itself, may fire any shortcut the page binds, so on a page
// that shows a control the policy gates it counts as that control. A
// character typed into a password field is masked, here and in the audit
// log.
func (s *Session) pressAction(ctx context.Context, t snapshot.Target, insp *browser.Inspection, chord browser.Chord) (planned, error) {
	a := checkpoint.Action{Verb: checkpoint.VerbPress}
	if insp != nil {
		a = s.actionOn(checkpoint.VerbPress, t, insp)
		a.SubmitsPayment = chord.IsEnter() && insp.EnterSubmitsPayment
		a.SubmitsAccountChange = chord.IsEnter() && insp.EnterSubmitsAccountChange
		if chord.Activates() && insp.SubmitsForm {
			a.Submits, a.SubmitsTo = true, s.secrets.redact(insp.FormAction)
		}
	}
	a.Value = chord.Name
	if insp != nil && chord.IsEnter() {
		act, err := s.tab.EnterActivates(ctx, t.BackendNodeID)
		if errors.Is(err, browser.ErrDetached) {
			return planned{}, fail(toolapi.RefInvalid, "%s is no longer on the page. Use a ref from the new snapshot.", pressTarget(planned{action: a}))
		}
		if err != nil {
			return planned{}, err
		}
		if act != nil {
			a.Activates = &checkpoint.Control{Role: act.Role, Name: s.secrets.redact(act.Name), SubmitsPayment: insp.EnterSubmitsPayment,
				SubmitsAccountChange: insp.EnterSubmitsAccountChange}
			// Enter submits the field's form by its default button, to
			// where that button says (its formaction) or else the form.
			to := insp.FormAction
			if b, err := s.tab.Inspect(ctx, act.Node, false); err == nil && b.SubmitsForm {
				to = b.FormAction
			}
			a.Submits, a.SubmitsTo = true, s.secrets.redact(to)
		}
	}
	if (chord.Shortcut() || pageKey(insp, chord, a.Activates != nil)) && !s.gatesAny(a) {
		c, err := s.gatedControl(ctx)
		if err != nil {
			return planned{}, fail(toolapi.ActionFailed, "%s was not pressed: the page could not be checked for the controls a shortcut may fire (%v). Try again.", chord.Name, err)
		}
		if c != nil {
			a.Activates = c
		}
	}
	if insp != nil && insp.Password && chord.Typed() != "" {
		// A character of a password: like a fill's value, never shown
		// or logged.
		a.Value, a.Masked = maskedValue, true
	}
	return planned{t: t, insp: insp, action: a}, nil
}

// pageKey reports whether chord, sent to the element insp describes (nil:
// the page itself), does nothing but what the page's own key handlers make
// of it: it neither moves around, nor types into a field, nor submits a
// form (submits: judged by its default button), nor activates the control
// that has focus (judged as a click on it). Pages bind such keys to
// actions of their own, as a mail page deletes on "#", or a field sends on
// Enter by script.
func pageKey(insp *browser.Inspection, chord browser.Chord, submits bool) bool {
	if chord.Navigates() {
		return false
	}
	if insp == nil || insp.Tag == "iframe" || insp.Tag == "frame" {
		// Focus on the page, or in a frame on no element.
		return true
	}
	if insp.Tag == "input" && (textInputTypes[insp.InputType] || typedInputs[insp.InputType]) {
		// Enter types nothing into a one-line field.
		return chord.IsEnter() && !submits
	}
	if insp.Editable || insp.Tag == "textarea" || insp.Tag == "select" {
		return false
	}
	return !chord.Activates()
}

// gatesAny reports whether the gate's rules gate a as it is.
func (s *Session) gatesAny(a checkpoint.Action) bool {
	_, ok := s.gate.Gated(nil, a)
	return ok
}

// gatedControl returns a control on the whole page as it is now (every
// frame, beyond the agent's budget) whose click the gate's rules gate, or
// nil when there is none: what a keyboard shortcut may fire.
func (s *Session) gatedControl(ctx context.Context) (*checkpoint.Control, error) {
	if s.gate.Profile() == nil {
		return nil, nil
	}
	page, err := s.page(ctx, false)
	if err != nil {
		return nil, err
	}
	for _, e := range page.Elements {
		c := checkpoint.Control{Role: e.Role, Name: e.Name}
		if s.gatesAny(checkpoint.Action{Verb: checkpoint.VerbClick, Role: c.Role, Name: c.Name}) {
			return &c, nil
		}
	}
	return nil, nil
}
