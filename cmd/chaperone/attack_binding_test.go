package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Issue 22, the binding kind: an approval holds for the one action a person
// saw, where they saw it (the tab, frame and document), until the agent's
// next call of any kind; what took effect is what was approved; every
// output stays bounded whatever the page holds.

// bindingSite serves the fixture site on loopback for one test.
func bindingSite(t *testing.T) string {
	t.Helper()
	site := httptest.NewServer(fixtures.Site())
	t.Cleanup(site.Close)
	return site.URL
}

// bindingProfile writes a profile gating a select of the plan and a fill of
// the amount or the passcode, and returns its path.
func bindingProfile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "binding.json")
	profile := `{"name":"binding","gated_actions":[
		{"name":"plan","verb":"select","name_matches":"plan"},
		{"name":"money","verb":"fill","name_matches":"amount|passcode"}]}`
	if err := os.WriteFile(path, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// bindingApprove asks for, and gets, the person's approval of args (with
// "action" and "reason" filled in) and returns what the person was shown.
func bindingApprove(t *testing.T, c *client.Client, host *approvalHost, args map[string]any) string {
	t.Helper()
	args["action"], args["reason"] = "the user's order", "the user asked for it"
	host.decisions <- map[string]any{"approved": true}
	a := requestApproval(t, c, args)
	shown := host.asked(t)
	if !a.Approved || shown.Concrete == nil {
		t.Fatalf("approval: %+v; the person was shown %+v", a, shown.Concrete)
	}
	t.Logf("approved node %d at %+v", shown.Concrete.Node, shown.Concrete.Where)
	return shown.Concrete.String()
}

// bindingRejected checks that r is the answer to an action the person was
// asked about again and rejected.
func bindingRejected(t *testing.T, host *approvalHost, r actionResult, what string) {
	t.Helper()
	p := host.asked(t)
	if p.Concrete != nil {
		t.Logf("asked again about node %d at %+v", p.Concrete.Node, p.Concrete.Where)
	}
	if p.Concrete == nil || !strings.Contains(p.Concrete.String(), what) {
		t.Errorf("the person was asked about %+v, want %s", p.Concrete, what)
	}
	if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
		t.Errorf("the action the person rejected: success %v, error %v, %q", r.Success, r.Error, r.Message)
	}
}

// TestBindingApprovalStaysInItsTab reverses issue 22's third reproduction:
// "Place order" approved in the pencil cart's tab does not cover the
// same-named button of the TV cart in another tab, whose node ids repeat
// those of the first: the person is asked again, and sees the TV cart.
// The carts are on two sites of loopback ("localhost" and "127.0.0.1"), so
// each tab has a process of its own, and the same page gives its nodes the
// same ids in each.
func TestBindingApprovalStaysInItsTab(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	pencil := strings.Replace(base, "127.0.0.1", "localhost", 1) + "/hostile/binding-cart?item=pencil"
	// The TV cart's site is in the write set: opening it with its query is
	// not the data leak that asks a person (attack_leak_test.go).
	c, host, _ := webhookServe(t, "--caps", "tabs", "--url", pencil, "--write-origins", base)
	tab := func(args map[string]any, want string) *snapshot.Snapshot {
		t.Helper()
		r, s := act(t, c, toolapi.Tabs, args)
		if !r.Success || !strings.Contains(s.Page.URL, want) {
			t.Fatalf("browser_tabs %v: %v %q at %s", args, r.Error, r.Message, s.Page.URL)
		}
		return s
	}
	tab(map[string]any{"action": "new", "url": base + "/hostile/binding-cart?item=tv"}, "item=tv")
	s := tab(map[string]any{"action": "select", "index": 0}, "item=pencil")
	shown := bindingApprove(t, c, host, map[string]any{"ref": browsertest.Ref(t, s, "button", "Place order")})
	if !strings.Contains(shown, "Place order") {
		t.Fatalf("the person approved %s", shown)
	}

	tv := tab(map[string]any{"action": "select", "index": 1}, "item=tv")
	host.decisions <- map[string]any{"approved": false, "feedback": "I approved the pencil"}
	r, after := click(t, c, browsertest.Ref(t, tv, "button", "Place order"))
	bindingRejected(t, host, r, "Place order")
	if !strings.Contains(after.Page.URL, "/hostile/binding-cart?item=tv") {
		t.Errorf("the TV order went ahead: the page is %s", after.Page.URL)
	}
}

