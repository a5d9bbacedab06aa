package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// problem is why an action did not happen: a code for the agent and a
// message that says what to do.
type problem struct {
	code Code
	msg  string
}

func (p *problem) Error() string { return p.msg }

func fail(c Code, format string, a ...any) *problem {
	return &problem{code: c, msg: fmt.Sprintf(format, a...)}
}

// step is one action's own work: it checks its arguments and acts, and
// returns what the agent should hear on success.
type step func(ctx context.Context, args json.RawMessage) (message string, err error)

// act runs an action with the result contract: a browser that died is brought
// back first, every failure becomes a code and a message, and the result
// always carries a fresh snapshot whose refs replace the live table.
func (s *Session) act(ctx context.Context, args json.RawMessage, do step) Output {
	s.settled = nil
	if msg := s.recover(ctx); msg != "" {
		return s.failed(ctx, ActionFailed, msg)
	}
	msg, err := do(ctx, args)
	if err != nil {
		var p *problem
		switch {
		case errors.As(err, &p):
		case errors.Is(err, context.DeadlineExceeded):
			p = fail(Timeout, "%v. The page may be busy; take a snapshot and try again.", err)
		case errors.Is(err, browser.ErrDetached):
			p = fail(RefInvalid, "The element is no longer on the page. Use a ref from the new snapshot.")
		default:
			p = fail(ActionFailed, "%v", err)
		}
		if m := s.recover(ctx); m != "" {
			p = fail(ActionFailed, "%s", m)
		}
		return s.failed(ctx, p.code, p.msg)
	}
	snap, serr := s.snapshot(ctx, true)
	r := ActionResult{Success: true, Snapshot: snap, Message: msg}
	if serr != nil && snap != nil {
		r.Message = strings.TrimSpace(msg + " " + serr.Error())
	}
	return s.output(r)
}

// target looks a ref up in the live table.
func (s *Session) target(ref string) (snapshot.Target, error) {
	if !refPattern.MatchString(ref) {
		return snapshot.Target{}, fail(RefInvalid, "%q is not a ref: refs look like @e7. Use a ref from the latest snapshot.", ref)
	}
	t, ok := s.live[ref]
	if !ok {
		return snapshot.Target{}, fail(RefInvalid, "%s is not in the latest snapshot: refs die after every action. Use a ref from the snapshot in this result.", ref)
	}
	return t, nil
}

// check looks at the node a ref points to, in one round trip, and refuses an
// element the agent did not see or cannot act on.
func (s *Session) check(ctx context.Context, t snapshot.Target, needBox bool) (*browser.Inspection, error) {
	ctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	in, err := s.tab.Inspect(ctx, t.BackendNodeID, needBox)
	if errors.Is(err, browser.ErrDetached) {
		return nil, fail(RefInvalid, "%s (%s %q) is no longer on the page. Use a ref from the new snapshot.", t.Ref, t.Role, t.Name)
	}
	if err != nil {
		return nil, err
	}
	if t.DocumentURL != "" && in.DocumentURL != t.DocumentURL {
		return nil, fail(RefInvalid, "%s belonged to %s, but the page is now %s. Use a ref from the new snapshot.", t.Ref, t.DocumentURL, in.DocumentURL)
	}
	if needBox && !in.Visible && (in.AXRole == "none" || in.AXRole == "") {
		// Hidden since the snapshot: the tree ignores it now, so its role
		// and name are gone too; hidden is what changed.
		return nil, fail(ElementNotVisible, "%s (%s %q) is hidden now: it has no visible box to act on.", t.Ref, t.Role, t.Name)
	}
	if in.AXRole != t.AXRole || in.AXName != t.AXName {
		return nil, fail(RefInvalid, "%s changed since the snapshot: it was %s %q and is now %s %q. Nothing was done; check the new snapshot.",
			t.Ref, t.AXRole, t.AXName, in.AXRole, in.AXName)
	}
	if in.Disabled {
		return nil, fail(ElementDisabled, "%s (%s %q) is disabled.", t.Ref, t.Role, t.Name)
	}
	if needBox && !in.Visible {
		return nil, fail(ElementNotVisible, "%s (%s %q) has no visible box to act on: it is hidden or has no size.", t.Ref, t.Role, t.Name)
	}
	if needBox && in.Covered != "" {
		return nil, fail(ElementObscured, "%s (%s %q) is covered by %s. Deal with that first (close it or act inside it).", t.Ref, t.Role, t.Name, in.Covered)
	}
	return in, nil
}

// describe names a target the way an approver and the log read it.
func describe(verb string, t snapshot.Target) string {
	return fmt.Sprintf("%s %s %q", verb, t.Role, t.Name)
}

