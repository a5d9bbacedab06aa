package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Issue 29, the developer's view: browser_console and browser_network
// (--caps devtools) show what the page logged, threw and requested, bounded
// and with the session's secrets masked, credentials never shown; and
// browser_evaluate (--caps eval, never in all) runs a script only once a
// person approved that very script on that very document: a rejected one
// never runs, and nothing the page or the model says approves one.

// devtoolsPW is the --secret typed into /hostile/devtools's sign-in, which
// /api/signin echoes in its answer.
const (
	devtoolsVar = "DEVPW"
	devtoolsPW  = "s3cret Dev/pw?7"
)

// devtoolsServe starts the built binary with a webhook approver (a test
// person) and the --secret devtoolsVar.
func devtoolsServe(t *testing.T, args ...string) (*client.Client, *approvalHost) {
	t.Helper()
	host, hookURL := newApprovalHost(t, webhookToken)
	c, _, _ := stdioClient(t, []string{"CHAPERONE_WEBHOOK_TOKEN=" + webhookToken, devtoolsVar + "=" + devtoolsPW},
		append([]string{"serve", "--approver", "webhook", "--webhook-url", hookURL, "--secret", devtoolsVar}, args...)...)
	return c, host
}

// devtoolsRead calls a developer's view tool and returns the text the
// model reads, failing on any form of the secret in it or in the JSON.
func devtoolsRead(t *testing.T, c *client.Client, name string, args map[string]any) string {
	t.Helper()
	res, data := call(t, c, name, args)
	text := textOf(t, res)
	for _, out := range []string{text, data} {
		low := strings.ToLower(out)
		for _, f := range []string{"s3cret", "dev/pw", "dev%2fpw", "s3cret+dev", "s3cret%20dev", `dev\/pw`} {
			if strings.Contains(low, f) {
				t.Errorf("%s shows the secret (%q):\n%s", name, f, out)
			}
		}
	}
	return text
}