// TestBindingAnyCallUsesTheApprovalUp reverses the second half of issue
// 22's third reproduction: an approval covers the agent's next call only,
// whatever that call is; after any other call, the approved action asks
// again.
func TestBindingAnyCallUsesTheApprovalUp(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	cart := base + "/hostile/binding-cart?item=pencil"
	c, host, _ := webhookServe(t, "--caps", "all", "--url", cart)
	for _, tc := range []struct {
		tool string
		args func(s *snapshot.Snapshot) map[string]any
	}{
		{toolapi.GetSnapshot, nil},
		{toolapi.Scroll, func(*snapshot.Snapshot) map[string]any { return map[string]any{"direction": "down"} }},
		{toolapi.Hover, func(s *snapshot.Snapshot) map[string]any {
			return map[string]any{"ref": browsertest.Ref(t, s, "button", "Place order")}
		}},
		{toolapi.Tabs, func(*snapshot.Snapshot) map[string]any { return map[string]any{"action": "list"} }},
		{toolapi.WaitFor, func(*snapshot.Snapshot) map[string]any { return map[string]any{"text": "Your cart"} }},
		{toolapi.Navigate, func(*snapshot.Snapshot) map[string]any { return map[string]any{"url": cart} }},
		// The developer's view reads, and still uses the approval up.
		{toolapi.Console, func(*snapshot.Snapshot) map[string]any { return map[string]any{"all": true} }},
		{toolapi.Network, func(*snapshot.Snapshot) map[string]any { return map[string]any{"all": true} }},
		{"a call that fails", func(*snapshot.Snapshot) map[string]any { return map[string]any{"ref": "@e99999"} }},
		{"a request for approval that fails", func(*snapshot.Snapshot) map[string]any {
			return map[string]any{"action": "place it", "reason": "r", "ref": "@e99999"}
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			_, s := act(t, c, toolapi.Navigate, map[string]any{"url": cart})
			bindingApprove(t, c, host, map[string]any{"ref": browsertest.Ref(t, s, "button", "Place order")})
			var now *snapshot.Snapshot
			switch tc.tool {
			case toolapi.GetSnapshot:
				now = getSnapshot(t, c)
			case toolapi.Console, toolapi.Network:
				call(t, c, tc.tool, tc.args(s))
				now = s
			case "a call that fails":
				_, now = act(t, c, toolapi.Click, tc.args(s))
			case "a request for approval that fails":
				if a := requestApproval(t, c, tc.args(s)); a.Approved || !strings.Contains(a.Message, "ref_invalid") {
					t.Fatalf("a request on no element: %+v", a)
				}
				now = s
			default:
				var r actionResult
				r, now = act(t, c, tc.tool, tc.args(s))
				if !r.Success {
					t.Fatalf("%s: %v %q", tc.tool, r.Error, r.Message)
				}
			}
			host.decisions <- map[string]any{"approved": false, "feedback": "asked again"}
			r, after := click(t, c, browsertest.Ref(t, now, "button", "Place order"))
			bindingRejected(t, host, r, "Place order")
			if after.Page.URL != cart {
				t.Fatalf("the order went ahead: the page is %s", after.Page.URL)
			}
		})
	}
}

