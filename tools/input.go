package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// refPattern is the form of every ref: @e followed by a number. The input
// schemas declare the same pattern (the schema tag ref, schema.go).
var refPattern = regexp.MustCompile(`^@e\d+$`)

// decode reads a tool's JSON arguments, defaults already filled in
// (fillDefaults), into an In. Empty arguments are an empty object. An input
// type's optional fields are omitempty, which makes them optional in its
// schema; a pointer field tells a missing argument from a zero one where no
// default says what a missing one means.
func decode[In any](args json.RawMessage) (In, error) {
	var in In
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		return in, nil
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return in, fmt.Errorf("arguments: %w", err)
	}
	return in, nil
}
