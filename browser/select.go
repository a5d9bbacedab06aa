package browser

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoOption reports a select value that matches no option.
var ErrNoOption = errors.New("no such option")

// Selection is the option a Select picked.
type Selection struct {
	Value string
	Text  string
}

// Select picks the option of a select (or listbox) whose value or visible
// text is value. When none matches, the error wraps ErrNoOption and names the
// options there are.
func (t *Tab) Select(ctx context.Context, backendNodeID int64, value string) (Selection, error) {
	var r struct {
		OK       bool     `json:"ok"`
		Disabled bool     `json:"disabled"`
		Value    string   `json:"value"`
		Text     string   `json:"text"`
		Options  []string `json:"options"`
	}
	if err := t.callOn(ctx, backendNodeID, selectOptionJS, &r, value); err != nil {
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