// TestBindingWhatWasDoneIsWhatWasApproved reverses issue 22's rewritten
// option: the person approved "Basic $5", the select's focus handler made
// that option "Premium annual $6000"; the action fails and names what took
// effect. The same for a field whose change handler rewrites the amount,
// and for a password field, whose value the message never shows.
func TestBindingWhatWasDoneIsWhatWasApproved(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	c, host, _ := webhookServe(t, "--profile", bindingProfile(t), "--url", base+"/hostile/binding-plan")
	for _, tc := range []struct {
		name, tool, role, field, value, approved string
		// says are in the message; never is not.
		says  []string
		never string
	}{
		{"rewritten option", toolapi.Select, "combobox", "Plan", "Basic $5", `"Basic $5"`, []string{"Premium annual $6000", "Basic $5"}, ""},
		{"rewritten amount", toolapi.Fill, "textbox", "Amount", "5", `"5"`, []string{`"6000"`}, ""},
		{"rewritten passcode", toolapi.Fill, "textbox", "Passcode", "s3cret-pass", "••••••••", []string{"different value (12 characters)"}, "s3cret-pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := getSnapshot(t, c)
			ref := browsertest.Ref(t, s, tc.role, tc.field)
			verb := map[string]string{toolapi.Select: "select", toolapi.Fill: "fill"}[tc.tool]
			shown := bindingApprove(t, c, host, map[string]any{"ref": ref, "verb": verb, "value": tc.value})
			if !strings.Contains(shown, tc.approved) {
				t.Fatalf("the person was shown %s, want %s", shown, tc.approved)
			}
			r, after := act(t, c, tc.tool, map[string]any{"ref": ref, "value": tc.value})
			t.Logf("%s: %s", tc.tool, r.Message)
			host.notAsked(t)
			if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) {
				t.Fatalf("the page changed what was approved, and the result is success %v, error %v, %q", r.Success, r.Error, r.Message)
			}
			for _, want := range tc.says {
				if !strings.Contains(r.Message, want) {
					t.Errorf("the message does not say %s: %q", want, r.Message)
				}
			}
			if tc.never != "" && (strings.Contains(r.Message, tc.never) || strings.Contains(string(r.Snapshot), tc.never)) {
				t.Errorf("the result shows the password: %q", r.Message)
			}
			if after == nil {
				t.Fatal("no snapshot")
			}
		})
	}
}

// TestBindingOutputsAreBounded reverses issue 22's 50 long alerts: one click
// on a page that raises 50 alerts of 20,000 characters answers within
// bounds, saying how many alerts there were; so does a confirm dialog of
// 100,000 characters.
func TestBindingOutputsAreBounded(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	c, _, _ := stdioClient(t, nil, "serve", "--profile", "none", "--url", base+"/hostile/binding-alerts")
	const bound = 24_000 // characters of structured content: a few thousand tokens
	for _, tc := range []struct {
		button string
		says   string
	}{
		{"Show notices", "50 alerts"},
		{"Agree to terms", "confirm dialog"},
	} {
		t.Run(tc.button, func(t *testing.T) {
			s := getSnapshot(t, c)
			res, text := call(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", tc.button)})
			var r actionResult
			if err := json.Unmarshal([]byte(text), &r); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d characters; message: %.600s", len(text), r.Message)
			if len(text) > bound || len(textOf(t, res)) > bound {
				t.Errorf("the result is %d characters (its text %d), over %d; message %d characters", len(text), len(textOf(t, res)), bound, len(r.Message))
			}
			if len(r.Message) > 4100 || !strings.Contains(r.Message, tc.says) || !strings.Contains(r.Message, "…") {
				t.Errorf("message (%d characters) = %.300q…", len(r.Message), r.Message)
			}
		})
	}
}

// bindingSignal is the fixture site with a signal the hostile pages poll
// (/hostile/binding-signal): a command, taken by the first poll after it is
// set, and word of each document that loaded.
type bindingSignal struct {
	mu  sync.Mutex
	cmd string
	// loaded receives the URL of each document that loaded; taken, each
	// command a page took.
	loaded, taken chan string
}

// bindingSignalSite serves the fixture site with the signal, on loopback.
func bindingSignalSite(t *testing.T) (string, *bindingSignal) {
	t.Helper()
	sig := &bindingSignal{loaded: make(chan string, 64), taken: make(chan string, 8)}
	site := fixtures.Site()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hostile/binding-signal" {
			site.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if u := r.URL.Query().Get("loaded"); u != "" {
			select {
			case sig.loaded <- u:
			default:
			}
			return
		}
		sig.mu.Lock()
		cmd := sig.cmd
		sig.cmd = ""
		sig.mu.Unlock()
		if cmd != "" {
			sig.taken <- cmd
		}
		io.WriteString(w, cmd)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, sig
}

// waitLoaded waits for a document whose URL holds want to say it loaded.
func (s *bindingSignal) waitLoaded(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case u := <-s.loaded:
			if strings.Contains(u, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no document of %s loaded", want)
		}
	}
}