// devtoolsUntil reads name with args until its text holds every one of
// want, a bounded number of times: the page's events arrive as it runs.
func devtoolsUntil(t *testing.T, c *client.Client, name string, args map[string]any, want ...string) string {
	t.Helper()
	var text string
	for range 50 {
		text = devtoolsRead(t, c, name, args)
		missing := false
		for _, w := range want {
			missing = missing || !strings.Contains(text, w)
		}
		if !missing {
			return text
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never showed all of %q:\n%s", name, want, text)
	return ""
}

// TestDevtoolsConsoleAndNetwork: on /hostile/devtools the console shows the
// page's messages at each level and its uncaught error and rejection, each
// quoted on a line of its own (a page's forged "Approved" line starts
// none); the network shows the 404 and the refused connection; the sign-in
// POST's body and its answer show the secret masked and no cookie or
// credential; a flood of the console stays bounded.
func TestDevtoolsConsoleAndNetwork(t *testing.T) {
	t.Parallel()
	base, _ := bindingSignalSite(t)
	refused := channelFreePort(t)
	c, _ := devtoolsServe(t, "--caps", "devtools", "--url", base+"/hostile/devtools?refused="+refused)
	s := getSnapshot(t, c)

	console := devtoolsUntil(t, c, toolapi.Console, map[string]any{"all": true},
		`warning "careful: stock is low"`, `error "widget failed to render"`, `info "devtools fixture ready"`,
		`error uncaught "Uncaught Error: fixture boom: the cart widget crashed`, "fixture rejection: prices did not load")
	t.Logf("browser_console:\n%s", console)
	if strings.Contains(console, "debug detail") {
		t.Error("a debug message shows at the default level info")
	}
	for _, line := range strings.Split(console, "\n") {
		for _, forged := range []string{"Approved by a human", "error uncaught \"nothing", "[chaperone]"} {
			if strings.HasPrefix(line, forged) {
				t.Errorf("a page's console text starts a line of its own: %q", line)
			}
		}
	}
	if again := devtoolsRead(t, c, toolapi.Console, nil); strings.Contains(again, "careful") {
		t.Errorf("messages already read show again:\n%s", again)
	}
	if errs := devtoolsRead(t, c, toolapi.Console, map[string]any{"all": true, "level": "error"}); strings.Contains(errs, "careful") || !strings.Contains(errs, "fixture boom") {
		t.Errorf("level error:\n%s", errs)
	}

	network := devtoolsUntil(t, c, toolapi.Network, map[string]any{"all": true},
		"404 fetch", "/api/missing-items", `failed "net::ERR_CONNECTION_REFUSED`, "127.0.0.1:"+refused+"/refused")
	t.Logf("browser_network:\n%s", network)
	if failed := devtoolsRead(t, c, toolapi.Network, map[string]any{"all": true, "failed": true}); strings.Contains(failed, "hostile/devtools") || !strings.Contains(failed, "missing-items") {
		t.Errorf("failed=true:\n%s", failed)
	}

	r, s := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "User name"), "value": "jane"})
	if !r.Success {
		t.Fatalf("fill the user: %v %s", r.Error, r.Message)
	}
	if r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Password"), "value": "{{" + devtoolsVar + "}}"}); !r.Success {
		t.Fatalf("fill the password: %v %s", r.Error, r.Message)
	}
	if r, after := click(t, c, browsertest.Ref(t, s, "button", "Sign in")); !r.Success || !strings.Contains(after.Text, "Signed in as jane") {
		t.Fatalf("sign in: %v %s; the page says %q", r.Error, r.Message, after.Text)
	}
	var list struct {
		Requests []struct{ ID, Method, URL string } `json:"requests"`
	}
	_, data := call(t, c, toolapi.Network, map[string]any{"url": "/api/signin", "method": "post"})
	if err := json.Unmarshal([]byte(data), &list); err != nil || len(list.Requests) != 1 {
		t.Fatalf("the sign-in request: %v %s", err, data)
	}
	detail := devtoolsUntil(t, c, toolapi.Network, map[string]any{"id": list.Requests[0].ID, "body": true},
		`"user=jane&password={{`+devtoolsVar+`}}"`, `password_echo\":\"{{`+devtoolsVar+`}}`)
	t.Logf("the sign-in's detail:\n%s", detail)
	for _, cred := range []string{"fixture-session-7f3a", "sid="} {
		if strings.Contains(detail, cred) {
			t.Errorf("the detail shows the cookie %q:\n%s", cred, detail)
		}
	}

	// A flood: 1,500 messages of 12,000 characters each.
	s = getSnapshot(t, c)
	if r, _ := click(t, c, browsertest.Ref(t, s, "button", "Flood the console")); !r.Success {
		t.Fatalf("flood: %v %s", r.Error, r.Message)
	}
	flood := devtoolsUntil(t, c, toolapi.Console, map[string]any{"all": true}, "flood 1499 ", "dropped: the log keeps the newest 500")
	if n := len(flood); n > 40_000 {
		t.Errorf("the flooded console is %d characters", n)
	}
	if n := strings.Count(flood, "\n"); n > 60 {
		t.Errorf("the flooded console is %d lines", n)
	}
}

// TestDevtoolsListedOnlyWithItsCapability: the developer's view is listed
// under devtools and all; browser_evaluate only when eval is named, and
// not callable otherwise.
func TestDevtoolsListedOnlyWithItsCapability(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	for _, tc := range []struct {
		caps       string
		want, nope []string
	}{
		{"", nil, []string{toolapi.Console, toolapi.Network, toolapi.Evaluate}},
		{"devtools", []string{toolapi.Console, toolapi.Network}, []string{toolapi.Evaluate}},
		{"all", []string{toolapi.Console, toolapi.Network}, []string{toolapi.Evaluate}},
		{"eval", []string{toolapi.Evaluate}, []string{toolapi.Console, toolapi.Network}},
	} {
		t.Run("caps="+tc.caps, func(t *testing.T) {
			args := []string{"--url", base + "/hostile/devtools"}
			if tc.caps != "" {
				args = append(args, "--caps", tc.caps)
			}
			c, _ := devtoolsServe(t, args...)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, tl := range list.Tools {
				listed[tl.Name] = true
			}
			for _, n := range tc.want {
				if !listed[n] {
					t.Errorf("%s is not listed", n)
				}
			}
			for _, n := range tc.nope {
				if listed[n] {
					t.Errorf("%s is listed", n)
				}
				req := mcp.CallToolRequest{}
				req.Params.Name = n
				req.Params.Arguments = map[string]any{"function": "() => { document.title = 'EVAL RAN' }"}
				if res, err := c.CallTool(ctx, req); err == nil && !res.IsError {
					t.Errorf("%s answered: %+v", n, res.Content)
				}
			}
		})
	}
}
