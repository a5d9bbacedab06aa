package main

import (
	"flag"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/urlpolicy"
)

// --open-approvals is on by default only where a desktop can open the
// console, and the flag or its environment variable decides otherwise.
func TestOpenApprovalsDefault(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args    []string
		env     map[string]string
		desktop bool
		want    bool
	}{
		{nil, nil, false, false},
		{nil, nil, true, true},
		{[]string{"--open-approvals"}, nil, false, true},
		{[]string{"--open-approvals=false"}, nil, true, false},
		{nil, map[string]string{"CHAPERONE_OPEN_APPROVALS": "false"}, true, false},
		{nil, map[string]string{"CHAPERONE_OPEN_APPROVALS": "1"}, false, true},
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		a := addApproverFlags(fs, false)
		if _, err := parseFlags(fs, c.args, func(k string) string { return c.env[k] }); err != nil {
			t.Fatalf("%v %v: %v", c.args, c.env, err)
		}
		if got := a.openConsole.or(c.desktop); got != c.want {
			t.Errorf("%v %v with a desktop %v: open %v, want %v", c.args, c.env, c.desktop, got, c.want)
		}
	}
	if runtime.GOOS == "linux" {
		for env, want := range map[string]bool{"": false, "DISPLAY": true, "WAYLAND_DISPLAY": true, "TERM": false} {
			if got := hasDesktop(func(k string) string {
				if k == env {
					return ":0"
				}
				return ""
			}); got != want {
				t.Errorf("hasDesktop with %q set = %v", env, got)
			}
		}
	}
}

// An approver listening on every interface reserves every address of this
// machine, and the policy refuses them all.
func TestReserveEveryInterface(t *testing.T) {
	t.Parallel()
	var p urlpolicy.Policy
	if err := reserve(&p, "0.0.0.0:4567", "127.0.0.1:4568"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Reserved, "0.0.0.0:4567") || !slices.Contains(p.Reserved, "127.0.0.1:4568") {
		t.Fatalf("reserved %v", p.Reserved)
	}
	for _, a := range p.Reserved {
		host := a[:strings.LastIndex(a, ":")]
		u := "http://" + host + ":4567/"
		if strings.HasSuffix(a, ":4568") {
			u = "http://" + host + ":4568/"
		}
		if err := p.Check(u); err == nil || !strings.Contains(err.Error(), "approval channel") {
			t.Errorf("%s: %v, want refused", u, err)
		}
	}
	if err := reserve(&p, "no-port"); err == nil {
		t.Error("reserve took an address without a port")
	}
}
