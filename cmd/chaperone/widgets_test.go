package main

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
)

// widgetStep is one thing a person does on a widget page: a tool on the
// element found by role and name (the nth nameless one when name is "" and
// nth > 0; to for a drag's target), and the text the page shows after it.
type widgetStep struct {
	tool       string
	role, name string
	nth        int
	toRole, to string
	want       string
}

// TestWidgets: on pages modelled on what widget libraries render, over
// stdio, each control a person uses has a ref in the agent's snapshot, under
// an honest name, and a click, hover or drag by that ref does what a
// person's would: the page records it, and the next snapshot's text says so.
func TestWidgets(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	tests := []struct {
		page  string
		steps []widgetStep
	}{
		{"/widgets/timeline", []widgetStep{
			{tool: toolapi.Click, role: "button", name: "reply icon", want: "reply @ada"},
			{tool: toolapi.Click, role: "button", name: "retweet icon", want: "retweet @ada"},
			{tool: toolapi.Click, role: "button", name: "more icon", want: "Mute @ada"},
			{tool: toolapi.Click, role: "button", name: "Mute @ada", want: "Mute @ada"},
		}},
		{"/widgets/inbox", []widgetStep{
			{tool: toolapi.Click, role: "button", name: "star icon", want: "Starred Lunch on Thursday?"},
			{tool: toolapi.Click, role: "button", name: "send icon", want: "Sent: Sounds good"},
			{tool: toolapi.Click, role: "button", name: "Attach a file", want: "Attaching"},
		}},
		{"/widgets/dropdowns", []widgetStep{
			{tool: toolapi.Click, role: "option", name: "Banana", want: "Fruit: Banana"},
			{tool: toolapi.Click, role: "menuitem", name: "Duplicate", want: "File: Duplicate"},
			{tool: toolapi.Click, role: "button", name: "Sort by", want: "Oldest"},
			{tool: toolapi.Click, role: "link", name: "Oldest", want: "Sorted by Oldest"},
			{tool: toolapi.Click, role: "button", name: "Small", want: "Large"},
			{tool: toolapi.Click, role: "option", name: "Large", nth: 2, want: "Size: Large"},
		}},
		{"/widgets/chart", []widgetStep{
			{tool: toolapi.Click, role: "button", name: "Food 35%", want: "Picked Food 35%"},
			{tool: toolapi.Click, role: "button", name: "March: 21", want: "Picked March: 21"},
			{tool: toolapi.Click, role: "button", name: "add icon", want: "Adding a slice"},
			{tool: toolapi.Click, role: "button", nth: 1, want: "X in cell 1"},
		}},
		{"/widgets/menubar", []widgetStep{
			{tool: toolapi.Hover, role: "menuitem", name: "File", want: "Save"},
			{tool: toolapi.Click, role: "button", name: "Save", want: "Ran Save"},
		}},
		{"/widgets/sortable", []widgetStep{
			{tool: toolapi.Drag, role: "listitem", name: "Wash the car", toRole: "listitem", to: "Call the bank", want: "Order: Buy groceries, Call the bank, Wash the car"},
		}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.page, "/widgets/"), func(t *testing.T) {
			c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+tt.page, "--profile", "none", "--caps", "hover,drag")
			s := getSnapshot(t, c)
			for _, st := range tt.steps {
				s = widgetAct(t, c, s, st)
			}
		})
	}
}

// widgetAct takes one step on snapshot s and returns the result's snapshot.
func widgetAct(t *testing.T, c *client.Client, s *snapshot.Snapshot, st widgetStep) *snapshot.Snapshot {
	t.Helper()
	ref := widgetRef(t, s, st.role, st.name, st.nth)
	args := map[string]any{"ref": ref}
	if st.tool == toolapi.Drag {
		args = map[string]any{"from_ref": ref, "to_ref": widgetRef(t, s, st.toRole, st.to, 0)}
	}
	r, after := act(t, c, st.tool, args)
	if !r.Success {
		t.Fatalf("%s %s %q (%s): error %v, %s\n%s", st.tool, st.role, st.name, ref, *r.Error, r.Message, s.Render())
	}
	if !strings.Contains(after.Text, st.want) {
		t.Fatalf("after %s %s %q the page text lacks %q:\n%s", st.tool, st.role, st.name, st.want, after.Render())
	}
	return after
}

// widgetRef finds the element with role and name in s; with nth > 0, the
// nth whose name is exactly name (a nameless cell, the second "Large").
func widgetRef(t *testing.T, s *snapshot.Snapshot, role, name string, nth int) string {
	t.Helper()
	if nth == 0 {
		return browsertest.Ref(t, s, role, name)
	}
	seen := 0
	for _, e := range s.Elements {
		if e.Role == role && e.Name == name {
			if seen++; seen == nth {
				return e.Ref
			}
		}
	}
	t.Fatalf("no %s %q number %d in\n%s", role, name, nth, s.Render())
	return ""
}

// TestSnapshotPositions: get_snapshot with positions gives the page text's
// runs with their boxes, in the JSON and in the text a model reads; without
// it, neither carries them.
func TestSnapshotPositions(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/widgets/chart", "--profile", "none")
	if s := getSnapshot(t, c); len(s.Positions) != 0 {
		t.Fatalf("positions without asking: %v", s.Positions)
	}
	res, data := call(t, c, toolapi.GetSnapshot, map[string]any{"positions": true})
	validateSnapshot(t, []byte(data))
	var s snapshot.Snapshot
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		t.Fatal(err)
	}
	var run *snapshot.TextRun
	for i := range s.Positions {
		if s.Positions[i].Text == "Nothing picked yet" {
			run = &s.Positions[i]
		}
	}
	if run == nil || run.BBox.Width <= 0 || run.BBox.Height <= 0 {
		t.Fatalf("no run \"Nothing picked yet\" with a box in %+v", s.Positions)
	}
	if text := textOf(t, res); !strings.Contains(text, "positions:\n") || !strings.Contains(text, "\"Nothing picked yet\" ") {
		t.Errorf("the text a model reads lacks the positions:\n%s", text)
	}
}