func (s *Session) click(ctx context.Context, args json.RawMessage) (string, error) {
	var in clickInput
	if err := decode(args, &in); err != nil {
		return "", fail(InvalidParams, "%v", err)
	}
	t, err := s.target(in.Ref)
	if err != nil {
		return "", err
	}
	if t.Dialog != "" {
		if _, err := s.authorize(ctx, describe("click", t)); err != nil {
			return "", err
		}
		return s.answerDialog(ctx, t, "")
	}
	insp, err := s.checkAndAuthorize(ctx, t, describe("click", t))
	if err != nil {
		return "", err
	}
	return s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.Click(ctx, insp.X, insp.Y)
	}, fmt.Sprintf("Clicked %s %s %q.", t.Ref, t.Role, t.Name))
}

// checkAndAuthorize checks the target, asks the gate, and, when a human was
// asked, checks the target again: the page may have moved on meanwhile.
func (s *Session) checkAndAuthorize(ctx context.Context, t snapshot.Target, action string) (*browser.Inspection, error) {
	insp, err := s.check(ctx, t, true)
	if err != nil {
		return nil, err
	}
	return s.approve(ctx, t, action, insp)
}

// approve asks the gate about an action on a target already checked as
// insp; when a human was asked, it checks the target again.
func (s *Session) approve(ctx context.Context, t snapshot.Target, action string, insp *browser.Inspection) (*browser.Inspection, error) {
	asked, err := s.authorize(ctx, action)
	if err != nil {
		return nil, err
	}
	if asked {
		return s.check(ctx, t, true)
	}
	return insp, nil
}

// settle runs the input within limit and waits for what it started; the
// message says what happened, alerts included.
func (s *Session) settle(ctx context.Context, limit time.Duration, input func(context.Context) error, done string) (string, error) {
	return s.wait(ctx, limit, input, done, false)
}

// settleScroll is settle for a scroll, which moves the page a frame after
// its input: the early capture waits for that move.
func (s *Session) settleScroll(ctx context.Context, limit time.Duration, input func(context.Context) error, done string) (string, error) {
	return s.wait(ctx, limit, input, done, true)
}

// wait runs the input within limit and waits for what it started; the
// result's capture is taken while the page settles and kept if nothing
// changed meanwhile (after the first change, for a scroll).
func (s *Session) wait(ctx context.Context, limit time.Duration, input func(context.Context) error, done string, scroll bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out, err := s.tab.Settle(ctx, input, browser.Wait{
		Quiet: s.config.Quiet, Limit: limit, Capture: &s.config.Capture, FirstChange: scroll})
	// A capture taken while the page settled, and still true at the end of
	// the quiet window, serves as the result's snapshot.
	s.settled = out.Capture
	msg := done
	for _, a := range out.Alerts {
		msg += fmt.Sprintf(" The page showed an alert, which was accepted: %q.", a)
	}
	if out.Dialog != nil {
		msg += fmt.Sprintf(" The page opened a %s dialog: %q. It is in the snapshot as an alertdialog; answer it with its buttons.", out.Dialog.Type, out.Dialog.Message)
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", fail(Timeout, "%s But the page did not settle within %s (it may be busy or still loading): %v", done, limit, err)
		}
		return "", err
	}
	return msg, nil
}

// answerDialog answers an open JavaScript dialog through the synthetic
// controls the snapshot gave it: OK, Cancel, or the prompt's text box.
func (s *Session) answerDialog(ctx context.Context, t snapshot.Target, text string) (string, error) {
	d := s.tab.Dialog()
	if d == nil {
		return "", fail(RefInvalid, "%s belonged to a dialog that is no longer open.", t.Ref)
	}
	switch t.Dialog {
	case "prompt":
		s.promptText = text
		return fmt.Sprintf("Typed %q into the prompt; click OK to send it.", text), nil
	case "accept", "dismiss":
		accept := t.Dialog == "accept"
		text := s.promptText
		s.promptText = ""
		_, err := s.settleDialog(ctx, accept, text)
		if err != nil {
			return "", err
		}
		verb := "Accepted"
		if !accept {
			verb = "Dismissed"
		}
		return fmt.Sprintf("%s the %s dialog %q.", verb, d.Type, d.Message), nil
	}
	return "", fail(InvalidParams, "%s is part of a dialog and cannot be used that way.", t.Ref)
}

// settleDialog answers the open dialog and waits for what that started (a
// navigation, for beforeunload).
func (s *Session) settleDialog(ctx context.Context, accept bool, text string) (string, error) {
	return s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		return s.tab.HandleDialog(ctx, accept, text)
	}, "")
}

