package checkpoint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseProfile parses arbitrary profile JSON: it is accepted or refused
// with an error, never a panic, and an accepted profile written back as JSON
// is accepted again.
func FuzzParseProfile(f *testing.F) {
	paths, _ := filepath.Glob("profiles/*.json")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"name":"x","checkpoints":[{"name":"pay","when":{"url_matches":"("}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data)
		if err != nil {
			if p != nil {
				t.Fatalf("ParseProfile returned a profile and %v", err)
			}
			return
		}
		if p == nil {
			t.Fatal("ParseProfile returned neither a profile nor an error")
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("an accepted profile does not encode: %v", err)
		}
		if _, err := ParseProfile(again); err != nil {
			t.Errorf("profile %s accepted, but not as written back, %s: %v", data, again, err)
		}
	})
}
