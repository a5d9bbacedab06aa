package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// fillInput is the arguments of browser_fill.
type fillInput struct {
	Ref        string  `json:"ref" schema:"ref"`
	Value      *string `json:"value"`
	ClearFirst bool    `json:"clear_first,omitempty" schema:"default=true"`
	// Keys types key by key (browser.Context.TypeKeys), for pages that
	// read keystrokes rather than the field's value.
	Keys bool `json:"keys,omitempty"`
}

// fill runs browser_fill: typed text for text fields, a set value for the
// inputs whose value has a format (date, time, number), or the text of an
// open prompt dialog, which OK sends. A {{NAME}} in the value types the
// secret NAME; the field then draws its text as discs.
func (s *Session) fill(ctx context.Context, c *call, in fillInput) (string, error) {
	s.typed.fill(in.Value)
	if t, err := s.target(in.Ref); err == nil && isSlider(t) {
		return s.fillSlider(ctx, c, in)
	} else if err == nil && t.Dialog == "prompt" && in.Value != nil {
		v, err := s.secrets.value(*in.Value, false)
		if err != nil {
			return "", err
		}
		s.prompt = v
		return fmt.Sprintf("Typed %s into the prompt; click OK to send it.", v), nil
	}
	var got string
	var v typed // what was typed: a one-time code is made as it is typed
	// shown is how many elements showed the text typed before the
	// field's change event (browser.Typed).
	var shown int
	p, err := s.committed(ctx, c, func(ctx context.Context) (planned, error) { return s.planFill(ctx, in.Ref, in.Value) },
		func(ctx context.Context, p planned) error {
			node, insp := p.t.BackendNodeID, p.insp
			v = p.value
			if v.code {
				// The person approved {{NAME}}, not a code: the code is
				// the one current now, fresh enough to be sent.
				if err := s.secrets.fresh(ctx, *in.Value); err != nil {
					return err
				}
				var err error
				if v, err = s.typeable(*in.Value, insp); err != nil {
					return err
				}
			}
			_, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
				var err error
				if insp.Tag == "input" && typedInputs[insp.InputType] {
					got, err = s.tab.SetValue(ctx, node, v.text)
				} else if v.secret {
					// A secret is never looked for on the page
					// (tookValue): it goes to no script.
					if in.Keys {
						got, err = s.tab.TypeKeys(ctx, node, v.text, in.ClearFirst)
					} else {
						got, err = s.tab.Type(ctx, node, v.text, in.ClearFirst)
					}
				} else {
					var typed browser.Typed
					typed, err = s.tab.TypeText(ctx, node, v.text, in.ClearFirst, in.Keys)
					got, shown = typed.Value, typed.Shown
				}
				if err == nil && v.secret && insp.InputType != "password" {
					err = s.tab.MaskText(ctx, node)
				}
				return err
			}, "")
			return err
		})
	if err != nil {
		return "", err
	}
	insp := p.insp
	setValue := insp.Tag == "input" && typedInputs[insp.InputType]
	if setValue && got != v.text {
		return "", fail(toolapi.InvalidParams, "the %s input refused %s (it holds %q now)", insp.InputType, v, s.clip(got, textLimit))
	}
	if in.Keys && !setValue && got == "" && v.text != "" {
		// The page took the keys and kept no text (a terminal reads
		// keydown into a helper field it keeps empty): nothing holds
		// another value than the one approved.
		return fmt.Sprintf("Typed %s into %s %s %q key by key; the field holds no text (the page read the keys).", v, p.t.Ref, p.t.Role, p.t.Name), nil
	}
	if !setValue && !holds(got, v.text, in.ClearFirst) && !v.secret && strings.TrimSpace(got) == "" {
		if msg := s.tookValue(ctx, p, shown); msg != "" {
			return msg, nil
		}
	}
	if !setValue && !holds(got, v.text, in.ClearFirst) {
		// What was done must be what was approved: the page's handlers
		// changed the value under the action.
		now := fmt.Sprintf("%q", s.clip(got, textLimit))
		if v.masked {
			now = fmt.Sprintf("a different value (%d characters)", utf8.RuneCountInString(got))
		}
		return "", fail(toolapi.ActionFailed, "%s %s %q holds %s, not %s as planned and shown for approval: the page changed the value as it was typed. Do not submit it; check the field in the new snapshot.",
			p.t.Ref, p.t.Role, p.t.Name, now, v)
	}
	return fmt.Sprintf("Filled %s %s %q with %s.%s", p.t.Ref, p.t.Role, p.t.Name, v, s.secrets.codeNote(*in.Value)), nil
}

// tookValue says how the page took the value of a fill p whose field
// emptied itself on its change event (an app adds a todo and clears the
// field), or is "" when nothing says it did: the page must now show the
// text typed, as the whole text of an element a person sees, in more
// places than just before the change. A page that dropped the value, or
// kept another, or only where no one sees it, shows no more of it, and
// the fill fails as one whose value the page changed.
func (s *Session) tookValue(ctx context.Context, p planned, before int) string {
	ctx, cancel := context.WithTimeout(ctx, s.config.ActionTimeout)
	defer cancel()
	now, err := s.tab.ShowsText(ctx, p.t.BackendNodeID, p.value.text)
	if err != nil || now <= before {
		return ""
	}
	return fmt.Sprintf("Filled %s %s %q with %s, and the page took the value: the field emptied itself and the page now shows %s (%d more time(s) than before). Do not type it again; check the new snapshot.",
		p.t.Ref, p.t.Role, p.t.Name, p.value, p.value, now-before)
}

// holds reports whether a field's value read back after typing is the text
// typed: all of it, or, without clearing first, its end. Fields normalise
// what they hold (spaces and separators a formatter adds, case, line
// breaks), so only letters and digits are compared.
func holds(value, typed string, clear bool) bool {
	v, t := significant(value), significant(typed)
	if t == "" && typed != "" {
		// Nothing but punctuation: nothing to normalise either.
		v, t = value, typed
	}
	if clear {
		return v == t
	}
	return strings.HasSuffix(v, t)
}

// significant keeps the letters and digits of s, lower-cased.
func significant(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}
