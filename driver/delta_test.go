package driver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// deltaTurns are two results as a server sends them with deltas on: a whole
// snapshot, then an action's delta of it that adds a button.
func deltaTurns(t *testing.T) (first, second toolapi.ToolResult, page *snapshot.Snapshot) {
	t.Helper()
	old := &snapshot.Snapshot{ID: "s1", Elements: []snapshot.Element{{Ref: "@e1", Role: "button", Name: "Show plans"}},
		Text: "[@e1 Show plans]\nPlan: Basic\nTwo screens at a time, in HD.\nNext bill on 1 December."}
	cur := &snapshot.Snapshot{ID: "s2", Elements: []snapshot.Element{{Ref: "@e1", Role: "button", Name: "Show plans"}, {Ref: "@e2", Role: "button", Name: "Save plan"}},
		Text: "[@e1 Show plans]\nPlan: Basic\nTwo screens at a time, in HD.\nNext bill on 1 December.\n[@e2 Save plan]"}
	d, ok := snapshot.Diff(old, cur)
	if !ok {
		t.Fatal("no delta")
	}
	oldJSON, _ := json.Marshal(old)
	r := toolapi.ActionResult{Success: true, Snapshot: cur, Delta: d}
	data, _ := json.Marshal(r)
	text, _ := toolapi.Text(r)
	return toolapi.ToolResult{Text: old.Render(), Structured: oldJSON}, toolapi.ToolResult{Text: text, Structured: data}, cur
}

// TestLatestSnapshotAppliesDeltas: a scripted model finds a ref a delta
// added, on the page pieced from the snapshot before it; a delta whose
// snapshot the conversation no longer shows gives no page at all.
func TestLatestSnapshotAppliesDeltas(t *testing.T) {
	t.Parallel()
	first, second, _ := deltaTurns(t)
	req := Request{Messages: []Message{
		{Role: RoleUser, Content: []Block{resultText(first)}},
		{Role: RoleAssistant, Content: []Block{ToolUse("1", toolapi.Click, json.RawMessage(`{"ref":"@e1"}`))}},
		{Role: RoleUser, Content: []Block{toolResultBlock("1", second)}},
	}}
	if ref, err := FindRef(req, "button", "Save plan"); err != nil || ref != "@e2" {
		t.Errorf("FindRef = %q, %v; want @e2 from the delta", ref, err)
	}
	if ref, err := FindRef(req, "button", "Show plans"); err != nil || ref != "@e1" {
		t.Errorf("FindRef = %q, %v; want @e1, unchanged since the whole snapshot", ref, err)
	}
	req.Messages = req.Messages[1:]
	if s, ok := LatestSnapshot(req); ok {
		t.Errorf("a delta with no snapshot before it gave a page: %+v", s)
	}
}

// TestHistoryWindowShowsTheDeltasBase: once the turns before a delta are
// summarised, the window shows the page the delta applies to, whole.
func TestHistoryWindowShowsTheDeltasBase(t *testing.T) {
	t.Parallel()
	first, second, _ := deltaTurns(t)
	base, _ := snapshotAfter(nil, first.JSON())
	h := history{intro: "CURRENT GOAL: x", initial: first, turns: []turn{
		{assistant: Message{Role: RoleAssistant, Content: []Block{Text("a")}}, user: Message{Role: RoleUser, Content: []Block{Text("b")}}, action: "x"},
		{assistant: Message{Role: RoleAssistant, Content: []Block{ToolUse("1", toolapi.Click, json.RawMessage(`{"ref":"@e1"}`))}},
			user: Message{Role: RoleUser, Content: []Block{toolResultBlock("1", second)}}, action: "click", before: base},
	}, dropped: 1}
	msgs := h.messages()
	var shown []string
	for _, b := range msgs[0].Content {
		shown = append(shown, b.Text)
	}
	if !strings.Contains(strings.Join(shown, "\n"), "The page before the turns below:\n"+base.Render()) {
		t.Errorf("the window does not show the delta's base:\n%s", strings.Join(shown, "\n"))
	}
	if ref, err := FindRef(Request{Messages: msgs}, "button", "Save plan"); err != nil || ref != "@e2" {
		t.Errorf("FindRef on the window = %q, %v", ref, err)
	}
}
