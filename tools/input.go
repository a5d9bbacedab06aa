package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// refPattern is the form of every ref: @e followed by a number. The input
// schemas declare the same pattern (refProperty).
var refPattern = regexp.MustCompile(`^@e\d+$`)

// decode reads a tool's JSON arguments into an In. Empty arguments are an
// empty object. The input types use pointer fields to tell a missing argument
// from a zero one, so that defaults apply only where none was given; their
// optional fields are omitempty, which is how the schema test tells them
// from the required ones.
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

// orDefault returns *p, or def when p is nil.
func orDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
