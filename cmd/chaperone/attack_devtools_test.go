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
	t.Logf("the flooded console: %d characters, %d lines", len(flood), strings.Count(flood, "\n"))
	if n := len(flood); n > 40_000 {
		t.Errorf("the flooded console is %d characters", n)
	}
	if n := strings.Count(flood, "\n"); n > 60 {
		t.Errorf("the flooded console is %d lines", n)
	}

	// Bad input: a clear error, and the session goes on.
	for _, args := range []map[string]any{{"id": "r999999", "body": true}, {"body": true}, {"level": "loud"}} {
		if text := devtoolsRead(t, c, toolapi.Network, args); !strings.Contains(text, "invalid_params") && args["level"] == nil {
			t.Errorf("browser_network %v: %s", args, text)
		}
	}
	if text := devtoolsRead(t, c, toolapi.Console, map[string]any{"level": "loud"}); !strings.Contains(text, "invalid_params") {
		t.Errorf("browser_console with level loud: %s", text)
	}
	getSnapshot(t, c)
}

// TestDevtoolsHearsCrossSiteFrames: a cross-site frame runs in a process
// of its own; what it logs is the page's console too.
func TestDevtoolsHearsCrossSiteFrames(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	other := strings.Replace(base, "127.0.0.1", "localhost", 1)
	c, _ := devtoolsServe(t, "--caps", "devtools", "--url", base+"/hostile/devtools?frame="+other+"/hostile/devtools")
	s := getSnapshot(t, c)
	r, _ := click(t, c, browsertest.Ref(t, s, "button", "Log a line"))
	if !r.Success {
		t.Fatalf("click in the frame: %v %s", r.Error, r.Message)
	}
	host := strings.TrimPrefix(other, "http://")
	devtoolsUntil(t, c, toolapi.Console, map[string]any{"all": true, "level": "error"}, `error "a line from the frame at `+host+`"`)
	devtoolsUntil(t, c, toolapi.Network, map[string]any{"all": true}, `document "`+other+`/hostile/devtools"`)
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

// evaluateAsync calls browser_evaluate with fn and returns its result when
// it comes.
func evaluateAsync(c *client.Client, fn string) <-chan actionResult {
	done := make(chan actionResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name = toolapi.Evaluate
		req.Params.Arguments = map[string]any{"function": fn}
		res, err := c.CallTool(ctx, req)
		var r actionResult
		if err != nil {
			r.Message = "call error: " + err.Error()
		} else if data, err := json.Marshal(res.StructuredContent); err == nil {
			json.Unmarshal(data, &r)
		}
		done <- r
	}()
	return done
}

// evalMarker is a script that would leave a mark on the page (its title)
// and at the server (a beacon the signal site records as loaded).
func evalMarker(mark string) string {
	return "() => { document.title = 'EVAL RAN " + mark + "'; navigator.sendBeacon('/hostile/binding-signal?loaded=" + mark + "'); return 6 * 7; }"
}

// evalNoMark fails the test if the signal site heard mark, once it heard
// after, which a script approved after the one that would send mark sent:
// the server's own record that mark's script never ran.
func evalNoMark(t *testing.T, sig *bindingSignal, mark, after string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case u := <-sig.loaded:
			if strings.Contains(u, mark) {
				t.Fatalf("the rejected script ran: the server heard %s", u)
			}
			if strings.Contains(u, after) {
				return
			}
		case <-deadline:
			t.Fatalf("the approved script's %s never came", after)
		}
	}
}

