package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestMaskPassword: a password fill's value never reaches the audit log,
// whatever shape its arguments take.
func TestMaskPassword(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ args, want string }{
		{`{"ref":"@e3","value":"hunter2"}`, `{"ref":"@e3","value":"********"}`},
		{`{"ref":"@e3","value":"hunter2","clear_first":false}`, `{"clear_first":false,"ref":"@e3","value":"********"}`},
		{`{"ref":1,"value":"hunter2"}`, `{"ref":1,"value":"********"}`},
		{`{"ref":"@e3"}`, `{"ref":"@e3"}`},
		{`{"key":"hunter2","ref":"@e3"}`, `{"key":"********","ref":"@e3"}`},
		{`"hunter2"`, `"********"`},
		{`hunter2`, `"********"`},
		{``, `{}`},
	} {
		var buf bytes.Buffer
		if err := audit.New(&buf, "s").ToolCall(audit.ToolCall{Tool: toolapi.Fill, Args: maskPassword(json.RawMessage(c.args))}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "hunter2") {
			t.Errorf("%s: password value in the audit log: %s", c.args, buf.String())
		}
		var line map[string]json.RawMessage
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if string(line["args"]) != c.want {
			t.Errorf("%s: logged as %s, want %s", c.args, line["args"], c.want)
		}
	}
}