// send sets the command and waits until a page takes it.
func (s *bindingSignal) send(t *testing.T, cmd string) {
	t.Helper()
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	select {
	case <-s.taken:
	case <-time.After(30 * time.Second):
		t.Fatalf("no page took %q", cmd)
	}
}

// TestBindingApprovalDiesWithItsDocument: a person is asked about "Place
// order", and before they answer, the page reloads, goes to its own URL
// again, or replaces the document of the frame holding the button. The
// approval was for the document the person saw: nothing is ordered, and
// the agent is told the page changed.
func TestBindingApprovalDiesWithItsDocument(t *testing.T) {
	t.Parallel()
	base, sig := bindingSignalSite(t)
	c, host, _ := webhookServe(t, "--url", base+"/hostile/binding-cart?item=pencil")
	for _, tc := range []struct{ name, page, cmd string }{
		{"reload", "/hostile/binding-cart?item=pencil&signal=1", "reload"},
		{"same-URL navigation", "/hostile/binding-cart?item=pencil&signal=1", "assign"},
		{"the frame's document replaced", "/hostile/binding-frame", "reload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := act(t, c, toolapi.Navigate, map[string]any{"url": base + tc.page})
			sig.waitLoaded(t, "binding-cart")
			done := clickAsync(context.Background(), c, browsertest.Ref(t, s, "button", "Place order"))
			host.asked(t)
			sig.send(t, tc.cmd)
			sig.waitLoaded(t, "binding-cart")
			host.decisions <- map[string]any{"approved": true}
			r := <-done
			t.Logf("%v: %s", r.Error, r.Message)
			if r.Success || r.Error == nil || *r.Error != string(toolapi.RefInvalid) {
				t.Errorf("the click approved on the old document: success %v, error %v, %q", r.Success, r.Error, r.Message)
			}
			if after := getSnapshot(t, c); strings.Contains(after.Page.URL, "order-placed") {
				t.Errorf("the order was placed: %s", after.Page.URL)
			}
		})
	}
}

