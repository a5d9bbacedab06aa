package toolapi

import (
	"encoding/json"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// Code is the machine-readable reason an action failed (docs/architecture.md, "Contracts").
type Code string

// The error codes an action result can carry.
const (
	RefInvalid        Code = "ref_invalid"
	ElementDisabled   Code = "element_disabled"
	ElementObscured   Code = "element_obscured"
	ElementNotVisible Code = "element_not_visible"
	ActionFailed      Code = "action_failed"
	Timeout           Code = "timeout"
	HumanRejected     Code = "human_rejected"
	InvalidParams     Code = "invalid_params"
)

// ActionResult is what every tool that touches the page returns. Snapshot is
// always present, also on error; Error is nil on success.
type ActionResult struct {
	Success  bool               `json:"success"`
	Snapshot *snapshot.Snapshot `json:"snapshot"`
	Error    *Code              `json:"error"`
	Message  string             `json:"message,omitempty"`
	// Delta, when set, is what the agent is sent in the snapshot's place:
	// what changed since the last snapshot it was sent, of the same
	// document (--snapshot-delta). The JSON's "snapshot" is then the
	// delta, marked by its "delta_of", and the text is the delta's; Snapshot
	// stays the whole snapshot, for the server's own use.
	Delta *snapshot.Delta `json:"-"`
}

// actionJSON is ActionResult without its methods.
type actionJSON ActionResult

// MarshalJSON writes the result, with the delta as its snapshot when it
// carries one.
func (r ActionResult) MarshalJSON() ([]byte, error) {
	if r.Delta == nil {
		return json.Marshal(actionJSON(r))
	}
	return json.Marshal(struct {
		actionJSON
		Snapshot *snapshot.Delta `json:"snapshot"`
	}{actionJSON(r), r.Delta})
}

// UnmarshalJSON reads a result, its snapshot into Delta when it is a delta.
func (r *ActionResult) UnmarshalJSON(data []byte) error {
	var v struct {
		actionJSON
		Snapshot json.RawMessage `json:"snapshot"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = ActionResult(v.actionJSON)
	if d, ok := DeltaOf(v.Snapshot); ok {
		r.Delta = d
		return nil
	}
	if len(v.Snapshot) == 0 || string(v.Snapshot) == "null" {
		return nil
	}
	return json.Unmarshal(v.Snapshot, &r.Snapshot)
}

// DeltaOf reads a result's "snapshot" JSON as a delta; false when it is a
// whole snapshot (or not one at all).
func DeltaOf(data json.RawMessage) (*snapshot.Delta, bool) {
	var probe struct {
		Of *string `json:"delta_of"`
	}
	if json.Unmarshal(data, &probe) != nil || probe.Of == nil {
		return nil, false
	}
	var d snapshot.Delta
	if json.Unmarshal(data, &d) != nil {
		return nil, false
	}
	return &d, true
}

// ApprovalResult is the answer to request_human_approval.
type ApprovalResult struct {
	Approved bool   `json:"approved"`
	Message  string `json:"message"`
}

// CompletionResult is the answer to complete_task.
type CompletionResult struct {
	Acknowledged bool   `json:"acknowledged"`
	Message      string `json:"message"`
}
