package toolapi

import "strings"

// Text renders a snapshot, or an action result and its snapshot, as the model
// reads it: "success" or "error: <code>", the message, then the snapshot's
// lines. It reports false for anything else (an approval, a completion),
// whose JSON is short already.
func Text(v any) (string, bool) {
	switch r := v.(type) {
	case ActionResult:
		return actionText(&r), true
	case *ActionResult:
		return actionText(r), r != nil
	case interface{ Render() string }: // a snapshot
		text := r.Render()
		return text, text != ""
	}
	return "", false
}

func actionText(r *ActionResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	switch {
	case r.Error != nil:
		b.WriteString("error: " + string(*r.Error) + "\n")
	case r.Success:
		b.WriteString("success\n")
	default:
		b.WriteString("failed\n")
	}
	if r.Message != "" {
		b.WriteString(r.Message + "\n")
	}
	if r.Delta != nil && r.Snapshot != nil {
		b.WriteString(r.Delta.Render(r.Snapshot))
	} else {
		b.WriteString(r.Snapshot.Render())
	}
	return b.String()
}