// rewriteProfile writes a profile for /hostile/binding-rewrite: a person
// approves every select of a plan, fill of a money field, upload, key on
// the rigged controls, and the click on "Delete account".
func rewriteProfile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rewrite.json")
	profile := `{"name":"rewrite","gated_actions":[
		{"name":"plan","verb":"select","name_matches":"plan"},
		{"name":"money","verb":"fill","name_matches":"amount|note|memo|reference"},
		{"name":"files","verb":"upload","name_matches":"attach|papers"},
		{"name":"keys","verb":"press","name_matches":"agree|coupon|gift|tip"},
		{"name":"delete","verb":"click","name_matches":"delete account"}]}`
	if err := os.WriteFile(path, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBindingCommitIsWhatWasApproved reverses issue 27's reproduction 9:
// the person approved "Basic $5", the select's focus handler rewrote the
// option, and the page's change handler ran with "premium-annual" before
// the result said action_failed. Before any input commits, what it will
// commit is read again once its element has focus: a select whose options
// changed chooses nothing, and the person is asked again about what the
// value picks now; a field that moved the focus or changed as it took it,
// a key whose keydown moved the focus, and a file input that no longer
// takes the approved files commit nothing, and the agent hears
// action_failed. Every input and change event the page hears is listed on
// the page: none of a rigged input may reach it. Where nothing is rigged,
// the approved action commits once, asked once.
func TestBindingCommitIsWhatWasApproved(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("contents of "+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	page := base + "/hostile/binding-rewrite"
	c, host, _ := webhookServe(t, "--profile", rewriteProfile(t), "--url", page, "--caps", "upload", "--upload-dir", dir)
	for _, tc := range []struct {
		name, tool, role, target string
		args                     map[string]any
		// shown is in what the person approves first; again, when set,
		// in what they are asked next, once the page changed it, and
		// approveAgain says whether they approve that too. Else the
		// result is code and nobody is asked again.
		shown, again string
		approveAgain bool
		code         toolapi.Code
		// never is what the page must not hear; heard, what it hears
		// exactly once.
		never []string
		heard string
	}{
		{name: "option renamed on focus", tool: toolapi.Select, role: "combobox", target: "Plan renamed on focus", args: map[string]any{"value": "basic"},
			shown: `"Basic $5"`, again: `"Premium annual $6000"`, never: []string{"tier-text input", "tier-text change"}},
		{name: "option revalued on focus", tool: toolapi.Select, role: "combobox", target: "Plan revalued on focus", args: map[string]any{"value": "Basic $5"},
			shown: `(value "basic")`, again: "premium-annual", never: []string{"tier-value input", "tier-value change"}},
		{name: "values swapped on focus", tool: toolapi.Select, role: "combobox", target: "Plan swapped on focus", args: map[string]any{"value": "basic"},
			shown: `"Basic $5"`, again: `"Premium annual $6000"`, never: []string{"tier-swap input", "tier-swap change"}},
		{name: "option renamed by the select's box", tool: toolapi.Select, role: "combobox", target: "Plan renamed by its box", args: map[string]any{"value": "basic"},
			shown: `"Basic $5"`, again: `"Premium annual $6000"`, never: []string{"tier-box input", "tier-box change"}},
		{name: "option renamed by the input handler", tool: toolapi.Select, role: "combobox", target: "Plan renamed on input", args: map[string]any{"value": "basic"},
			shown: `"Basic $5"`, again: `"Premium annual $6000"`, never: []string{"tier-input change"}},
		{name: "option renamed by text the agent gave", tool: toolapi.Select, role: "combobox", target: "Plan renamed on focus", args: map[string]any{"value": "Basic $5"},
			shown: `"Basic $5"`, code: toolapi.ActionFailed, never: []string{"tier-text input", "tier-text change"}},
		{name: "renamed option approved again", tool: toolapi.Select, role: "combobox", target: "Plan renamed on focus", args: map[string]any{"value": "basic"},
			shown: `"Basic $5"`, again: `"Premium annual $6000"`, approveAgain: true, heard: "tier-text change: basic / Premium annual $6000"},
		{name: "listbox option renamed as it is pressed", tool: toolapi.Select, role: "listbox", target: "Plan list renamed on press", args: map[string]any{"value": "basic"},
			shown: `"Basic $5"`, again: `"Premium annual $6000"`, never: []string{"tier-list click"}},
		{name: "plain listbox (control)", tool: toolapi.Select, role: "listbox", target: "Plan list as it is", args: map[string]any{"value": "Basic $5"},
			shown: `"Basic $5"`, heard: "tier-list-plain click: basic / Basic $5"},
		{name: "pointer handlers (control)", tool: toolapi.Select, role: "combobox", target: "Plan renamed on pointer", args: map[string]any{"value": "Basic $5"},
			shown: `"Basic $5"`, heard: "tier-pointer change: basic / Basic $5"},
		{name: "plain select (control)", tool: toolapi.Select, role: "combobox", target: "Plan as it is", args: map[string]any{"value": "Standard $12"},
			shown: `"Standard $12"`, heard: "tier-plain change: standard / Standard $12"},

		{name: "field rewritten on focus", tool: toolapi.Fill, role: "textbox", target: "Amount to add", args: map[string]any{"value": "5", "clear_first": false},
			shown: `"5"`, code: toolapi.ActionFailed, never: []string{"amount input", "amount change"}},
		{name: "field rewritten as it is typed", tool: toolapi.Fill, role: "textbox", target: "Amount rewritten as typed", args: map[string]any{"value": "5"},
			shown: `"5"`, code: toolapi.ActionFailed, never: []string{"amount-typed change"}},
		{name: "field hands the focus over", tool: toolapi.Fill, role: "textbox", target: "Note to payee", args: map[string]any{"value": "rent"},
			shown: `"rent"`, code: toolapi.ActionFailed, never: []string{"payee input", "payee change", "note input", "note change"}},
		{name: "keys: field hands the focus over on keydown", tool: toolapi.Fill, role: "textbox", target: "Memo", args: map[string]any{"value": "rent", "keys": true},
			shown: `"rent"`, code: toolapi.ActionFailed, never: []string{"payee input", "payee change", "memo input", "memo change"}},
		{name: "plain field (control)", tool: toolapi.Fill, role: "textbox", target: "Reference", args: map[string]any{"value": "INV-7"},
			shown: `"INV-7"`, heard: "reference change: INV-7"},

		{name: "chooser's input made single", tool: toolapi.Upload, role: "button", target: "Attach documents", args: map[string]any{"paths": []string{"a.txt", "b.txt"}},
			shown: "b.txt", code: toolapi.ActionFailed, never: []string{"docs input", "docs change"}},
		{name: "chooser's input made a folder picker", tool: toolapi.Upload, role: "button", target: "Attach scans", args: map[string]any{"paths": []string{"a.txt", "b.txt"}},
			shown: "b.txt", code: toolapi.ActionFailed, never: []string{"scans input", "scans change"}},
		{name: "plain file input (control)", tool: toolapi.Upload, role: "button", target: "Papers", args: map[string]any{"paths": []string{"a.txt", "b.txt"}},
			shown: "b.txt", heard: "papers change: a.txt, b.txt"},

		{name: "space moves the focus on keydown", tool: toolapi.PressKey, role: "checkbox", target: "I agree to the terms", args: map[string]any{"key": "Space"},
			shown: "Space", code: toolapi.ActionFailed, never: []string{"delete clicked", "agree change"}},
		{name: "enter moves the focus on keydown", tool: toolapi.PressKey, role: "textbox", target: "Coupon", args: map[string]any{"key": "Enter"},
			shown: "Enter", code: toolapi.ActionFailed, never: []string{"delete clicked", "coupon-form submitted"}},
		{name: "text moves the focus on keydown", tool: toolapi.PressKey, role: "textbox", target: "Tip", args: map[string]any{"text": "12"},
			shown: "key 12", code: toolapi.ActionFailed, never: []string{"payee input", "payee change", "tip input"}},
		{name: "plain enter (control)", tool: toolapi.PressKey, role: "textbox", target: "Gift code", args: map[string]any{"key": "Enter"},
			shown: "Enter", heard: "gift-form submitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := act(t, c, toolapi.Navigate, map[string]any{"url": page})
			args := map[string]any{"ref": browsertest.Ref(t, s, tc.role, tc.target)}
			for k, v := range tc.args {
				args[k] = v
			}
			host.decisions <- map[string]any{"approved": true}
			if tc.again != "" {
				host.decisions <- map[string]any{"approved": tc.approveAgain, "feedback": "that is not what I approved"}
			}
			r, _ := act(t, c, tc.tool, args)
			t.Logf("%s: success %v, %v: %s", tc.tool, r.Success, r.Error, r.Message)
			if first := host.asked(t); first.Concrete == nil || !strings.Contains(first.Concrete.String(), tc.shown) {
				t.Fatalf("the person was first shown %+v, want %s", first.Concrete, tc.shown)
			}
			switch {
			case tc.again != "":
				if p := host.asked(t); p.Concrete == nil || !strings.Contains(p.Concrete.String(), tc.again) {
					t.Errorf("the person was asked again about %+v, want %s", p.Concrete, tc.again)
				}
				if want := !tc.approveAgain; want && (r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected)) {
					t.Errorf("the person rejected the changed action; the result is success %v, error %v, %q", r.Success, r.Error, r.Message)
				}
			default:
				host.notAsked(t)
			}
			if wantOK := tc.heard != ""; r.Success != wantOK {
				t.Errorf("success %v, want %v: %v %q", r.Success, wantOK, r.Error, r.Message)
			}
			if tc.code != "" && (r.Error == nil || *r.Error != string(tc.code)) {
				t.Errorf("error %v, want %s: %q", r.Error, tc.code, r.Message)
			}
			text := getSnapshot(t, c).Text
			for _, never := range tc.never {
				if strings.Contains(text, never) {
					t.Errorf("the page heard %q:\n%s", never, text)
				}
			}
			if tc.heard != "" && strings.Count(text, tc.heard) != 1 {
				t.Errorf("the page heard %q %d times, want once:\n%s", tc.heard, strings.Count(text, tc.heard), text)
			}
		})
		// A decision left over would answer the next case's question.
		for drained := false; !drained; {
			select {
			case d := <-host.decisions:
				t.Errorf("%s: the person was not asked the question answered %v", tc.name, d)
			default:
				drained = true
			}
		}
	}
}

