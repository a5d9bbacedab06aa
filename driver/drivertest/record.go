package drivertest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver"
)

// ReadSessionLog returns the lines of the session log of the run record in
// dir, each decoded as a JSON object; it fails the test if the log cannot be
// read or a line is not JSON.
func ReadSessionLog(t testing.TB, dir string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, driver.SessionLogName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	// A line holds a whole turn, which can be long.
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read the session log: %v", err)
	}
	return out
}
