package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// pressKeyInput is the arguments of browser_press_key.
type pressKeyInput struct {
	Key string `json:"key"`
	Ref string `json:"ref,omitempty"`
}

// keyExamples is what an unknown key name is told to look like.
const keyExamples = "keys look like Enter, Escape, Tab, ArrowDown, Backspace, PageDown, a single character (a), or a chord (Control+A, Shift+Tab, Meta+Enter)"

// pressKey runs browser_press_key: the key goes to the element of ref,
// focused first, or else to whatever has focus; the gate sees the key and
// that element.
func (s *Session) pressKey(ctx context.Context, in pressKeyInput) (string, error) {
	s.typed.key(in.Key)
	chord, err := browser.ParseKey(in.Key)
	if err != nil {
		return "", fail(InvalidParams, "%v: %s.", err, keyExamples)
	}
	p, err := s.gated(ctx, func(ctx context.Context) (planned, error) { return s.planPress(ctx, in.Ref, chord) })
	if err != nil {
		return "", err
	}
	done := fmt.Sprintf("Pressed %s.", p.action.Value)
	if p.action.Role != "" {
		done = fmt.Sprintf("Pressed %s on %s %q.", p.action.Value, p.action.Role, p.action.Name)
	}
	return s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		if in.Ref != "" {
			if err := s.tab.Focus(ctx, p.t.BackendNodeID); err != nil {
				return fail(InvalidParams, "%s (%s %q) cannot take the keyboard focus; press the key without ref, or click the element first.", p.t.Ref, p.t.Role, p.t.Name)
			}
		}
		return s.tab.Press(ctx, chord)
	}, done)
}

// planPress plans pressing chord on ref, checked like a click target, or
// with no ref on the element that has focus now, which is what the key will
// act on.
func (s *Session) planPress(ctx context.Context, ref string, chord browser.Chord) (planned, error) {
	if ref != "" {
		t, err := s.target(ref)
		if err != nil {
			return planned{}, err
		}
		if t.Dialog != "" {
			return planned{}, fail(InvalidParams, "%s belongs to a dialog: answer it with browser_click on OK or Cancel.", t.Ref)
		}
		insp, err := s.check(ctx, t, true)
		if err != nil {
			return planned{}, err
		}
		return s.pressAction(t, insp, chord), nil
	}
	if d := s.tab.Dialog(); d != nil {
		return planned{}, fail(InvalidParams, "A %s dialog is open and takes no keys: answer it with browser_click on OK or Cancel.", d.Type)
	}
	node, err := s.tab.Focused(ctx)
	if err != nil || node == 0 {
		// Nothing in particular has focus: the key goes to the page.
		return planned{action: checkpoint.Action{Verb: checkpoint.VerbPress, Value: chord.Name}}, err
	}
	insp, err := s.tab.Inspect(ctx, node, false)
	if errors.Is(err, browser.ErrDetached) {
		return planned{action: checkpoint.Action{Verb: checkpoint.VerbPress, Value: chord.Name}}, nil
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
	return s.pressAction(t, insp, chord), nil
}

// pressAction is the press a person approves: the key and the element it
// acts on, which for Enter may submit a payment form. A character typed into
// a password field is masked, here and in the audit log.
func (s *Session) pressAction(t snapshot.Target, insp *browser.Inspection, chord browser.Chord) planned {
	a := s.actionOn(checkpoint.VerbPress, t, insp)
	a.Value = chord.Name
	a.SubmitsPayment = chord.Name == "Enter" && insp.EnterSubmitsPayment
	if insp.InputType == "password" && chord.Typed() != "" {
		// A character of a password: like a fill's value, never shown
		// or logged.
		a.Value, a.Masked = maskedValue, true
		s.maskKey = true
	}
	return planned{t: t, insp: insp, action: a}
}
