package browser

import (
	"context"
	"fmt"
	"strings"
)

// ChangedError reports an input that was not committed: once its element
// had focus, and the page's handlers for that focus (or for the key just
// pressed) had run, what the input would commit was no longer what the
// caller planned, and so not what a person may have approved. The page
// heard no input or change event of it (docs/architecture.md, "Keys,
// drags, uploads").
type ChangedError struct {
	// Input is the kind of input: "select", "type", "key" or "upload".
	Input string
	// Options are, for a select, the options its values pick now.
	Options []Selection
	// Missing is, for a select, a value that picks no option now.
	Missing string
	// Now says, in the page's words, what changed (for a select, what
	// changed besides the options picked).
	Now string
}

func (e *ChangedError) Error() string {
	switch {
	case e.Now != "":
		return fmt.Sprintf("%s: %s; nothing was committed", e.Input, e.Now)
	case e.Input == "select" && e.Missing != "":
		return fmt.Sprintf("select: once focused, the select has no option %q; nothing was chosen", e.Missing)
	case e.Input == "select":
		shown := make([]string, len(e.Options))
		for i, o := range e.Options {
			shown[i] = fmt.Sprintf("%q (%s)", o.Text, o.Value)
		}
		return fmt.Sprintf("select: once focused, the values pick %s; nothing was chosen", strings.Join(shown, ", "))
	}
	return e.Input + ": the page changed what it commits; nothing was committed"
}

// sameOptions reports whether the options picked now are the approved
// ones, in order: by value and text; an approved option known by its text
// alone (a closed combobox's, before its popup existed) by the text it
// shows, up to case and spacing.
func sameOptions(approved, now []Selection) bool {
	if len(approved) != len(now) {
		return false
	}
	squash := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	for i, a := range approved {
		switch {
		case a.Value == "" && squash(a.Text) != squash(now[i].Text):
			return false
		case a.Value != "" && a != now[i]:
			return false
		}
	}
	return true
}

// clickGuarded clicks an option (clickNode) behind a guard that stops the
// click before the page hears it when the press before it changed the
// option (guardOptionJS): a *ChangedError then.
func (t *Context) clickGuarded(ctx context.Context, option nodeID) error {
	n, err := t.node(ctx, option)
	if err != nil {
		return fmt.Errorf("click the option: %w", err)
	}
	guard, err := n.object(ctx, guardOptionJS)
	n.release(ctx)
	if err != nil {
		return fmt.Errorf("click the option: guard it: %w", err)
	}
	defer guard.release(ctx)
	clickErr := t.clickNode(ctx, option, "the option")
	var g struct {
		Blocked bool   `json:"blocked"`
		Now     string `json:"now"`
	}
	if err := guard.call(ctx, readGuardJS, &g, true); err != nil {
		// The document went away with the click: nothing to stop.
		t.log.Debug("select: the option's guard was not read", "err", err)
	}
	if g.Blocked {
		return &ChangedError{Input: "select", Now: g.Now}
	}
	return clickErr
}
