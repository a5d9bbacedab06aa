package tools

import (
	"context"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// planned is a state-changing action, checked and described, ready for the
// gate and then for the browser: the target, what the check found of it (nil
// for the controls of a JavaScript dialog), and the concrete action a person
// approves.
type planned struct {
	t      snapshot.Target
	insp   *browser.Inspection
	action checkpoint.Action
	// value is what a fill types.
	value typed
	// picked are the options a select chooses, as the page has them
	// (action.Options are as a person reads them): the choice must still
	// pick these when it is made.
	picked []browser.Selection
	// to is what the check found of the element a drag drops on.
	to *browser.Inspection
	// at is what a point's hit test found, for an action at a point
	// (vision.go): its At is the one point judged, marked and sent to.
	at browser.PointTarget
}

// planClick plans browser_click on ref.
func (s *Session) planClick(ctx context.Context, ref string) (planned, error) {
	t, err := s.target(ref)
	if err != nil {
		return planned{}, err
	}
	if t.Dialog != "" {
		return s.planDialog(t)
	}
	insp, err := s.check(ctx, t, true)
	if err != nil {
		return planned{}, err
	}
	return planned{t: t, insp: insp, action: s.actionOn(checkpoint.VerbClick, t, insp)}, nil
}

// planDialog plans a click on a button of the open JavaScript dialog: the
// person sees the dialog's kind and message, and for OK of a prompt the text
// it sends.
func (s *Session) planDialog(t snapshot.Target) (planned, error) {
	d := s.tab.Dialog()
	if d == nil {
		return planned{}, fail(toolapi.RefInvalid, "%s belonged to a dialog that is no longer open.", t.Ref)
	}
	if t.Dialog == "prompt" {
		return planned{}, fail(toolapi.InvalidParams, "%s is the text box of a prompt: fill it with browser_fill, then click OK.", t.Ref)
	}
	a := checkpoint.Action{Verb: checkpoint.VerbClick, Ref: t.Ref, Role: t.Role, Name: t.Name,
		Dialog: &snapshot.Dialog{Type: d.Type, Message: s.secrets.redact(d.Message)}}
	if t.Dialog == "accept" && d.Type == "prompt" {
		a.Value, a.Masked = s.prompt.shown, s.prompt.masked
	}
	if t.Dialog == "accept" {
		// OK does what the message asks: judged as a button saying it.
		a.Activates = &checkpoint.Control{Role: "button", Name: a.Dialog.Message}
	}
	return planned{t: t, action: a}, nil
}

// planFill plans browser_fill of value into ref, a text field of the page.
func (s *Session) planFill(ctx context.Context, ref string, value *string) (planned, error) {
	t, err := s.field(ref, value != nil, `browser_fill needs a value (use "" to clear the field).`)
	if err != nil {
		return planned{}, err
	}
	insp, err := s.check(ctx, t, true)
	if err != nil {
		return planned{}, err
	}
	textLike := insp.Editable || insp.Tag == "textarea" || (insp.Tag == "input" && (textInputTypes[insp.InputType] || typedInputs[insp.InputType]))
	if !textLike {
		what := insp.Tag
		if insp.InputType != "" {
			what = insp.InputType + " input"
		}
		return planned{}, fail(toolapi.InvalidParams, "%s is %s %q (a %s), not a text field; browser_fill needs an input, a textarea or an editable element. Use browser_click for buttons, checkboxes and radios, browser_select for drop-downs.", t.Ref, article(t.Role), t.Name, what)
	}
	if insp.ReadOnly {
		return planned{}, fail(toolapi.ElementDisabled, "%s (%s %q) is read-only.", t.Ref, t.Role, t.Name)
	}
	v, err := s.typeable(*value, insp)
	if err != nil {
		return planned{}, err
	}
	a := s.actionOn(checkpoint.VerbFill, t, insp)
	a.Value, a.Masked = v.shown, v.masked
	return planned{t: t, insp: insp, action: a, value: v}, nil
}

// typeable is value, as the agent wrote it, as a fill types it into the
// field insp: its placeholders expanded, and in the format of an input
// whose value has one.
func (s *Session) typeable(value string, insp *browser.Inspection) (typed, error) {
	v, err := s.secrets.value(value, insp.Password)
	if err != nil {
		return typed{}, err
	}
	if insp.Tag == "input" {
		if v.text, err = normalizeInput(insp.InputType, v.text); err != nil {
			return typed{}, fail(toolapi.InvalidParams, "%v", err)
		}
		if !v.masked {
			v.shown = v.text
		}
	}
	return v, nil
}

// planSelect plans browser_select of value in ref: the person sees every
// option the select will really choose, which the page may show otherwise
// than the agent wrote them. A native select is chosen by script, so only
// the widgets chosen by clicks must be visible and uncovered: pages hide a
// native select under a styled stand-in of their own.
func (s *Session) planSelect(ctx context.Context, ref string, value *choice) (planned, error) {
	t, err := s.field(ref, value != nil, "browser_select needs a value: an option's value or its visible text, or a list of them for a select that takes several.")
	if err != nil {
		return planned{}, err
	}
	insp, err := s.check(ctx, t, t.Tag != "select")
	if err != nil {
		return planned{}, err
	}
	if insp.Tag != "select" && t.Role != "listbox" && t.Role != "combobox" {
		return planned{}, fail(toolapi.InvalidParams, "%s is %s %q, not a drop-down or list; browser_select needs a select, a combobox or a listbox.", t.Ref, article(t.Role), t.Name)
	}
	picked, err := s.tab.PickOptions(ctx, t.BackendNodeID, value.values, value.list)
	if err != nil {
		return planned{}, selectProblem(err, t.Ref, t.Name)
	}
	a := s.actionOn(checkpoint.VerbSelect, t, insp)
	a.Options = s.options(picked)
	return planned{t: t, insp: insp, action: a, picked: picked}, nil
}

// field is the opening fill and select share: a value is required (missing
// says so when there is none), and the ref must name an element of the
// page, not a control of a JavaScript dialog.
func (s *Session) field(ref string, hasValue bool, missing string) (snapshot.Target, error) {
	if !hasValue {
		return snapshot.Target{}, fail(toolapi.InvalidParams, "%s", missing)
	}
	t, err := s.target(ref)
	if err != nil {
		return t, err
	}
	switch {
	case t.Dialog == "prompt":
		return t, fail(toolapi.InvalidParams, "%s is the text box of a prompt: what is typed there reaches the page only with OK, so OK is the action a human approves.", t.Ref)
	case t.Dialog != "":
		return t, fail(toolapi.InvalidParams, "%s is a dialog button, not a field: use browser_click.", t.Ref)
	}
	return t, nil
}

// actionOn describes a verb on a checked target as a person approves it and
// the gate judges it: the element's role and its accessible name as the
// check found them (the snapshot's name when it has none), where it is, and
// the facts the default policy reads.
func (s *Session) actionOn(verb checkpoint.Verb, t snapshot.Target, insp *browser.Inspection) checkpoint.Action {
	name := insp.AXName
	if name == "" {
		name = t.Name
	}
	a := checkpoint.Action{
		Verb: verb, Ref: t.Ref, Node: t.BackendNodeID, Role: t.Role, Name: s.secrets.redact(name),
		Autocomplete: insp.Autocomplete, FieldName: s.secrets.redact(insp.FieldName),
		SubmitsPayment:       verb == checkpoint.VerbClick && insp.SubmitsPayment,
		SubmitsAccountChange: verb == checkpoint.VerbClick && insp.SubmitsAccountChange,
		Field:                insp.Editable || insp.Tag == "textarea" || insp.Tag == "select" || (insp.Tag == "input" && (textInputTypes[insp.InputType] || typedInputs[insp.InputType])),
		Submits:              verb == checkpoint.VerbClick && (insp.SubmitsForm || (insp.Activates != nil && insp.Activates.SubmitsForm)),
		Origin:               insp.Origin,
	}
	switch {
	case a.Submits && insp.SubmitsForm:
		a.SubmitsTo = s.secrets.redact(insp.FormAction)
	case a.Submits:
		a.SubmitsTo = s.secrets.redact(insp.Activates.FormAction)
	}
	if c := insp.Activates; c != nil {
		// A click in a label activates the label's control.
		a.Activates = &checkpoint.Control{Role: c.Role, Name: s.secrets.redact(c.Name), SubmitsPayment: insp.ActivatesPayment}
	}
	if insp.Box.Width > 0 && insp.Box.Height > 0 {
		box := snapshot.BBox(insp.Box)
		a.Box = &box
	}
	return a
}
