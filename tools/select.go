package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// selectInput is the arguments of browser_select.
type selectInput struct {
	Ref   string  `json:"ref" schema:"ref"`
	Value *choice `json:"value" jsonschema:"Option value or visible text, or a list of them"`
}

// choice is the value of browser_select: one option's value or visible
// text, or a list of them, which only a select that takes several accepts
// and which becomes exactly its selected options.
type choice struct {
	values []string
	list   bool
}

// UnmarshalJSON reads a string or an array of strings.
func (c *choice) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*c = choice{values: []string{one}}
		return nil
	}
	many := []string{}
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("value must be a string or an array of strings")
	}
	*c = choice{values: many, list: true}
	return nil
}

// choose runs browser_select. It is not named select, which is a keyword.
func (s *Session) choose(ctx context.Context, c *call, in selectInput) (string, error) {
	var picked []browser.Selection
	p, err := s.committed(ctx, c, func(ctx context.Context) (planned, error) { return s.planSelect(ctx, in.Ref, in.Value) },
		func(ctx context.Context, p planned) error {
			_, err := s.settle(ctx, c, s.config.ActionTimeout, func(ctx context.Context) error {
				var err error
				picked, err = s.tab.Select(ctx, p.t.BackendNodeID, in.Value.values, in.Value.list, p.picked)
				return err
			}, "")
			var changed *browser.ChangedError
			if errors.As(err, &changed) {
				return err
			}
			if err != nil {
				return selectProblem(err, p.t.Ref, p.t.Name)
			}
			return nil
		})
	if err != nil {
		return "", err
	}
	got := s.options(picked)
	if !tookEffect(p.action.Options, got) {
		// What was done must be what was approved: the page's handlers
		// changed the choice under the action.
		return "", fail(toolapi.ActionFailed, "%s %q now has %s selected, not %s as planned and shown for approval: the page changed the choice as it was made. Do not go on with this choice; check the select in the new snapshot.",
			p.t.Ref, p.t.Name, s.clip(checkpoint.OptionList(got), messageLimit), s.clip(checkpoint.OptionList(p.action.Options), messageLimit))
	}
	return fmt.Sprintf("Selected %s in %s %q.", s.clip(checkpoint.OptionList(got), messageLimit), p.t.Ref, p.t.Name), nil
}

// tookEffect reports whether the options selected after a select are the
// ones planned (and approved): the same options in the same order. A
// closed combobox's options are known only by the text the agent gave,
// which picks the option showing it up to case and spacing; the others by
// their text and value.
func tookEffect(planned, got []checkpoint.Option) bool {
	if len(planned) != len(got) {
		return false
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for i, o := range planned {
		switch {
		case o.Value == "" && !strings.EqualFold(squash(o.Text), squash(got[i].Text)):
			return false
		case o.Value != "" && (o.Text != got[i].Text || o.Value != got[i].Value):
			return false
		}
	}
	return true
}

// options are the options a select chooses as a person reads them, with the
// session's secrets redacted.
func (s *Session) options(picked []browser.Selection) []checkpoint.Option {
	out := make([]checkpoint.Option, len(picked))
	for i, o := range picked {
		out[i] = checkpoint.Option{Text: s.secrets.redact(o.Text), Value: s.secrets.redact(o.Value)}
	}
	return out
}

// selectProblem says what an error of choosing means to the agent: values
// that fit no option, or a list for a select of one, are invalid_params.
func selectProblem(err error, ref, name string) error {
	if errors.Is(err, browser.ErrNoOption) || errors.Is(err, browser.ErrOneOption) {
		return fail(toolapi.InvalidParams, "%s %q: %v", ref, name, err)
	}
	return err
}
