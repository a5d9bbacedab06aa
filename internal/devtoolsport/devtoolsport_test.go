package devtoolsport

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const chromeFile = "9222\n/devtools/browser/6a1f5c2e-0d7b-4f21-9a3e-1c2d3e4f5a6b"

// memFS is a file reader over a map, for the places of OSes other than the
// one the test runs on; it records what was read.
type memFS struct {
	files map[string]string
	read  []string
}

func (m *memFS) ReadFile(name string) ([]byte, error) {
	m.read = append(m.read, name)
	if s, ok := m.files[name]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// Each OS's browsers are found at the places their makers put the default
// user data directory, in order, as the environment says.
func TestPlacesOfEachOS(t *testing.T) {
	for _, tc := range []struct {
		name string
		goos string
		env  map[string]string
		// want are the first places and their browsers, in order.
		want []string
		// has are places that must be among the ones tried.
		has []string
	}{
		{"linux default", "linux", map[string]string{"HOME": "/home/p"},
			[]string{"Google Chrome=/home/p/.config/google-chrome", "Google Chrome Beta=/home/p/.config/google-chrome-beta", "Google Chrome Dev=/home/p/.config/google-chrome-unstable"},
			[]string{"Chromium=/home/p/.config/chromium", "Microsoft Edge=/home/p/.config/microsoft-edge", "Chromium (snap)=/home/p/snap/chromium/common/chromium"}},
		{"linux XDG_CONFIG_HOME", "linux", map[string]string{"HOME": "/home/p", "XDG_CONFIG_HOME": "/cfg/"},
			[]string{"Google Chrome=/cfg/google-chrome"},
			[]string{"Chromium=/cfg/chromium", "Microsoft Edge=/cfg/microsoft-edge"}},
		{"linux relative XDG_CONFIG_HOME is ignored", "linux", map[string]string{"HOME": "/home/p", "XDG_CONFIG_HOME": "cfg"},
			[]string{"Google Chrome=/home/p/.config/google-chrome"}, nil},
		{"macOS", "darwin", map[string]string{"HOME": "/Users/p"},
			[]string{"Google Chrome=/Users/p/Library/Application Support/Google/Chrome", "Google Chrome Beta=/Users/p/Library/Application Support/Google/Chrome Beta"},
			[]string{"Google Chrome Canary=/Users/p/Library/Application Support/Google/Chrome Canary", "Chromium=/Users/p/Library/Application Support/Chromium", "Microsoft Edge=/Users/p/Library/Application Support/Microsoft Edge"}},
		{"windows", "windows", map[string]string{"LOCALAPPDATA": `C:\Users\p\AppData\Local`, "HOME": "/ignored"},
			[]string{`Google Chrome=C:\Users\p\AppData\Local\Google\Chrome\User Data`, `Google Chrome Beta=C:\Users\p\AppData\Local\Google\Chrome Beta\User Data`},
			[]string{`Google Chrome Canary=C:\Users\p\AppData\Local\Google\Chrome SxS\User Data`, `Chromium=C:\Users\p\AppData\Local\Chromium\User Data`, `Microsoft Edge=C:\Users\p\AppData\Local\Microsoft\Edge\User Data`}},
		{"windows without LOCALAPPDATA", "windows", map[string]string{"USERPROFILE": `C:\Users\p\`},
			[]string{`Google Chrome=C:\Users\p\AppData\Local\Google\Chrome\User Data`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range Places(tc.goos, envOf(tc.env)) {
				got = append(got, p.Browser+"="+p.Dir)
			}
			if len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) {
				t.Fatalf("places start\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, h := range tc.has {
				if !slices.Contains(got, h) {
					t.Errorf("places lack %s:\n%s", h, strings.Join(got, "\n"))
				}
			}
			// Chrome before Chromium before Edge, whatever the OS.
			at := func(b string) int {
				return slices.IndexFunc(got, func(s string) bool { return strings.HasPrefix(s, b+"=") })
			}
			if !(at("Google Chrome") < at("Chromium") && at("Chromium") < at("Microsoft Edge")) {
				t.Errorf("order: %v", got)
			}
		})
	}
}

// Without the directory a base comes from, nothing is made up.
func TestPlacesWithoutHome(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows", "plan9"} {
		if p := Places(goos, envOf(nil)); len(p) != 0 {
			t.Errorf("%s without HOME: %v", goos, p)
		}
	}
}

// The file is found at each OS's place, with the OS's separator, and the
// first browser in order that has one is the first found.
func TestFindOnEachOS(t *testing.T) {
	for _, tc := range []struct {
		goos  string
		env   map[string]string
		files map[string]string
		want  string // browser=endpoint of the first file found
	}{
		{"linux", map[string]string{"HOME": "/home/p"},
			map[string]string{"/home/p/.config/chromium/DevToolsActivePort": chromeFile},
			"Chromium=ws://127.0.0.1:9222/devtools/browser/6a1f5c2e-0d7b-4f21-9a3e-1c2d3e4f5a6b"},
		{"linux", map[string]string{"HOME": "/home/p"},
			map[string]string{
				"/home/p/.config/microsoft-edge/DevToolsActivePort": "1\n/devtools/browser/e",
				"/home/p/.config/google-chrome/DevToolsActivePort":  "2\n/devtools/browser/c\n",
			}, "Google Chrome=ws://127.0.0.1:2/devtools/browser/c"},
		{"darwin", map[string]string{"HOME": "/Users/p"},
			map[string]string{"/Users/p/Library/Application Support/Microsoft Edge/DevToolsActivePort": "9333\r\n/devtools/browser/abc\r\n"},
			"Microsoft Edge=ws://127.0.0.1:9333/devtools/browser/abc"},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\p\AppData\Local`},
			map[string]string{`C:\Users\p\AppData\Local\Google\Chrome Beta\User Data\DevToolsActivePort`: chromeFile},
			"Google Chrome Beta=ws://127.0.0.1:9222/devtools/browser/6a1f5c2e-0d7b-4f21-9a3e-1c2d3e4f5a6b"},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			m := &memFS{files: tc.files}
			looks := Find(System{GOOS: tc.goos, Getenv: envOf(tc.env), ReadFile: m.ReadFile})
			got := ""
			for _, l := range looks {
				if l.Err == nil {
					got = l.Browser + "=" + l.Found.Endpoint()
					break
				}
				if !errors.Is(l.Err, ErrNoFile) {
					t.Errorf("%s: %v", l.Dir, l.Err)
				}
			}
			if got != tc.want {
				t.Errorf("found %q, want %q (read %v)", got, tc.want, m.read)
			}
		})
	}
}

