// Package devtoolsport finds the person's own running Chrome, Chromium or
// Edge for --connect auto: the browser of the default user data directory
// of this machine's user, through the DevToolsActivePort file it writes
// there while remote debugging is allowed (started with
// --remote-debugging-port, or allowed from chrome://inspect/#remote-debugging
// in Chrome 144 and later). The file's first line is the port on loopback,
// its second the path of the browser's DevTools WebSocket.
//
// Where to look is pure (Places, Find: an OS name, an environment lookup and
// a file reader), so every OS's places are tested on any; whether the port
// still answers is Port.Check, since a browser that crashed leaves its file
// behind.
package devtoolsport

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
)

// FileName is the file a browser writes in its user data directory while
// remote debugging is on.
const FileName = "DevToolsActivePort"

// Place is where one browser keeps its default user data directory.
type Place struct {
	// Browser names the browser as a person knows it: "Google Chrome".
	Browser string
	// Dir is the user data directory.
	Dir string
	// sep is the path separator of the OS the place is of.
	sep string
}

// File is the DevToolsActivePort file of the place.
func (p Place) File() string { return p.Dir + p.sep + FileName }

// System is what finding looks at: the OS (as runtime.GOOS names it), its
// environment and its files.
type System struct {
	GOOS     string
	Getenv   func(string) string
	ReadFile func(string) ([]byte, error)
}

// browserDir is one browser's user data directory below an OS's base
// directory, its parts joined with the OS's separator.
type browserDir struct {
	browser string
	parts   []string
}

// Where each browser keeps its default user data directory, in the order
// they are tried: the stable Chrome most people use first, then its other
// channels, Chromium, and Edge. Sources: each browser's documentation of
// its user data directory ("User Data Directory" in Chromium's docs).
var (
	// linuxDirs are below $XDG_CONFIG_HOME (default ~/.config).
	linuxDirs = []browserDir{
		{"Google Chrome", []string{"google-chrome"}},
		{"Google Chrome Beta", []string{"google-chrome-beta"}},
		{"Google Chrome Dev", []string{"google-chrome-unstable"}},
		{"Google Chrome Canary", []string{"google-chrome-canary"}},
		{"Chromium", []string{"chromium"}},
		{"Microsoft Edge", []string{"microsoft-edge"}},
		{"Microsoft Edge Beta", []string{"microsoft-edge-beta"}},
		{"Microsoft Edge Dev", []string{"microsoft-edge-dev"}},
	}
	// linuxSandboxedDirs are below $HOME: the snap and Flatpak packages
	// keep their configuration in a directory of their own.
	linuxSandboxedDirs = []browserDir{
		{"Chromium (snap)", []string{"snap", "chromium", "common", "chromium"}},
		{"Google Chrome (Flatpak)", []string{".var", "app", "com.google.Chrome", "config", "google-chrome"}},
		{"Chromium (Flatpak)", []string{".var", "app", "org.chromium.Chromium", "config", "chromium"}},
	}
	// macDirs are below ~/Library/Application Support.
	macDirs = []browserDir{
		{"Google Chrome", []string{"Google", "Chrome"}},
		{"Google Chrome Beta", []string{"Google", "Chrome Beta"}},
		{"Google Chrome Dev", []string{"Google", "Chrome Dev"}},
		{"Google Chrome Canary", []string{"Google", "Chrome Canary"}},
		{"Chromium", []string{"Chromium"}},
		{"Microsoft Edge", []string{"Microsoft Edge"}},
		{"Microsoft Edge Beta", []string{"Microsoft Edge Beta"}},
		{"Microsoft Edge Dev", []string{"Microsoft Edge Dev"}},
	}
	// windowsDirs are below %LOCALAPPDATA%.
	windowsDirs = []browserDir{
		{"Google Chrome", []string{"Google", "Chrome", "User Data"}},
		{"Google Chrome Beta", []string{"Google", "Chrome Beta", "User Data"}},
		{"Google Chrome Dev", []string{"Google", "Chrome Dev", "User Data"}},
		{"Google Chrome Canary", []string{"Google", "Chrome SxS", "User Data"}},
		{"Chromium", []string{"Chromium", "User Data"}},
		{"Microsoft Edge", []string{"Microsoft", "Edge", "User Data"}},
		{"Microsoft Edge Beta", []string{"Microsoft", "Edge Beta", "User Data"}},
		{"Microsoft Edge Dev", []string{"Microsoft", "Edge Dev", "User Data"}},
	}
)

