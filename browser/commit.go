package browser

import (
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
	// Now says, in the page's words, what changed for the other inputs.
	Now string
}

func (e *ChangedError) Error() string {
	switch {
	case e.Input == "select" && e.Missing != "":
		return fmt.Sprintf("select: once focused, the select has no option %q; nothing was chosen", e.Missing)
	case e.Input == "select":
		shown := make([]string, len(e.Options))
		for i, o := range e.Options {
			shown[i] = fmt.Sprintf("%q (%s)", o.Text, o.Value)
		}
		return fmt.Sprintf("select: once focused, the values pick %s; nothing was chosen", strings.Join(shown, ", "))
	}
	return fmt.Sprintf("%s: %s; nothing was committed", e.Input, e.Now)
}
