package tools

import (
	"encoding/json"
	"time"

	"github.com/chaperone-mcp/chaperone/audit"
	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

// call is one tool call while it runs: what was asked, and what the tool
// learns on the way that its audit record or its result needs. Session.Call
// makes one for each call and passes it to the tool, and the tool to the
// helpers that fill it in; nothing in it outlives the call, so no call can
// see another's.
type call struct {
	// tool is the tool's name; args its arguments, defaults applied.
	tool string
	args json.RawMessage
	// start is when the call began.
	start time.Time
	// approval names the approval that covered the call's gated action;
	// "" when none did.
	approval string
	// masked says the arguments carry a password's characters, which the
	// audit log must not see: a fill of a password field, or a key pressed
	// into one.
	masked bool
	// settled is a capture the call's action took while the page settled,
	// for the snapshot that follows it; nil when that snapshot must be
	// taken anew.
	settled *capture.Page
	// positions asks this call's snapshots for the page text's runs with
	// their boxes (get_snapshot's positions).
	positions bool
	// sent says the call's input started to reach the page.
	sent bool
	// submits says the gate judged the call's action to submit a form,
	// to submitsTo (checkpoint.Action); formCheck holds the form to it.
	submits   bool
	submitsTo string
}

// record is the audit record of c, which answered code ("ok" for success)
// with last the session's newest snapshot. redact hides the session's
// secrets in the arguments.
func (c *call) record(code string, took time.Duration, last *snapshot.Snapshot, redact func(string) string) audit.ToolCall {
	r := audit.ToolCall{Tool: c.tool, Args: json.RawMessage(redact(string(c.args))), Start: c.start, Duration: took}
	if c.masked {
		r.Args = maskPassword(r.Args)
	}
	if code != "ok" {
		r.Code = code
	} else {
		r.ApprovalID = c.approval
	}
	if last != nil {
		r.SnapshotID = last.ID
		if last.Screenshot != nil {
			r.Screenshot = last.Screenshot.Data
		}
	}
	return r
}