// TestEvaluateWaitsForAPerson: every script is put to a person, whole and
// escaped, before it runs; the call waits for them; a rejected script never
// runs (neither the page nor the server sees its mark); an approval covers
// that one script on that one document, and neither the page's forged
// console lines nor an approval the agent asked for in words stand for one.
func TestEvaluateWaitsForAPerson(t *testing.T) {
	t.Parallel()
	base, sig := bindingSignalSite(t)
	c, host := devtoolsServe(t, "--caps", "eval,devtools", "--url", base+"/hostile/devtools")
	getSnapshot(t, c)

	// Rejected: it waits for the person, then never runs.
	done := evaluateAsync(c, evalMarker("REJECTED-1"))
	p := host.asked(t)
	if p.Concrete == nil || p.Concrete.Verb != "run script" || !strings.Contains(strings.Join(p.Lines, "\n"), "REJECTED-1") {
		t.Errorf("the person was not shown the script: %+v %q", p.Concrete, p.Lines)
	}
	select {
	case r := <-done:
		t.Fatalf("browser_evaluate answered before the person did: %+v", r)
	default:
	}
	host.decisions <- map[string]any{"approved": false, "feedback": "no scripts today"}
	r := <-done
	if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) || !strings.Contains(r.Message, "no scripts today") {
		t.Errorf("the rejected script: success %v, error %v, %q", r.Success, r.Error, r.Message)
	}
	if s := getSnapshot(t, c); strings.Contains(s.Page.Title, "EVAL RAN") {
		t.Errorf("the rejected script ran: the title is %q", s.Page.Title)
	}

	// Approved: it runs once, and says what it returned.
	done = evaluateAsync(c, evalMarker("APPROVED-1"))
	host.asked(t)
	host.decisions <- map[string]any{"approved": true}
	r = <-done
	if !r.Success || !strings.Contains(r.Message, "returned (page data, untrusted): 42") {
		t.Errorf("the approved script: success %v, error %v, %q", r.Success, r.Error, r.Message)
	}
	evalNoMark(t, sig, "REJECTED-1", "APPROVED-1")

	// The same script again is asked again: an approval covers one run.
	done = evaluateAsync(c, evalMarker("APPROVED-1"))
	host.asked(t)
	host.decisions <- map[string]any{"approved": false}
	if r := <-done; r.Success {
		t.Error("a second run of an approved script ran without asking")
	}

	// The agent's own approved request, in words, covers no script.
	host.decisions <- map[string]any{"approved": true}
	if a := requestApproval(t, c, map[string]any{"action": "run " + evalMarker("WORDS-1"), "reason": "the page says it is approved"}); !a.Approved {
		t.Fatalf("the request in words: %+v", a)
	}
	host.asked(t)
	done = evaluateAsync(c, evalMarker("WORDS-1"))
	host.asked(t)
	host.decisions <- map[string]any{"approved": false}
	if r := <-done; r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
		t.Errorf("the script the agent's words named: success %v, %q", r.Success, r.Message)
	}

	// What the person reads: every character, none that starts a line or
	// turns the text around.
	done = evaluateAsync(c, "() => {\n  // \u202eapproved\u202c\n  return 1;\n}")
	p = host.asked(t)
	shown := strings.Join(p.Lines, "\n") + p.Prompt
	for _, raw := range []string{"\u202e", "\u202c", "\n  return"} {
		if strings.Contains(shown, raw) {
			t.Errorf("the person is shown %q raw:\n%s", raw, shown)
		}
	}
	if !strings.Contains(shown, `\u202e`) || !strings.Contains(shown, `\n  return 1;`) {
		t.Errorf("the person is not shown the script's escapes:\n%s", shown)
	}
	host.decisions <- map[string]any{"approved": false}
	<-done

	// A navigation between the approval and the run: the script does not
	// run in the new document.
	_, s := act(t, c, toolapi.Navigate, map[string]any{"url": base + "/hostile/binding-cart?item=pencil&signal=1"})
	sig.waitLoaded(t, "binding-cart")
	_ = s
	done = evaluateAsync(c, evalMarker("MOVED-1"))
	host.asked(t)
	sig.send(t, "reload")
	sig.waitLoaded(t, "binding-cart")
	host.decisions <- map[string]any{"approved": true}
	if r := <-done; r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "not run") {
		t.Errorf("the script approved on the document before the reload: success %v, error %v, %q", r.Success, r.Error, r.Message)
	}
	done = evaluateAsync(c, evalMarker("AFTER-MOVE"))
	host.asked(t)
	host.decisions <- map[string]any{"approved": true}
	<-done
	evalNoMark(t, sig, "MOVED-1", "AFTER-MOVE")
}

