package driver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chaperone-mcp/chaperone/driver"
)

// A script says where a replay starts and under which profile, portably;
// scripts of format 1 still read; and what a replay would act on without
// being told is held to a safe shape: no profile "none", no start but a
// demo: page or an http(s) URL.
func TestScriptOrigin(t *testing.T) {
	t.Parallel()
	step := `{"tool":"browser_click","target":{"role":"button","name":"Go"},"before":{"url":"http://127.0.0.1:4000/account","title":"A"}}`
	tests := []struct {
		name, script string
		ok           bool
		want         driver.ScriptOrigin
	}{
		{"format 1", `{"format":1,"version":1,"goal":"g","start_url":"http://127.0.0.1:4000/account","steps":[` + step + `]}`, true, driver.ScriptOrigin{}},
		{"format 2 on the demo site", `{"format":2,"version":1,"goal":"g","start_url":"http://127.0.0.1:4000/account","start":"demo:/account","profile":"demo","steps":[` + step + `]}`, true, driver.ScriptOrigin{Start: "demo:/account", Profile: "demo"}},
		{"format 2 elsewhere", `{"format":2,"version":1,"goal":"g","start":"https://shop.example/cart","profile":"/etc/chaperone/shop.json","steps":[]}`, true, driver.ScriptOrigin{Start: "https://shop.example/cart", Profile: "/etc/chaperone/shop.json"}},
		{"format 3", `{"format":3,"version":1,"goal":"g","steps":[]}`, false, driver.ScriptOrigin{}},
		{"profile none", `{"format":2,"version":1,"goal":"g","profile":"none","steps":[]}`, false, driver.ScriptOrigin{}},
		{"empty profile", `{"format":2,"version":1,"goal":"g","profile":"","steps":[]}`, false, driver.ScriptOrigin{}},
		{"javascript start", `{"format":2,"version":1,"goal":"g","start":"javascript:alert(1)","steps":[]}`, false, driver.ScriptOrigin{}},
		{"file start", `{"format":2,"version":1,"goal":"g","start":"file:///etc/passwd","steps":[]}`, false, driver.ScriptOrigin{}},
		{"data start", `{"format":2,"version":1,"goal":"g","start":"data:text/html,hi","steps":[]}`, false, driver.ScriptOrigin{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "script.json")
			if err := os.WriteFile(path, []byte(tt.script), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := driver.ReadScript(path)
			if (err == nil) != tt.ok {
				t.Fatalf("ReadScript: %v, want ok=%v", err, tt.ok)
			}
			if err == nil && s.ScriptOrigin != tt.want {
				t.Errorf("origin = %+v, want %+v", s.ScriptOrigin, tt.want)
			}
		})
	}
}
