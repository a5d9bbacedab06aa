package toolapi

import "github.com/chaperone-mcp/chaperone/snapshot"

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