// On this machine's file system: a file placed in a temporary home, as
// Chrome would write it, is read back through os.ReadFile.
func TestFindInTempHome(t *testing.T) {
	for _, tc := range []struct {
		goos, rel string
		env       func(home string) map[string]string
	}{
		{"linux", ".config/google-chrome-beta", func(h string) map[string]string { return map[string]string{"HOME": h} }},
		{"linux", "xdg/chromium", func(h string) map[string]string {
			return map[string]string{"HOME": "/nonexistent", "XDG_CONFIG_HOME": filepath.Join(h, "xdg")}
		}},
		{"linux", "snap/chromium/common/chromium", func(h string) map[string]string { return map[string]string{"HOME": h} }},
		{"darwin", "Library/Application Support/Google/Chrome Canary", func(h string) map[string]string { return map[string]string{"HOME": h} }},
	} {
		t.Run(tc.goos+"/"+tc.rel, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, tc.rel)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(chromeFile), 0o600); err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, l := range Find(System{GOOS: tc.goos, Getenv: envOf(tc.env(home)), ReadFile: os.ReadFile}) {
				if l.Err == nil {
					found = append(found, l.Dir)
				}
			}
			if len(found) != 1 || found[0] != dir {
				t.Errorf("found %v, want [%s]", found, dir)
			}
		})
	}
}

// Only a file as Chrome writes it is read; anything else is refused with a
// reason, never put into the address connected to.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in       string
		port     int
		path, ok string
	}{
		{in: "9222\n/devtools/browser/abc-123", port: 9222, path: "/devtools/browser/abc-123"},
		{in: "9222\n/devtools/browser/abc-123\n", port: 9222, path: "/devtools/browser/abc-123"},
		{in: " 41235 \r\n/devtools/browser/X\r\n", port: 41235, path: "/devtools/browser/X"},
		{in: ""},
		{in: "9222"},
		{in: "9222\n"},
		{in: "0\n/devtools/browser/a"},
		{in: "65536\n/devtools/browser/a"},
		{in: "-1\n/devtools/browser/a"},
		{in: "92a\n/devtools/browser/a"},
		{in: "9222\n/devtools/page/a"},
		{in: "9222\n/devtools/browser/"},
		{in: "9222\n/devtools/browser/a?x=1"},
		{in: "9222\n/devtools/browser/../../json/new"},
		{in: "9222\n/devtools/browser/a@evil.example"},
		{in: "9222\n//evil.example/devtools/browser/a"},
		{in: "9222\n/devtools/browser/a\nextra"},
		{in: "9222\n/devtools/browser/" + strings.Repeat("a", 5000)},
	} {
		port, path, err := Parse([]byte(tc.in))
		if tc.port == 0 {
			if err == nil {
				t.Errorf("Parse(%q) = %d %q, want an error", tc.in, port, path)
			}
			continue
		}
		if err != nil || port != tc.port || path != tc.path {
			t.Errorf("Parse(%q) = %d %q %v, want %d %q", tc.in, port, path, err, tc.port, tc.path)
		}
	}
}

// A file that cannot be read is said to be so, and the next place is
// tried.
func TestFindReportsUnreadableFiles(t *testing.T) {
	m := &memFS{files: map[string]string{
		"/home/p/.config/google-chrome/DevToolsActivePort": "garbage",
		"/home/p/.config/chromium/DevToolsActivePort":      chromeFile,
	}}
	looks := Find(System{GOOS: "linux", Getenv: envOf(map[string]string{"HOME": "/home/p"}), ReadFile: m.ReadFile})
	if looks[0].Err == nil || errors.Is(looks[0].Err, ErrNoFile) {
		t.Errorf("a garbage file: %v", looks[0].Err)
	}
	i := slices.IndexFunc(looks, func(l Look) bool { return l.Browser == "Chromium" })
	if looks[i].Err != nil || looks[i].Found.Port != 9222 {
		t.Errorf("Chromium: %+v", looks[i])
	}
}
