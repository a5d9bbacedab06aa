package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

func TestFillDefaults(t *testing.T) {
	t.Parallel()
	defaults := map[string]json.RawMessage{"amount": json.RawMessage(`300`)}
	tests := []struct {
		name, args, want string
		wantErr          bool
	}{
		{"absent", ``, `{"amount":300}`, false},
		{"null", ` null `, `{"amount":300}`, false},
		{"empty", `{}`, `{"amount":300}`, false},
		{"missing", `{"direction":"down"}`, `{"amount":300,"direction":"down"}`, false},
		{"given null", `{"amount":null,"direction":"down"}`, `{"amount":300,"direction":"down"}`, false},
		{"given", `{"amount":5}`, `{"amount":5}`, false},
		{"given zero", `{"amount":0}`, `{"amount":0}`, false},
		{"an array", `[1,2]`, `[1,2]`, true},
		{"a string", `"down"`, `"down"`, true},
		{"no JSON", `{"amount":`, `{"amount":`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fillDefaults(json.RawMessage(tc.args), defaults)
			if (err != nil) != tc.wantErr || string(got) != tc.want {
				t.Errorf("fillDefaults(%s) = %s, %v; want %s, error %v", tc.args, got, err, tc.want, tc.wantErr)
			}
		})
	}
	if got, err := fillDefaults(nil, nil); err != nil || string(got) != `{}` {
		t.Errorf("no arguments and no defaults = %s, %v; want {}", got, err)
	}
}

// TestCallFillsInDefaults: Session.Call fills in the input schema's defaults
// whoever calls, in process (Direct) as over MCP: a scroll without an amount,
// or with a null one, goes 300 pixels, and the audit log records the
// arguments the tool ran with.
func TestCallFillsInDefaults(t *testing.T) {
	t.Parallel()
	h := open(t, "/variants/long")
	var log bytes.Buffer
	WithAudit(audit.New(&log, "test"))(h.s)
	direct := Direct(h.s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, args := range []string{`{"direction":"down"}`, `{"direction":"down","amount":null}`} {
		res, err := direct.Call(ctx, toolapi.Scroll, json.RawMessage(args))
		if err != nil || res.IsError {
			t.Fatalf("scroll %s: %v %+v", args, err, res)
		}
		var y float64
		h.eval(`window.scrollY`, &y)
		if want := float64(300 * (i + 1)); y != want {
			t.Errorf("after scroll %s the page is at %v, want %v", args, y, want)
		}
	}
	if _, err := direct.Call(ctx, toolapi.GetSnapshot, nil); err != nil {
		t.Fatal(err)
	}
	for want, n := range map[string]int{`"args":{"amount":300,"direction":"down"}`: 2, `"args":{"viewport_only":true}`: 1} {
		if got := strings.Count(log.String(), want); got != n {
			t.Errorf("the audit log has %s %d times, want %d:\n%s", want, got, n, log.String())
		}
	}
}

// TestHandWrittenSchemaIsRefused: a definition that brings its own input
// schema fails DefinitionsFor, rather than being replaced unseen by the one
// its type says.
func TestHandWrittenSchemaIsRefused(t *testing.T) {
	t.Parallel()
	tl := newTool(Definition{Name: "x", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(*Session, context.Context, *call, struct{}) Output { return Output{} },
		func(*Session, context.Context, *call, error) Output { return Output{} })
	if tl.err == nil || !strings.Contains(tl.err.Error(), "derived") {
		t.Errorf("a hand-written input schema gave error %v, want one saying the schema is derived", tl.err)
	}
}
