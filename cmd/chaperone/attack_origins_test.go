package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
	"github.com/mark3labs/mcp-go/client"
)

// The hostile pages of issue 23's origin sets: the task starts on
// originsStart (127.0.0.1), whose link "Partner sign-up" leads to
// originsForm on localhost, another site; originsFramed frames that form.
const (
	originsStart  = "/hostile/origins-start"
	originsFramed = "/hostile/origins-framed"
	// originsOtherSite is the site of the form, as the person is told.
	originsOtherSite = "http://localhost"
	originsEmail     = "member@example.com"
)

// originsToForm follows the start page's link to the other site's form,
// which asks nobody: a link is a read.
func originsToForm(t *testing.T, c *client.Client, host *approvalHost) *snapshot.Snapshot {
	t.Helper()
	s := getSnapshot(t, c)
	r, s := click(t, c, browsertest.Ref(t, s, "link", "Partner sign-up"))
	if !r.Success || !strings.HasPrefix(s.Page.URL, "http://localhost:") || !strings.Contains(s.Page.URL, "/hostile/origins-form") {
		t.Fatalf("follow the link: %v %q at %s", r.Error, r.Message, s.Page.URL)
	}
	host.notAsked(t)
	return s
}

// originsAskedAbout checks that the person was asked about writing on the
// other site, the prompt naming it: doing names the write ("typing"), and
// says "to" when a form is sent there from elsewhere.
func originsAskedAbout(t *testing.T, host *approvalHost, doing string) {
	t.Helper()
	p := host.asked(t)
	text := p.Prompt + "\n" + strings.Join(p.Lines, "\n")
	if !strings.Contains(doing, " to") {
		doing += " on"
	}
	for _, want := range []string{doing + " " + originsOtherSite + ", a site outside this task's write set", originsOtherSite + ", a site outside this task's write set. Approve?"} {
		if !strings.Contains(text, want) {
			t.Errorf("the person is not told %q:\n%s", want, text)
		}
	}
	if p.Site != originsOtherSite {
		t.Errorf("the request names site %q, want %q", p.Site, originsOtherSite)
	}
}

// originsRejected checks that a call the person rejected did nothing.
func originsRejected(t *testing.T, r actionResult) {
	t.Helper()
	if r.Success || r.Error == nil || *r.Error != string(toolapi.HumanRejected) {
		t.Fatalf("a write the person rejected: success %v error %v %q", r.Success, r.Error, r.Message)
	}
}

// originsValue is the value of the element role/name holds in s.
func originsValue(t *testing.T, s *snapshot.Snapshot, role, name string) string {
	t.Helper()
	for _, e := range s.Elements {
		if e.Role == role && e.Name == name && e.Value != nil {
			return *e.Value
		}
	}
	return ""
}

