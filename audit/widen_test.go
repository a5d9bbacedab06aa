package audit

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// TestWidened: a person's widening of the write set is an event of its own,
// naming the site, the request it answered and the channel.
func TestWidened(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := New(&buf, "sess")
	r := checkpoint.Request{ID: "req-1", Action: `fill textbox "Email" with "a@b.c"`, URL: "http://localhost:1/form", Site: "http://localhost"}
	d := checkpoint.Decision{Approved: true, Channel: checkpoint.ChannelWeb, WidenSite: "http://localhost", RequestID: "req-1"}
	if err := l.Widened(r, d); err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(buf.Bytes(), &ev); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	for k, want := range map[string]string{"event": "write_set_widened", "site": "http://localhost", "id": "req-1", "channel": "web", "session": "sess", "url": "http://localhost:1/form"} {
		if ev[k] != want {
			t.Errorf("%s = %v, want %q (%s)", k, ev[k], want, buf.String())
		}
	}
	var none *Log
	if err := none.Widened(r, d); err != nil {
		t.Errorf("a nil log: %v", err)
	}
}
