package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// refPattern is the form of every ref: @e followed by a number.
var refPattern = regexp.MustCompile(`^@e\d+$`)

// The tools' inputs, as the agent sends them. Pointer fields tell a missing
// argument from a zero one, so that defaults apply only where none was given.
type (
	snapshotInput struct {
		ViewportOnly *bool `json:"viewport_only"`
	}
	clickInput struct {
		Ref string `json:"ref"`
	}
	fillInput struct {
		Ref        string  `json:"ref"`
		Value      *string `json:"value"`
		ClearFirst *bool   `json:"clear_first"`
	}
	selectInput struct {
		Ref   string  `json:"ref"`
		Value *string `json:"value"`
	}
	scrollInput struct {
		Ref       string   `json:"ref"`
		Direction string   `json:"direction"`
		Amount    *float64 `json:"amount"`
	}
	approvalInput struct {
		Action string `json:"action"`
		Reason string `json:"reason"`
	}
	completeInput struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
)

// decode reads a tool's JSON arguments into v. Empty arguments are an empty
// object.
func decode(args json.RawMessage, v any) error {
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

// orDefault returns *p, or def when p is nil.
func orDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
