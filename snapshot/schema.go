package snapshot

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaJSON is the canonical copy of the snapshot schema. It lives in this
// package, embedded, so that Validate works in any binary without files;
// fixtures/snapshot.schema.json is a byte-identical copy for readers outside
// Go, and a test keeps the two equal.
//
//go:embed schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (2020-12) of a snapshot's JSON.
func Schema() []byte { return append([]byte(nil), schemaJSON...) }

// Validate checks a snapshot's JSON against Schema.
func Validate(data []byte) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		return fmt.Errorf("snapshot schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("snapshot schema: %w", err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("snapshot JSON: %w", err)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("snapshot does not match the schema: %w", err)
	}
	return nil
}
