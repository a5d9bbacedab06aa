package main

import (
	"net"
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// TestDoctor runs the built binary's doctor: on this machine the browser
// launches and renders a page, and each problem it can be given is a
// failing check with a fix and a non-zero exit.
func TestDoctor(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	free.Close()

	for _, tc := range []struct {
		name string
		env  []string
		args []string
		ok   bool
		want []string // patterns the output must have
	}{
		{"healthy", nil, []string{"--http", freeAddr}, true, []string{
			`(?m)^ok\s+browser\s+\S*chrom\S* .*launched and rendered a page in \d+ ms$`,
			`(?m)^(ok|warn)\s+sandbox\s`,
			`(?m)^(ok|warn)\s+fonts\s`,
			`(?m)^ok\s+port\s+` + regexp.QuoteMeta(freeAddr) + ` is free`,
		}},
		{"no browser at CHROME_PATH", []string{"CHROME_PATH=/nonexistent/chromium"}, []string{"--http", freeAddr}, false, []string{
			`(?m)^FAIL\s+browser\s+.*CHROME_PATH=/nonexistent/chromium`,
			`(?m)^\s+fix: CHROME_PATH names no browser binary`,
		}},
		{"no browser at --browser-path", nil, []string{"--browser-path", "/nonexistent/chrome", "--http", freeAddr}, false, []string{
			`(?m)^FAIL\s+browser\s+.*/nonexistent/chrome`,
			`(?m)^\s+fix: install Chromium`,
		}},
		{"port taken", nil, []string{"--http", busy.Addr().String()}, false, []string{
			`(?m)^FAIL\s+port\s+cannot listen on ` + regexp.QuoteMeta(busy.Addr().String()) + `: .*address already in use`,
			`(?m)^\s+fix: stop what uses it`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"doctor"}, tc.args...)...)
			cmd.Env = append(os.Environ(), tc.env...)
			out, err := cmd.CombinedOutput()
			if (err == nil) != tc.ok {
				t.Errorf("doctor exited with %v, want success %v\n%s", err, tc.ok, out)
			}
			for _, p := range tc.want {
				if !regexp.MustCompile(p).Match(out) {
					t.Errorf("doctor's output lacks %s:\n%s", p, out)
				}
			}
		})
	}
}
