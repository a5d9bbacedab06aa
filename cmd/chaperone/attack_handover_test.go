package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

var tabPickerURL = regexp.MustCompile(`Tab picker \(hand one of your own tabs to the agent\): (http://127\.0\.0\.1:\d+/[^/\s]+/tabs)`)

// TestTabPicker is issue 28's tab picker through the built binary: in the
// person's own browser (--connect), the console lists the person's tab
// (never the agent's page) for the person, and the one they hand over
// becomes the agent's current page; the agent saw nothing of it before.
func TestTabPicker(t *testing.T) {
	t.Parallel()
	chromium := browsertest.StartChromium(t, 0)
	site := leakServeSite(t)
	const personPage = "/variants/form"
	req, _ := http.NewRequest(http.MethodPut, chromium.HTTP+"/json/new?"+url.QueryEscape(site.URL+personPage), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var mine struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&mine)
	resp.Body.Close()

	c, _, stderr := stdioClient(t, nil, "serve", "--connect", chromium.WebSocket, "--url", site.URL+originsStart, "--approver", "web", "--open-approvals=false")
	s := getSnapshot(t, c)
	if strings.Contains(s.Page.URL, personPage) || strings.Contains(s.Text, "variants/form") {
		t.Fatalf("the agent sees the person's tab before it is handed over: %s", s.Page.URL)
	}
	var picker string
	for deadline := time.Now().Add(30 * time.Second); picker == ""; time.Sleep(50 * time.Millisecond) {
		if m := tabPickerURL.FindStringSubmatch(stderr.String()); m != nil {
			picker = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no tab picker address on stderr:\n%s", stderr)
		}
	}
	resp, err = http.Get(picker)
	if err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	buf := make([]byte, 1<<16)
	for n, err := resp.Body.Read(buf); n > 0 || err == nil; n, err = resp.Body.Read(buf) {
		page.Write(buf[:n])
	}
	resp.Body.Close()
	if !strings.Contains(page.String(), site.URL+personPage) || !strings.Contains(page.String(), `value="`+mine.ID+`"`) {
		t.Fatalf("the picker does not list the person's tab:\n%s", page.String())
	}
	if strings.Contains(page.String(), "origins-start") {
		t.Errorf("the picker lists the agent's own page as the person's:\n%s", page.String())
	}

	resp, err = http.PostForm(strings.TrimSuffix(picker, "tabs")+"tabs/handover", url.Values{"id": {mine.ID}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s = getSnapshot(t, c)
	if !strings.HasSuffix(s.Page.URL, personPage) {
		t.Fatalf("after the hand-over the agent is at %s, want the person's tab", s.Page.URL)
	}
}

// TestTabPickerHidesConsole: the console's own pages, open in the person's
// browser, are not the person's tabs to hand over. Listed and handed over,
// the console's page (its URL the session's capability) would become the
// agent's current page: the capability in the hand-back note and the log,
// and the agent able to press Approve on its own requests.
func TestTabPickerHidesConsole(t *testing.T) {
	t.Parallel()
	chromium := browsertest.StartChromium(t, 0)
	site := leakServeSite(t)
	c, _, stderr := stdioClient(t, nil, "serve", "--connect", chromium.WebSocket, "--url", site.URL+originsStart, "--approver", "web", "--open-approvals=false")
	getSnapshot(t, c)
	var picker string
	for deadline := time.Now().Add(30 * time.Second); picker == ""; time.Sleep(50 * time.Millisecond) {
		if m := tabPickerURL.FindStringSubmatch(stderr.String()); m != nil {
			picker = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no tab picker address on stderr:\n%s", stderr)
		}
	}
	console := strings.TrimSuffix(picker, "tabs")
	told := strings.Count(stderr.String(), console)
	capability := strings.Trim(strings.TrimPrefix(console, "http://"), "/")
	capability = capability[strings.Index(capability, "/")+1:]
	for _, tc := range []struct{ name, url string }{
		{"approvals page", console},
		{"tab picker", picker},
		{"live view", console + "live"},
		{"localhost spelling", strings.Replace(console, "127.0.0.1", "localhost", 1)},
		{"view-source", "view-source:" + console + "tabs?x=1"},
		{"trailing dot and query", strings.Replace(console, "127.0.0.1", "localhost.", 1) + "api/pending?a=b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPut, chromium.HTTP+"/json/new?"+url.QueryEscape(tc.url), nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var tab struct{ ID string }
			json.NewDecoder(resp.Body).Decode(&tab)
			resp.Body.Close()
			code, page := getPage(t, picker)
			if code != http.StatusOK || strings.Contains(page, tab.ID) || strings.Contains(page, capability) {
				t.Errorf("the picker lists the console's own page %s (status %d):\n%s", tc.url, code, page)
			}
			resp, err = http.PostForm(console+"tabs/handover", url.Values{"id": {tab.ID}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if s := getSnapshot(t, c); strings.Contains(s.Page.URL, capability) {
				t.Fatalf("the console's page was handed to the agent: its current page is %s", s.Page.URL)
			}
			if strings.Count(stderr.String(), capability) > told {
				t.Errorf("the capability reached the log beyond the person's addresses:\n%s", stderr)
			}
		})
	}
}