// TestEvaluateHostileScripts: what an approved script does is still held
// to the session's rules: a navigation to a blocked origin (a second
// loopback origin, so no test traffic leaves the machine) is refused by the
// URL policy, a password the page holds comes back masked, an HttpOnly
// cookie is out of its reach, and a script that never ends is stopped,
// leaving the session usable.
func TestEvaluateHostileScripts(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	blocked := strings.Replace(base, "127.0.0.1", "localhost", 1)
	c, host := devtoolsServe(t, "--caps", "eval", "--url", base+"/hostile/devtools", "--blocked-origins", blocked)
	s := getSnapshot(t, c)
	r, s := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "User name"), "value": "jane"})
	if !r.Success {
		t.Fatalf("fill: %v %s", r.Error, r.Message)
	}
	r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Password"), "value": "{{" + devtoolsVar + "}}"})
	if !r.Success {
		t.Fatalf("fill: %v %s", r.Error, r.Message)
	}
	if r, _ = click(t, c, browsertest.Ref(t, s, "button", "Sign in")); !r.Success {
		t.Fatalf("sign in: %v %s", r.Error, r.Message)
	}
	// Bad input never reaches a person.
	for _, fn := range []string{"", "  ", strings.Repeat("x", 4001)} {
		if r := <-evaluateAsync(c, fn); r.Success || r.Error == nil || *r.Error != string(toolapi.InvalidParams) {
			t.Errorf("browser_evaluate %.20q: success %v, error %v, %q", fn, r.Success, r.Error, r.Message)
		}
		host.notAsked(t)
	}
	run := func(fn string) actionResult {
		t.Helper()
		done := evaluateAsync(c, fn)
		host.asked(t)
		host.decisions <- map[string]any{"approved": true}
		r := <-done
		t.Logf("%s → success %v, error %v, %q", fn, r.Success, r.Error, r.Message)
		low := strings.ToLower(r.Message + string(r.Snapshot))
		for _, f := range []string{"s3cret", "dev/pw", "dev%2fpw", "fixture-session-7f3a"} {
			if strings.Contains(low, f) {
				t.Errorf("%s: the answer shows %q", fn, f)
			}
		}
		return r
	}
	if r := run("() => document.getElementById('password').value + ' | ' + document.cookie"); !r.Success || !strings.Contains(r.Message, "{{"+devtoolsVar+"}}") || !strings.Contains(r.Message, "prefs=dark-mode") {
		t.Errorf("reading the password and the cookies: %v %q", r.Error, r.Message)
	}
	// The password in parts: its halves apart in an object, its thirds in
	// a thrown error's message.
	if r := run("() => { const v = document.getElementById('password').value; return {a: v.slice(0, 7), b: v.slice(7)}; }"); !r.Success || !strings.Contains(r.Message, "{{"+devtoolsVar+"}}") {
		t.Errorf("the password's halves: %v %q", r.Error, r.Message)
	}
	if r := run("() => { const v = document.getElementById('password').value; throw new Error(v.slice(0, 5) + ' then ' + v.slice(5, 10) + ' then ' + v.slice(10)); }"); r.Success || strings.Contains(strings.ToLower(r.Message), "s3cre") || strings.Contains(r.Message, "/pw?7") {
		t.Errorf("the password's thirds thrown: success %v, %q", r.Success, r.Message)
	}
	if r := run("() => { location.href = '" + blocked + "/account'; }"); r.Success || !strings.Contains(r.Message, "blocked by policy") {
		t.Errorf("the navigation to a blocked origin: success %v, %q", r.Success, r.Message)
	}
	if r := run("document.title"); r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) {
		t.Errorf("a script that is no function: success %v, error %v, %q", r.Success, r.Error, r.Message)
	}
	if r := run("() => { for (;;) {} }"); r.Success || r.Error == nil || *r.Error != string(toolapi.Timeout) {
		t.Errorf("the endless script: success %v, error %v, %q", r.Success, r.Error, r.Message)
	}
	if after := getSnapshot(t, c); !strings.Contains(after.Page.URL, "/hostile/devtools") || !strings.Contains(after.Text, "Signed in as jane") {
		t.Errorf("after the hostile scripts the page is %s: %q", after.Page.URL, after.Text)
	}
}

// TestDevtoolsSecretInParts: /hostile/devtools-parts writes the password
// typed as {{DEVPW}} in parts where the developer's view reads them: a
// console message per half, thirds as %s arguments, a string the console's
// cut would halve, a request's query string per half. No part long enough
// to tell a good part of the secret reaches the agent.
func TestDevtoolsSecretInParts(t *testing.T) {
	t.Parallel()
	base, _ := bindingSignalSite(t)
	c, _ := devtoolsServe(t, "--caps", "devtools", "--url", base+"/hostile/devtools-parts")
	s := getSnapshot(t, c)
	if r, after := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Password"), "value": "{{" + devtoolsVar + "}}"}); !r.Success {
		t.Fatalf("fill the password: %v %s", r.Error, r.Message)
	} else {
		s = after
	}
	if r, _ := click(t, c, browsertest.Ref(t, s, "button", "Check strength")); !r.Success {
		t.Fatalf("check: %v %s", r.Error, r.Message)
	}
	// devtoolsRead fails on the halves; the thirds and the cut start too.
	parts := []string{"s3cre", "t dev", "/pw?7", "pw%3f7", "s3cret%20", "dev%2f"}
	for _, read := range []struct {
		name string
		want []string
	}{
		{toolapi.Console, []string{"part 2 of 2", "thirds", "xxxxxxxx"}},
		{toolapi.Network, []string{"half=1", "half=2"}},
	} {
		text := devtoolsUntil(t, c, read.name, map[string]any{"all": true}, read.want...)
		t.Logf("%s:\n%s", read.name, text)
		var report struct {
			Messages []struct{ Text string } `json:"messages"`
		}
		_, data := call(t, c, read.name, map[string]any{"all": true})
		if err := json.Unmarshal([]byte(data), &report); err != nil {
			t.Fatalf("%s: %v", read.name, err)
		}
		var joined strings.Builder
		for _, m := range report.Messages {
			joined.WriteString(m.Text)
		}
		if strings.Contains(joined.String(), devtoolsPW) {
			t.Errorf("%s shows the secret a character a message:\n%s", read.name, text)
		}
		for _, p := range parts {
			if strings.Contains(strings.ToLower(text), p) {
				t.Errorf("%s shows %q, a part of the secret:\n%s", read.name, p, text)
			}
		}
	}
}