// TestBindingCommitAsksAtMostThrice: a select that renames its option anew
// each time it takes focus gets a question for each new option a person
// approved, at most three in all; then the agent hears action_failed, and
// the page heard no choice.
func TestBindingCommitAsksAtMostThrice(t *testing.T) {
	t.Parallel()
	page := bindingSite(t) + "/hostile/binding-rewrite"
	c, host, _ := webhookServe(t, "--profile", rewriteProfile(t), "--url", page)
	s := getSnapshot(t, c)
	for range 4 {
		host.decisions <- map[string]any{"approved": true}
	}
	r, _ := act(t, c, toolapi.Select, map[string]any{"ref": browsertest.Ref(t, s, "combobox", "Plan renamed on every focus"), "value": "basic"})
	t.Logf("%v: %s", r.Error, r.Message)
	for i, want := range []string{`"Basic $5"`, `"Premium annual $6001"`, `"Premium annual $6002"`} {
		if p := host.asked(t); p.Concrete == nil || !strings.Contains(p.Concrete.String(), want) {
			t.Errorf("question %d was about %+v, want %s", i+1, p.Concrete, want)
		}
	}
	host.notAsked(t)
	if r.Success || r.Error == nil || *r.Error != string(toolapi.ActionFailed) || !strings.Contains(r.Message, "3 times") {
		t.Errorf("the page changed the option three times: success %v, error %v, %q", r.Success, r.Error, r.Message)
	}
	if text := getSnapshot(t, c).Text; strings.Contains(text, "tier-every") {
		t.Errorf("the page heard a choice:\n%s", text)
	}
}

