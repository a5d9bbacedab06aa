package toolapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestText(t *testing.T) {
	obscured := toolapi.ElementObscured
	snap := &snapshot.Snapshot{Page: snapshot.Page{URL: "http://127.0.0.1/a", Title: "A"}}
	for _, tc := range []struct {
		name  string
		v     any
		first string // the first line, "" when Text reports false
	}{
		{"success", toolapi.ActionResult{Success: true, Snapshot: snap}, "success"},
		{"pointer", &toolapi.ActionResult{Success: true, Snapshot: snap}, "success"},
		{"error", toolapi.ActionResult{Error: &obscured, Message: "a banner covers it", Snapshot: snap}, "error: element_obscured"},
		{"failed without a code", toolapi.ActionResult{Snapshot: snap}, "failed"},
		{"approval", toolapi.ApprovalResult{Approved: true, Message: "yes"}, ""},
		{"nil pointer", (*toolapi.ActionResult)(nil), ""},
	} {
		text, ok := toolapi.Text(tc.v)
		if ok != (tc.first != "") {
			t.Errorf("%s: ok = %v, text %q", tc.name, ok, text)
			continue
		}
		if first, _, _ := strings.Cut(text, "\n"); ok && first != tc.first {
			t.Errorf("%s: first line %q, want %q", tc.name, first, tc.first)
		}
		if ok && !strings.Contains(text, "http://127.0.0.1/a") {
			t.Errorf("%s: the snapshot's lines are missing:\n%s", tc.name, text)
		}
	}
	withMessage, _ := toolapi.Text(toolapi.ActionResult{Error: &obscured, Message: "a banner covers it", Snapshot: snap})
	if !strings.Contains(withMessage, "\na banner covers it\n") {
		t.Errorf("the message is not its own line:\n%s", withMessage)
	}
}

func TestToolResultJSON(t *testing.T) {
	if got := string(toolapi.ToolResult{Text: "text", Structured: []byte(`{"a":1}`)}.JSON()); got != `{"a":1}` {
		t.Errorf("with structured content: %s", got)
	}
	if got := string(toolapi.ToolResult{Text: `{"b":2}`}.JSON()); got != `{"b":2}` {
		t.Errorf("without: %s", got)
	}
}

// A model reads a failed action as its code, the message, then the
// snapshot's lines.
func ExampleText() {
	code := toolapi.RefInvalid
	text, _ := toolapi.Text(toolapi.ActionResult{Error: &code, Message: "@e9 is not in the newest snapshot.",
		Snapshot: &snapshot.Snapshot{}})
	first, rest, _ := strings.Cut(text, "\n")
	second, _, _ := strings.Cut(rest, "\n")
	fmt.Println(first)
	fmt.Println(second)
	// Output:
	// error: ref_invalid
	// @e9 is not in the newest snapshot.
}