// TestOriginsReadOnlySite reverses issue 23 item 1: the agent follows a
// link to another site and types into its form without anyone asked. Now
// every other site is read-only: typing, selecting, a key into a field and
// submitting the form there ask the person first, naming the site, and a
// rejection leaves the form as it was; the link there, a plain link and a
// plain button are reads, asked about by nobody, as is the form of the
// task's own site. The person may allow the site for this task: the next
// writes there are not asked about, and the audit log records the widening
// as a decision of its own.
func TestOriginsReadOnlySite(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, host, _ := webhookServe(t, "--url", site.URL+originsStart, "--audit-dir", auditDir)

	// The task's own site: its form is the task's to write.
	s := getSnapshot(t, c)
	r, s := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Note"), "value": "hello"})
	if !r.Success || originsValue(t, s, "textbox", "Note") != "hello" {
		t.Fatalf("fill on the start site: %v %q", r.Error, r.Message)
	}
	r, s = click(t, c, browsertest.Ref(t, s, "button", "Save note"))
	if !r.Success || !strings.Contains(s.Text, "Saved: hello") {
		t.Fatalf("submit on the start site: %v %q", r.Error, r.Message)
	}
	// A frame the start page wrote itself (about:srcdoc) is the start
	// site's: it inherits its origin.
	r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Greeting"), "value": "hi"})
	if !r.Success || originsValue(t, s, "textbox", "Greeting") != "hi" {
		t.Fatalf("fill in the start site's srcdoc frame: %v %q", r.Error, r.Message)
	}
	host.notAsked(t)

	// A form of the start site sent to the other site carries what it
	// holds there: submitting it asks, by a click or by Enter.
	r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Newsletter email"), "value": originsEmail})
	if !r.Success {
		t.Fatalf("fill the newsletter form: %v %q", r.Error, r.Message)
	}
	host.notAsked(t)
	for _, send := range []struct {
		tool, role, name string
		args             map[string]any
	}{
		{toolapi.Click, "button", "Get updates", nil},
		{toolapi.Click, "button", "Learn more", nil}, // a label for a hidden submit
		{toolapi.PressKey, "textbox", "Newsletter email", map[string]any{"key": "Enter"}},
	} {
		args := map[string]any{"ref": browsertest.Ref(t, s, send.role, send.name)}
		for k, v := range send.args {
			args[k] = v
		}
		host.decisions <- map[string]any{"approved": false}
		r, s = act(t, c, send.tool, args)
		originsAskedAbout(t, host, "submitting a form to")
		originsRejected(t, r)
		if !strings.Contains(s.Page.URL, originsStart) || site.saw("email=member") {
			t.Fatalf("the rejected %s sent the form: at %s", send.tool, s.Page.URL)
		}
	}

	s = originsToForm(t, c, host)
	for _, tc := range []struct {
		name, tool, role, label, doing string
		args                           map[string]any
	}{
		{"fill", toolapi.Fill, "textbox", "Email", "typing", map[string]any{"value": originsEmail}},
		{"select", toolapi.Select, "combobox", "Plan", "selecting an option", map[string]any{"value": "gold"}},
		{"key into the field", toolapi.PressKey, "textbox", "Email", "pressing keys into a field", map[string]any{"key": "a"}},
		{"submit", toolapi.Click, "button", "Join", "submitting a form", nil},
		{"a label for the submit control", toolapi.Click, "button", "Read more", "submitting a form", nil},
		{"fill in the other site's srcdoc frame", toolapi.Fill, "textbox", "Comment", "typing", map[string]any{"value": originsEmail}},
	} {
		t.Run(tc.name+" rejected", func(t *testing.T) {
			args := map[string]any{"ref": browsertest.Ref(t, s, tc.role, tc.label)}
			for k, v := range tc.args {
				args[k] = v
			}
			host.decisions <- map[string]any{"approved": false, "feedback": "not on that site"}
			r, after := act(t, c, tc.tool, args)
			originsAskedAbout(t, host, tc.doing)
			originsRejected(t, r)
			for _, field := range []string{"Email", "Comment"} {
				if v := originsValue(t, after, "textbox", field); v != "" {
					t.Errorf("the %s field holds %q after a rejection", field, v)
				}
			}
			if strings.Contains(after.Text, "Joined") {
				t.Errorf("the form was submitted after a rejection:\n%s", after.Text)
			}
			if v := originsValue(t, after, "combobox", "Plan"); v != "" && v != "Free" && v != "free" {
				t.Errorf("the plan is %q after a rejection", v)
			}
			s = after
		})
	}

	// Reads on the other site ask nobody.
	r, s = click(t, c, browsertest.Ref(t, s, "link", "Read the terms"))
	if !r.Success {
		t.Fatalf("a plain link: %v %q", r.Error, r.Message)
	}
	r, s = click(t, c, browsertest.Ref(t, s, "button", "Show details"))
	if !r.Success || !strings.Contains(s.Text, "Details shown") {
		t.Fatalf("a plain button: %v %q", r.Error, r.Message)
	}
	host.notAsked(t)

	// The person allows the site for this task.
	host.decisions <- map[string]any{"approved": true, "widen_site": originsOtherSite}
	r, s = act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": originsEmail})
	allowed := host.asked(t)
	if !r.Success || originsValue(t, s, "textbox", "Email") != originsEmail {
		t.Fatalf("the allowed fill: %v %q", r.Error, r.Message)
	}
	r, s = act(t, c, toolapi.Select, map[string]any{"ref": browsertest.Ref(t, s, "combobox", "Plan"), "value": "gold"})
	if !r.Success {
		t.Fatalf("a select on the allowed site: %v %q", r.Error, r.Message)
	}
	r, s = click(t, c, browsertest.Ref(t, s, "button", "Join"))
	if !r.Success || !strings.Contains(s.Text, "Joined: "+originsEmail+" gold") {
		t.Fatalf("submit on the allowed site: %v %q", r.Error, r.Message)
	}
	host.notAsked(t)

	var widened map[string]any
	for deadline := time.Now().Add(10 * time.Second); widened == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, ev := range auditEvents(t, auditDir) {
			if ev["event"] == "write_set_widened" {
				widened = ev
			}
		}
	}
	if widened == nil || widened["site"] != originsOtherSite || widened["id"] != allowed.ID || widened["channel"] != "webhook" {
		t.Fatalf("the audit log's widening: %v (request %s)", widened, allowed.ID)
	}
}

// TestOriginsCrossSiteFrame: a form of another site framed in a page of the
// task's own site is that other site's: typing into it asks the person,
// naming the frame's site, not the page's.
func TestOriginsCrossSiteFrame(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	c, host, _ := webhookServe(t, "--url", site.URL+originsFramed)
	s := getSnapshot(t, c)
	host.decisions <- map[string]any{"approved": false}
	r, after := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": originsEmail})
	originsAskedAbout(t, host, "typing")
	originsRejected(t, r)
	if v := originsValue(t, after, "textbox", "Email"); v != "" {
		t.Errorf("the framed email field holds %q after a rejection", v)
	}
}

// TestOriginsWriteSetFlags: a site the write set holds (--write-origins),
// or a session with checkpoints off (--profile none), types on the other
// site without asking anyone.
func TestOriginsWriteSetFlags(t *testing.T) {
	t.Parallel()
	site := leakServeSite(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"--write-origins names the site", []string{"--write-origins", site.Other}},
		{"--profile none", []string{"--profile", "none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, host, _ := webhookServe(t, append([]string{"--url", site.URL + originsStart}, tc.args...)...)
			s := originsToForm(t, c, host)
			r, s := act(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, s, "textbox", "Email"), "value": originsEmail})
			if !r.Success || originsValue(t, s, "textbox", "Email") != originsEmail {
				t.Fatalf("fill: %v %q", r.Error, r.Message)
			}
			host.notAsked(t)
		})
	}
}
