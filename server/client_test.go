package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver/drivertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/chaperone-mcp/chaperone/tools"
)

// connectMock serves mb through a real Server and returns an in-process
// client of it as toolapi.Tools.
func connectMock(t *testing.T, mb *drivertest.MockBrowser) toolapi.Tools {
	t.Helper()
	srv, err := New(Config{NewSession: func(context.Context) (Session, error) {
		return &drivertest.Session{Browser: mb}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tl, closeClient, err := ConnectInProcess(context.Background(), srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeClient() })
	return tl
}

// The adapter turns tools/list into specs and tools/call into the text the
// model reads, the structured JSON the driver reads and the decoded
// screenshot, through the real server code.
func TestMCPToolsAdapter(t *testing.T) {
	t.Parallel()
	mb := &drivertest.MockBrowser{Page: drivertest.ValidPage("https://shop.test/", "Buy", "Cancel")}
	tl := connectMock(t, mb)
	ctx := context.Background()

	specs, err := tl.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		var schema map[string]any
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s input schema %s: %v", s.Name, s.InputSchema, err)
		}
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
	}
	slices.Sort(names)
	var want []string
	for _, d := range tools.Definitions() {
		want = append(want, d.Name)
	}
	slices.Sort(want)
	if len(want) < 8 || !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	res, err := tl.Call(ctx, toolapi.Click, json.RawMessage(`{"ref":"@e2"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.HasPrefix(res.Text, "success\npage ") || res.Image == nil || res.Image.MIMEType != "image/png" {
		t.Fatalf("result = %+v", res)
	}
	var structured toolapi.ActionResult
	if err := json.Unmarshal(res.Structured, &structured); err != nil || !structured.Success || structured.Snapshot == nil {
		t.Fatalf("structured content %s: %v", res.Structured, err)
	}
	if w, h, err := res.Image.Size(); err != nil || w != 160 || h != 90 {
		t.Fatalf("screenshot %dx%d: %v", w, h, err)
	}
	if got := mb.Calls(); len(got) != 1 || got[0].Name != toolapi.Click || !strings.Contains(string(got[0].Args), "@e2") {
		t.Fatalf("browser calls = %+v", got)
	}

	res, err = tl.Call(ctx, toolapi.Click, json.RawMessage(`[1]`))
	if err != nil || !res.IsError {
		t.Fatalf("non-object arguments: %+v, %v; want an error result", res, err)
	}
}
