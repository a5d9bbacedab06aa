package browsertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
)

// Chromium is a browser started as another program would start it, with a
// debugging port, for tests that connect to a browser rather than launch
// one (--cdp-endpoint, --browser-pool).
type Chromium struct {
	// Cmd is the browser process, the leader of its own process group.
	Cmd *exec.Cmd
	// WebSocket is its browser's DevTools address, ws://127.0.0.1:PORT/….
	WebSocket string
	// HTTP is http://127.0.0.1:PORT, the address that finds WebSocket.
	HTTP string
	// dir is its profile or the directory that holds it, removed by stop.
	dir string
}

// Kill ends the browser and its helper processes at once, as a crash or a
// lost machine would.
func (c *Chromium) Kill() {
	syscall.Kill(-c.Cmd.Process.Pid, syscall.SIGKILL)
	c.Cmd.Wait()
}

// FreePort returns a loopback TCP port that was free a moment ago, for a
// browser that must come back on the same address.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// StartChromium starts a headless Chromium listening for DevTools on port
// (0 picks one), killed when the test ends.
func StartChromium(t testing.TB, port int) *Chromium {
	t.Helper()
	c, err := startChromium(port)
	return stopAtEnd(t, c, err)
}

// stopAtEnd is a browser just started (c, err): it fails the test on err,
// and stops c when the test ends.
func stopAtEnd(t testing.TB, c *Chromium, err error) *Chromium {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.stop(); err != nil {
			t.Log(err)
		}
	})
	return c
}

// startChromium starts a headless Chromium listening for DevTools on port
// (0 picks one), with the extra flags, and waits until its endpoint is up.
// Its stop ends it.
func startChromium(port int, extra ...string) (*Chromium, error) {
	path, err := browser.FindBinary("")
	if err != nil {
		return nil, err
	}
	// Not t.TempDir: Chromium's helper processes may still write into the
	// profile for a moment after the browser is killed, and TempDir's
	// cleanup fails the test on that.
	dir, err := os.MkdirTemp("", "chaperone-connect-")
	if err != nil {
		return nil, err
	}
	return startChromiumIn(path, dir, dir, port, extra...)
}

// startChromiumIn starts the Chromium at path with the profile profile,
// listening for DevTools on port (0 picks one), with the extra arguments
// (flags, then the URLs of its first tabs), and waits until its endpoint is
// up. Its stop ends it and removes remove, the directory that holds the
// profile.
func startChromiumIn(path, profile, remove string, port int, extra ...string) (*Chromium, error) {
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		fmt.Sprintf("--remote-debugging-port=%d", port), "--user-data-dir=" + profile}, extra...)
	if !slices.ContainsFunc(extra, func(a string) bool { return !strings.HasPrefix(a, "-") }) {
		args = append(args, "about:blank")
	}
	cmd := exec.Command(path, args...)
	// Its own process group, so that Kill ends its helpers too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(remove)
		return nil, fmt.Errorf("browsertest: starting chromium: %w", err)
	}
	c := &Chromium{Cmd: cmd, dir: remove}
	deadline := time.Now().Add(launchTimeout)
	for !c.ready(profile, port) {
		if time.Now().After(deadline) {
			c.stop()
			return nil, errors.New("browsertest: chromium's DevTools endpoint did not come up")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return c, nil
}

// stop kills the browser and removes its profile.
func (c *Chromium) stop() error {
	c.Kill()
	for i := 0; i < 50; i++ {
		if os.RemoveAll(c.dir) == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("browsertest: could not remove the profile %s", c.dir)
}

// ready reports whether the browser's DevTools endpoint is up, and sets its
// addresses. Chromium writes DevToolsActivePort only for a port it picked;
// on a given port it is asked at /json/version.
func (c *Chromium) ready(dir string, port int) bool {
	if port == 0 {
		data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		lines := strings.Split(string(data), "\n")
		if err != nil || len(lines) < 2 || lines[1] == "" {
			return false
		}
		c.HTTP = "http://127.0.0.1:" + lines[0]
		c.WebSocket = "ws://127.0.0.1:" + lines[0] + lines[1]
		return true
	}
	c.HTTP = fmt.Sprintf("http://127.0.0.1:%d", port)
	res, err := http.Get(c.HTTP + "/json/version")
	if err != nil {
		return false
	}
	defer res.Body.Close()
	var v struct {
		WebSocket string `json:"webSocketDebuggerUrl"`
	}
	if json.NewDecoder(res.Body).Decode(&v) != nil || v.WebSocket == "" {
		return false
	}
	c.WebSocket = v.WebSocket
	return true
}
