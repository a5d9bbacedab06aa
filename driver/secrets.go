package driver

import (
	"encoding/json"

	"github.com/chaperone-mcp/chaperone/internal/redact"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// maskedValue stands in the run record for a password the model typed.
const maskedValue = "********"

// passwordKind is the snapshot's kind of a password field.
const passwordKind = "password"

// redactor keeps the values the run record must never hold: the secrets the
// run was given (written as their {{NAME}} placeholder) and every password
// the model typed (written as maskedValue). What it has seen once it redacts
// from everything recorded after.
type redactor struct {
	*redact.Redactor
}

// newRedactor returns a redactor for the secrets, by placeholder name.
func newRedactor(secrets map[string]string) *redactor {
	return &redactor{redact.New(secrets)}
}

// notePassword learns the value of a browser_fill (or of a
// request_human_approval naming a value) whose target is a password field in
// snap, the newest snapshot the model saw, so that it is masked wherever the
// record would show it. A value for a target snap does not show is masked
// too: nothing says it is not a password.
func (r *redactor) notePassword(name string, input json.RawMessage, snap *snapshot.Snapshot) {
	if name != toolapi.Fill && name != toolapi.RequestApproval {
		return
	}
	var in struct {
		Ref   string `json:"ref"`
		Value string `json:"value"`
	}
	if json.Unmarshal(input, &in) != nil || in.Ref == "" || isPlaceholder(in.Value) {
		// A secret's {{NAME}} is hidden already, as itself.
		return
	}
	if e, ok := snap.Element(in.Ref); ok && e.Kind != passwordKind {
		return
	}
	r.Add(in.Value, maskedValue)
}

// turn redacts everything a turn record says.
func (r *redactor) turn(rec *TurnRecord) {
	rec.Said = r.String(rec.Said)
	rec.Target = r.String(rec.Target)
	rec.Input = r.JSON(rec.Input)
	rec.Message = r.String(rec.Message)
	rec.URL = r.String(rec.URL)
	rec.Error = r.String(rec.Error)
}