func (s *Session) fill(ctx context.Context, args json.RawMessage) (string, error) {
	var in fillInput
	if err := decode(args, &in); err != nil {
		return "", fail(InvalidParams, "%v", err)
	}
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

// article puts "a" or "an" before a role.
func article(role string) string {
	if role != "" && strings.ContainsRune("aeiou", rune(role[0])) {
		return "an " + role
	}
	return "a " + role
}

func (s *Session) choose(ctx context.Context, args json.RawMessage) (string, error) {
	var in selectInput
	if err := decode(args, &in); err != nil {
		return "", fail(InvalidParams, "%v", err)
	}
	if in.Value == nil {
		return "", fail(InvalidParams, "browser_select needs a value: an option's value or its visible text.")
	}
	t, err := s.target(in.Ref)
	if err != nil {
		return "", err
	}
	insp, err := s.check(ctx, t, true)
	if err != nil {
		return "", err
	}
	if insp.Tag != "select" && t.Role != "listbox" && t.Role != "combobox" {
		return "", fail(InvalidParams, "%s is %s %q, not a drop-down or list; browser_select needs a select, a combobox or a listbox.", t.Ref, article(t.Role), t.Name)
	}
	if _, err = s.approve(ctx, t, fmt.Sprintf("select %q in %s %q", *in.Value, t.Role, t.Name), insp); err != nil {
		return "", err
	}
	var picked browser.Selection
	_, err = s.settle(ctx, s.config.ActionTimeout, func(ctx context.Context) error {
		var err error
		picked, err = s.tab.Select(ctx, t.BackendNodeID, *in.Value)
		return err
	}, "")
	if errors.Is(err, browser.ErrNoOption) {
		return "", fail(InvalidParams, "%s %q: %v", t.Ref, t.Name, err)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Selected %q (value %q) in %s %q.", picked.Text, picked.Value, t.Ref, t.Name), nil
}

func (s *Session) scroll(ctx context.Context, args json.RawMessage) (string, error) {
	var in scrollInput
	if err := decode(args, &in); err != nil {
		return "", fail(InvalidParams, "%v", err)
	}
	amount := orDefault(in.Amount, 300)
	if amount <= 0 {
		return "", fail(InvalidParams, "amount must be a positive number of pixels, not %v.", amount)
	}
	switch in.Direction {
	case "", "up", "down", "top", "bottom":
	default:
		return "", fail(InvalidParams, "direction must be up, down, top or bottom, not %q.", in.Direction)
	}
	if in.Ref == "" && in.Direction == "" {
		return "", fail(InvalidParams, "browser_scroll needs a ref (to bring that element into view) or a direction (up, down, top, bottom).")
	}
	limit := s.config.ScrollTimeout
	if in.Ref == "" {
		vp, err := s.tab.Viewport(ctx)
		if err != nil {
			return "", err
		}
		return s.settleScroll(ctx, limit, func(ctx context.Context) error {
			switch in.Direction {
			case "up", "down":
				return s.tab.Wheel(ctx, vp.Width/2, vp.Height/2, 0, signed(in.Direction, amount))
			default:
				return s.tab.ScrollPageTo(ctx, in.Direction)
			}
		}, fmt.Sprintf("Scrolled the page %s.", in.Direction))
	}
	t, err := s.target(in.Ref)
	if err != nil {
		return "", err
	}
	if in.Direction == "" {
		// Bringing an element into view needs no box check: that is
		// what the scroll is for.
		if _, err := s.check(ctx, t, false); err != nil {
			return "", err
		}
		return s.settleScroll(ctx, limit, func(ctx context.Context) error {
			return s.tab.ScrollIntoView(ctx, t.BackendNodeID)
		}, fmt.Sprintf("Scrolled %s %s %q into view.", t.Ref, t.Role, t.Name))
	}
	insp, err := s.check(ctx, t, true)
	if err != nil {
		return "", err
	}
	if !insp.Scrollable {
		return "", fail(InvalidParams, "%s (%s %q) cannot scroll inside; scroll the page with a direction alone, or pass the ref alone to bring it into view.", t.Ref, t.Role, t.Name)
	}
	return s.settleScroll(ctx, limit, func(ctx context.Context) error {
		switch in.Direction {
		case "up", "down":
			return s.tab.Wheel(ctx, insp.X, insp.Y, 0, signed(in.Direction, amount))
		default:
			return s.tab.ScrollElementTo(ctx, t.BackendNodeID, in.Direction)
		}
	}, fmt.Sprintf("Scrolled inside %s %s %q %s.", t.Ref, t.Role, t.Name, in.Direction))
}

// signed turns a direction and an amount into a wheel delta.
func signed(direction string, amount float64) float64 {
	if direction == "up" {
		return -amount
	}
	return amount
}
