package main

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestAttackWindowPersonsBrowser is issue 28's first acceptance item through
// the built binary: `serve --connect URL` on a Chromium started as the
// person's own browser, with two tabs of theirs open (one a half-filled
// form) on an origin of their own. A hostile page in the agent's window
// tries to reach them by their window names, by links' and forms' targets
// and by window.opener, and fails; their URLs and text appear in no result,
// log or audit record; the form stays half filled; their own navigation
// while the agent works is neither held nor judged (the agent's URL policy
// would refuse their origin); ending the session leaves their tabs and
// browser open.
func TestAttackWindowPersonsBrowser(t *testing.T) {
	t.Parallel()
	person := browsertest.StartPerson(t)
	site := leakServeSite(t)
	names := browsertest.PersonTabs[0].Name + "," + browsertest.PersonTabs[1].Name
	start := site.URL + "/hostile/window-escape?names=" + names + "&forbidden=" + url.QueryEscape(person.Site+"/forbidden")
	auditDir := filepath.Join(t.TempDir(), "audit")
	c, cmd, stderr := stdioClient(t, []string{ownBrowser}, "serve", "--connect", person.Chromium.HTTP,
		"--url", start, "--profile", "none", "--caps", "tabs,files", "--log-level", "debug", "--audit-dir", auditDir,
		"--allowed-origins-browse", site.URL)

	var seen []string
	record := func(name string, args map[string]any) {
		t.Helper()
		_, data := call(t, c, name, args)
		seen = append(seen, name+": "+data)
	}
	s := getSnapshot(t, c)
	if !strings.Contains(s.Page.URL, "/hostile/window-escape") {
		t.Fatalf("the session starts at %s", s.Page.URL)
	}
	r, _ := act(t, c, toolapi.Click, map[string]any{"ref": browsertest.Ref(t, s, "button", "Try")})
	seen = append(seen, "click: "+string(r.Snapshot)+r.Message)
	record(toolapi.Tabs, map[string]any{"action": "list"})
	record(toolapi.Tabs, map[string]any{"action": "select", "index": 0})
	record(toolapi.Screenshot, map[string]any{})
	s = getSnapshot(t, c)
	if !strings.Contains(s.Text, "done") || strings.Contains(s.Text, "reached") || !strings.Contains(s.Text, "Opener: none") {
		t.Errorf("the hostile page's attempts went somewhere:\n%s", s.Text)
	}

	// The agent works in a window of the person's browser, marked for them.
	if titles, _ := person.Pages(t); !slices.Contains(titles, browser.WindowMark+"Unmarked") {
		t.Errorf("no window of the person's browser is the agent's, marked: %q", titles)
	}

	// The person keeps working meanwhile: their own navigation, to an
	// origin the agent's policy would refuse, goes through.
	person.Navigate(t, 1, "/person/later")
	if n := person.Hits("/person/later"); n != 1 {
		t.Errorf("the person's own navigation was held or refused (%d requests)", n)
	}
	// And a tab they open from theirs stays theirs.
	person.OpenPopup(t, 0)
	record(toolapi.Tabs, map[string]any{"action": "list"})
	record(toolapi.Screenshot, map[string]any{})

	for i, want := range []string{"/person/mail", "/person/later"} {
		href, name, note := person.State(t, i)
		if !strings.HasSuffix(href, want) || name != browsertest.PersonTabs[i].Name || note != browsertest.PersonNote {
			t.Errorf("the person's tab %d changed: %s name %q note %q", i, href, name, note)
		}
	}

	// Ending the session (the client goes) leaves the person's tabs and
	// browser as they were, and none of the agent's pages.
	c.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not end with its client")
	}
	titles, urls := person.Pages(t)
	for i := 0; i < 100 && marked(titles); i++ {
		time.Sleep(50 * time.Millisecond)
		titles, urls = person.Pages(t)
	}
	all := strings.Join(urls, " ")
	if marked(titles) || !strings.Contains(all, person.Site+"/person/mail") || !strings.Contains(all, person.Site+"/person/later") {
		t.Errorf("after the session the person's browser has %q %q, want their two tabs and none of the agent's", titles, urls)
	}
	if _, _, note := person.State(t, 0); note != browsertest.PersonNote {
		t.Errorf("the person's half-filled form lost its text: %q", note)
	}

	// Nothing of theirs in any result, log line or audit record.
	var records []string
	filepath.WalkDir(auditDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			records = append(records, string(data))
		}
		return nil
	})
	if len(records) == 0 {
		t.Error("no audit record was written")
	}
	for what, text := range map[string]string{"results": strings.Join(seen, "\n"), "log": stderr.String(), "audit": strings.Join(records, "\n")} {
		for _, leak := range []string{browsertest.PersonText, "/person/", "Person /"} {
			if strings.Contains(text, leak) {
				t.Errorf("the %s hold the person's %q", what, leak)
			}
		}
	}
}

// marked reports whether a title is one of the agent's window.
func marked(titles []string) bool {
	for _, title := range titles {
		if strings.HasPrefix(title, browser.WindowMark) {
			return true
		}
	}
	return false
}
