package browser

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoOption reports a select value that matches no option.
var ErrNoOption = errors.New("no such option")

// Selection is the option a Select picked, or PickOption would pick.
type Selection struct {
	Value string
	Text  string
}

// Select picks the option of a select (or listbox) whose value or visible
// text is value. When none matches, the error wraps ErrNoOption and names the
// options there are.
func (t *Tab) Select(ctx context.Context, backendNodeID int64, value string) (Selection, error) {
	return t.option(ctx, backendNodeID, value, true)
}

// PickOption says which option Select would pick for value, without picking
// it: what a person approves before the select runs. Its errors are Select's.
func (t *Tab) PickOption(ctx context.Context, backendNodeID int64, value string) (Selection, error) {
	return t.option(ctx, backendNodeID, value, false)
}

// option finds the option for value, and picks it when choose is set, in one
// script so that Select and PickOption cannot disagree.
func (t *Tab) option(ctx context.Context, backendNodeID int64, value string, choose bool) (Selection, error) {
	var r struct {
		OK       bool     `json:"ok"`
		Disabled bool     `json:"disabled"`
		Value    string   `json:"value"`
		Text     string   `json:"text"`
		Options  []string `json:"options"`
	}
	if err := t.callOn(ctx, backendNodeID, selectOptionJS, &r, value, choose); err != nil {
		return Selection{}, fmt.Errorf("select %q: %w", value, err)
	}
	if r.Disabled {
		return Selection{}, fmt.Errorf("select %q: option %q is disabled: %w", value, r.Options[0], ErrNoOption)
	}
	if !r.OK {
		return Selection{}, fmt.Errorf("select %q: %w; the options are %q", value, ErrNoOption, r.Options)
	}
	return Selection{Value: r.Value, Text: r.Text}, nil
}