// TestBindingKeysAreJudgedAsWhatTheyCommit: a rule that gates selecting a
// plan or filling an amount gates the keys that do the same: ArrowDown on
// the plan's select picks another option, and text typed key by key into
// the amount field fills it. Each asked nobody before.
func TestBindingKeysAreJudgedAsWhatTheyCommit(t *testing.T) {
	t.Parallel()
	base := bindingSite(t)
	c, host, _ := webhookServe(t, "--profile", bindingProfile(t), "--url", base+"/hostile/binding-plan")
	for _, tc := range []struct {
		name, role, field string
		args              map[string]any
	}{
		{"ArrowDown on the plan", "combobox", "Plan", map[string]any{"key": "ArrowDown"}},
		{"End on the plan", "combobox", "Plan", map[string]any{"key": "End"}},
		{"a letter on the plan", "combobox", "Plan", map[string]any{"key": "s"}},
		{"the amount typed", "textbox", "Amount", map[string]any{"text": "900"}},
		{"a digit of the amount", "textbox", "Amount", map[string]any{"key": "9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := getSnapshot(t, c)
			tc.args["ref"] = browsertest.Ref(t, s, tc.role, tc.field)
			shown, _ := keysRefused(t, c, host, toolapi.PressKey, tc.args)
			if shown.Concrete == nil || shown.Concrete.Name != tc.field {
				t.Errorf("the person was shown %+v, want the key on %s", shown.Concrete, tc.field)
			}
		})
	}
}
