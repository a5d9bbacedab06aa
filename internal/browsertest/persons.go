package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
)

// PersonsBrowser is a Chromium started as the person's own browser would
// be for --connect auto: its profile is the default Chromium profile of a
// home directory of its own (Home/.config/chromium), and it allows remote
// debugging on a port it picks, so it writes DevToolsActivePort there as
// Chrome does. A command run with Env finds it as it would find a person's
// browser.
type PersonsBrowser struct {
	*Chromium
	// Home is the home directory whose default profile it uses.
	Home string
	// Profile is its user data directory, Home/.config/chromium.
	Profile string
}

// Env is the environment that makes a command look for the person's
// browser in Home: HOME and XDG_CONFIG_HOME.
func (p *PersonsBrowser) Env() []string {
	return []string{"HOME=" + p.Home, "XDG_CONFIG_HOME=" + filepath.Join(p.Home, ".config")}
}

// StartPersonsBrowser starts a headless Chromium as the person's own
// browser, with the person's tabs open at urls (one blank tab without
// any), and kills it when the test ends; until then it runs whatever the
// commands under test do.
func StartPersonsBrowser(t testing.TB, urls ...string) *PersonsBrowser {
	t.Helper()
	path, err := browser.FindBinary("")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir, as for StartChromium: stop removes it.
	home, err := os.MkdirTemp("", "chaperone-person-")
	if err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(home, ".config", "chromium")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		os.RemoveAll(home)
		t.Fatal(err)
	}
	c, err := startChromiumIn(path, profile, home, 0, urls...)
	return &PersonsBrowser{Chromium: stopAtEnd(t, c, err), Home: home, Profile: profile}
}
