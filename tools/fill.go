package tools

import (
	"context"
	"fmt"
)

// fillInput is the arguments of browser_fill.
type fillInput struct {
	Ref        string  `json:"ref"`
	Value      *string `json:"value"`
	ClearFirst *bool   `json:"clear_first,omitempty"`
}

// fill runs browser_fill: typed text for text fields, a set value for the
// inputs whose value has a format (date, time, number), or the text of an
// open prompt dialog.
func (s *Session) fill(ctx context.Context, in fillInput) (string, error) {
	if in.Value == nil {
		return "", fail(InvalidParams, "browser_fill needs a value (use \"\" to clear the field).")
	}
	t, err := s.target(in.Ref)
	if err != nil {
		return "", err
	}
	if t.Dialog == "prompt" {
		if _, err := s.authorize(ctx, describe("fill", t)); err != nil {
			return "", err
		}
		return s.answerDialog(ctx, t, *in.Value)
	}
	if t.Dialog != "" {
		return "", fail(InvalidParams, "%s is a dialog button, not a text field: use browser_click.", t.Ref)
	}
	insp, err := s.check(ctx, t, true)
	if err != nil {
		return "", err
	}
	textLike := insp.Editable || insp.Tag == "textarea" || (insp.Tag == "input" && (textInputTypes[insp.InputType] || typedInputs[insp.InputType]))
	if !textLike {
		what := insp.Tag
		if insp.InputType != "" {
			what = insp.InputType + " input"
		}
		return "", fail(InvalidParams, "%s is %s %q (a %s), not a text field; browser_fill needs an input, a textarea or an editable element. Use browser_click for buttons, checkboxes and radios, browser_select for drop-downs.", t.Ref, article(t.Role), t.Name, what)
	}
	if insp.ReadOnly {
		return "", fail(ElementDisabled, "%s (%s %q) is read-only.", t.Ref, t.Role, t.Name)
	}
	if insp, err = s.approve(ctx, t, describe("fill", t), insp); err != nil {
		return "", err
	}
	value := *in.Value
	if insp.Tag == "input" {
		if value, err = normalizeInput(insp.InputType, value); err != nil {
			return "", fail(InvalidParams, "%v", err)
		}
	}
	shown := fmt.Sprintf("%q", value)
	if insp.InputType == "password" {
		shown = "the password"
	}
	var got string
	_, err = s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		var err error
		if insp.Tag == "input" && typedInputs[insp.InputType] {
			got, err = s.tab.SetValue(ctx, t.BackendNodeID, value)
		} else {
			got, err = s.tab.Type(ctx, t.BackendNodeID, value, orDefault(in.ClearFirst, true))
		}
		return err
	}, "")
	if err != nil {
		return "", err
	}
	if insp.Tag == "input" && typedInputs[insp.InputType] && got != value {
		return "", fail(InvalidParams, "the %s input refused %q (it holds %q now)", insp.InputType, value, got)
	}
	return fmt.Sprintf("Filled %s %s %q with %s.", t.Ref, t.Role, t.Name, shown), nil
}