// Places lists where the browsers of the OS goos keep their default user
// data directories, in the order they are tried, as the environment getenv
// reads places them. A base directory the environment does not give (no
// HOME) is left out; an OS it does not know has none.
func Places(goos string, getenv func(string) string) []Place {
	var out []Place
	add := func(sep, base string, dirs []browserDir) {
		if base == "" {
			return
		}
		base = strings.TrimRight(base, sep)
		for _, d := range dirs {
			out = append(out, Place{Browser: d.browser, Dir: base + sep + strings.Join(d.parts, sep), sep: sep})
		}
	}
	home := getenv("HOME")
	switch goos {
	case "windows":
		base := getenv("LOCALAPPDATA")
		if base == "" && getenv("USERPROFILE") != "" {
			base = strings.TrimRight(getenv("USERPROFILE"), `\`) + `\AppData\Local`
		}
		add(`\`, base, windowsDirs)
	case "darwin":
		if home != "" {
			add("/", strings.TrimRight(home, "/")+"/Library/Application Support", macDirs)
		}
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly", "solaris", "illumos":
		// The XDG spec ignores a relative $XDG_CONFIG_HOME; so do browsers.
		config := getenv("XDG_CONFIG_HOME")
		if !strings.HasPrefix(config, "/") {
			config = ""
			if home != "" {
				config = strings.TrimRight(home, "/") + "/.config"
			}
		}
		add("/", config, linuxDirs)
		add("/", home, linuxSandboxedDirs)
	}
	return out
}

// Port is a DevToolsActivePort file that was found and read: the browser
// it names listens, or listened, there.
type Port struct {
	Place
	// Port is the loopback TCP port of its DevTools.
	Port int
	// Path is the path of its browser's WebSocket, /devtools/browser/<id>.
	Path string
}

// Endpoint is the browser's DevTools WebSocket address.
func (p Port) Endpoint() string {
	return "ws://127.0.0.1:" + strconv.Itoa(p.Port) + p.Path
}

// browserPath is the path Chrome writes: its browser target's id, a UUID.
// Anything else is refused rather than put into the address connected to.
var browserPath = regexp.MustCompile(`^/devtools/browser/[A-Za-z0-9-]{1,64}$`)

// Parse reads a DevToolsActivePort file: the port on its first line, the
// browser's WebSocket path on its second.
func Parse(data []byte) (port int, path string, err error) {
	if len(data) > 4096 {
		return 0, "", errors.New("not a DevToolsActivePort file: too long")
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) < 2 {
		return 0, "", errors.New("not a DevToolsActivePort file: want the port and the browser's path on two lines")
	}
	port, err = strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || port < 1 || port > 65535 {
		return 0, "", fmt.Errorf("not a DevToolsActivePort file: %q is no port", clip(lines[0]))
	}
	path = strings.TrimSpace(lines[1])
	if !browserPath.MatchString(path) {
		return 0, "", fmt.Errorf("not a DevToolsActivePort file: %q is no browser's DevTools path", clip(path))
	}
	for _, rest := range lines[2:] {
		if strings.TrimSpace(rest) != "" {
			return 0, "", errors.New("not a DevToolsActivePort file: more than two lines")
		}
	}
	return port, path, nil
}

// clip shortens what a file held for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Look is what Find saw at one place.
type Look struct {
	Place
	// Found is the file read, when Err is nil.
	Found Port
	// Err is why the place has no browser: ErrNoFile when it has no file
	// (the browser is not running, or does not allow remote debugging, or
	// is not installed), or why its file could not be read.
	Err error
}

// ErrNoFile means that a place has no DevToolsActivePort file.
var ErrNoFile = errors.New("no " + FileName)

// Find looks at every place of the system in order and reads the
// DevToolsActivePort file of each that has one. It does not check that the
// browsers still run: see Port.Check.
func Find(sys System) []Look {
	places := Places(sys.GOOS, sys.Getenv)
	looks := make([]Look, 0, len(places))
	for _, p := range places {
		l := Look{Place: p}
		data, err := sys.ReadFile(p.File())
		switch {
		case errors.Is(err, fs.ErrNotExist):
			l.Err = ErrNoFile
		case err != nil:
			l.Err = err
		default:
			port, path, perr := Parse(data)
			l.Err = perr
			l.Found = Port{Place: p, Port: port, Path: path}
		}
		looks = append(looks, l)
	}
	return looks
}
