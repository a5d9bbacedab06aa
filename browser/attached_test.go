package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestAttachedWindow works in "the person's own browser" with a hostile
// page that tries to reach the person's tabs, and checks that the agent's
// session sees, touches and intercepts nothing of theirs, and that ending
// it leaves their tabs and browser open.
func TestAttachedWindow(t *testing.T) {
	person := browsertest.StartPerson(t)
	site := browsertest.Site(t)

	var askedMu sync.Mutex
	var asked []string
	policy := func(_ context.Context, u string) error {
		askedMu.Lock()
		asked = append(asked, u)
		askedMu.Unlock()
		x, err := url.Parse(u)
		if err != nil || x.Path == "/forbidden" || x.Hostname() == "localhost" {
			return errors.New("not on the allowed sites")
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{CDPEndpoint: person.Chromium.HTTP, Attached: true, DocumentPolicy: policy})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	// Two sessions at once, each in a window of its own.
	tab, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other, err := b.NewContext(ctx)
	if err != nil {
		t.Fatalf("a second session beside the first: %v", err)
	}
	if err := other.Navigate(ctx, site+"/help"); err != nil {
		t.Fatal(err)
	}

	forbidden := person.Site + "/forbidden"
	if err := tab.Navigate(ctx, site+"/help"); err != nil {
		t.Fatal(err)
	}
	page := site + "/hostile/window-escape?names=person-mail,person-bank,&forbidden=" + url.QueryEscape(forbidden)
	if err := tab.Navigate(ctx, page); err != nil {
		t.Fatal(err)
	}
	// The agent clicks Try: the page tries every way out it knows.
	if _, err := tab.Settle(ctx, func(c context.Context) error { return tab.Click(c, 40, 130) }, browser.Wait{Quiet: 100 * time.Millisecond, Limit: 10 * time.Second, Navigation: 10 * time.Second}); err != nil {
		t.Logf("clicking Try: %v", err)
	}
	if err := tab.SwitchTo(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if ok, err := tab.WaitForText(ctx, "done", false, 20*time.Second); err != nil || !ok {
		t.Fatalf("the hostile page did not finish its attempts: %v", err)
	}
	// A click on its link opens a popup (a user gesture gets past the
	// popup blocker) to a URL the policy refuses: its first request is
	// judged, and never sent.
	if _, err := tab.Settle(ctx, func(c context.Context) error { return tab.Click(c, 40, 40) }, browser.Wait{Quiet: 100 * time.Millisecond, Limit: 10 * time.Second, Navigation: 10 * time.Second}); err != nil {
		t.Logf("clicking the forbidden link: %v", err)
	}
	var blocked []browser.Blocked
	for i := 0; i < 50 && !refused(blocked, "/forbidden"); i++ {
		blocked = append(blocked, tab.TakeBlocked(ctx)...)
		_ = tab.WaitQuiet(ctx, 50*time.Millisecond, time.Second)
	}
	if !refused(blocked, "/forbidden") {
		t.Errorf("the popup to a refused URL was not reported refused: %+v", blocked)
	}
	// The popup is held until its guard is up: its first request is
	// judged before it is sent, and never reaches the other site.
	if n := person.Hits("/forbidden"); n != 0 {
		t.Errorf("the refused popup's first request reached the other site %d times", n)
	}

	// The person keeps working while the agent does: their navigation to
	// an origin the agent's policy refuses goes through, unjudged.
	person.Navigate(t, 1, "/person/later")
	if n := person.Hits("/person/later"); n != 1 {
		t.Errorf("the person's own navigation was held or refused (hits %d)", n)
	}

	// A tab the person opens from theirs is theirs: it joins no session.
	person.OpenPopup(t, 0)

	// The person's tabs are as they were.
	for i, want := range []string{"/person/mail", "/person/later"} {
		href, name, note := person.State(t, i)
		if !strings.HasSuffix(href, want) || note != browsertest.PersonNote || name != browsertest.PersonTabs[i].Name {
			t.Errorf("the person's tab %d changed: %s name=%q note=%q", i, href, name, note)
		}
	}
	askedMu.Lock()
	for _, u := range asked {
		if strings.Contains(u, "/person/") {
			t.Errorf("the policy was asked about the person's request %s", u)
		}
	}
	askedMu.Unlock()

	// Nothing of theirs in what the agent's session reads.
	for _, tb := range []*browser.Context{tab, other} {
		for _, pi := range tb.Pages() {
			if strings.Contains(pi.URL, "/person/") || strings.Contains(pi.Title, "Person") {
				t.Errorf("a page of the person's is among the session's pages: %+v", pi)
			}
			if strings.HasPrefix(pi.Title, browser.WindowMark) {
				t.Errorf("the window's mark reached the session: %q", pi.Title)
			}
		}
		capt, err := tb.Capture(ctx, browser.CaptureOptions{Screenshot: true})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(capt)
		if strings.Contains(string(data), browsertest.PersonText) || strings.Contains(string(data), "/person/") {
			t.Errorf("a capture of the session holds the person's tab")
		}
	}
	var result string
	if err := tab.Evaluate(ctx, `document.getElementById('result').textContent + ' opener=' + document.getElementById('opener').textContent`, &result); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(result, "opener=none") || strings.Contains(result, "reached") {
		t.Errorf("the hostile page got somewhere: %s", result)
	}

	// The window is marked for the person, and the page cannot take the
	// mark off (it set its title to "Unmarked").
	marked := false
	for i := 0; i < 50 && !marked; i++ {
		titles, _ := person.Pages(t)
		for _, title := range titles {
			marked = marked || title == browser.WindowMark+"Unmarked"
		}
		if !marked {
			_ = tab.WaitQuiet(ctx, 50*time.Millisecond, time.Second)
		}
	}
	if !marked {
		titles, _ := person.Pages(t)
		t.Errorf("the agent's window is not marked: %q", titles)
	}
	if got := tab.Current().Title; got != "Unmarked" {
		t.Errorf("the session reads its title as %q, want the page's own", got)
	}

	// Downloads are refused: where the person's browser saves files is
	// theirs, and not changed for the session.
	if _, err := tab.Settle(ctx, func(c context.Context) error { return tab.Go(c, site+"/download?name=report.csv") },
		browser.Wait{Quiet: 50 * time.Millisecond, Limit: 5 * time.Second, Navigation: 10 * time.Second}); err != nil {
		t.Logf("navigating to a download: %v", err)
	}
	if got := tab.TakeBlocked(ctx); !refused(got, "/download") || !strings.Contains(got[len(got)-1].Reason, "downloads are off") {
		t.Errorf("a download in the person's browser was not refused: %+v", got)
	}

	// The person's profile is theirs: no storage state in or out.
	if err := tab.LoadStorageState(ctx, browser.StorageState{}); !errors.Is(err, browser.ErrAttachedStorage) {
		t.Errorf("loading a storage state into the person's browser: %v, want ErrAttachedStorage", err)
	}
	if _, err := tab.StorageState(ctx); !errors.Is(err, browser.ErrAttachedStorage) {
		t.Errorf("reading the person's storage state: %v, want ErrAttachedStorage", err)
	}

	// Ending the sessions closes their windows and popups, and nothing else.
	if err := tab.Close(); err != nil {
		t.Error(err)
	}
	if err := other.Close(); err != nil {
		t.Error(err)
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	// Chromium answers Target.closeTarget before the page is gone.
	agentLeft := func(titles, urls []string) bool {
		for _, title := range titles {
			if strings.HasPrefix(title, browser.WindowMark) {
				return true
			}
		}
		return false
	}
	titles, urls := person.Pages(t)
	for i := 0; i < 200 && agentLeft(titles, urls); i++ {
		time.Sleep(50 * time.Millisecond)
		titles, urls = person.Pages(t)
	}
	all := strings.Join(urls, " ")
	if agentLeft(titles, urls) || !strings.Contains(all, person.Site+"/person/mail") || !strings.Contains(all, person.Site+"/person/later") {
		t.Errorf("after the sessions ended the person's browser has pages %q %q, want their two tabs and none of the agent's", titles, urls)
	}
	for i := range browsertest.PersonTabs {
		if href, _, note := person.State(t, i); note != browsertest.PersonNote {
			t.Errorf("the person's tab %s lost its half-filled form", href)
		}
	}
}

func refused(list []browser.Blocked, part string) bool {
	for _, b := range list {
		if strings.Contains(b.URL, part) {
			return true
		}
	}
	return false
}

// An action's document check (WatchDocuments) judges the documents of its
// own tab only, and the refusals go to that tab: in a launched browser and
// in the person's own, where two sessions share one browser context.
func TestWatchDocumentsModes(t *testing.T) {
	site := browsertest.Site(t)
	for _, mode := range []string{"isolated", "attached"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBrowser(t, mode, browser.Options{DocumentPolicy: func(context.Context, string) error { return nil }})
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			watched, other := browsertest.TabOf(t, b), browsertest.TabOf(t, b)
			var seen []browser.Document
			stop := watched.WatchDocuments(func(d browser.Document) error {
				seen = append(seen, d)
				if strings.Contains(d.URL, "/help") {
					return errors.New("not this one")
				}
				return nil
			})
			defer stop()
			if err := other.Navigate(ctx, site+"/account"); err != nil {
				t.Errorf("the other tab's navigation was judged by this tab's check: %v", err)
			}
			if got := other.TakeBlocked(ctx); len(got) != 0 {
				t.Errorf("the other tab got refusals %+v", got)
			}
			if err := watched.Navigate(ctx, site+"/help"); err == nil || !strings.Contains(err.Error(), "not this one") {
				t.Errorf("the watched tab's navigation: %v, want its check's refusal", err)
			}
			if len(seen) == 0 || !seen[0].Main {
				t.Errorf("the check saw %+v, want the watched tab's own navigation, as its main frame's", seen)
			}
			for _, d := range seen {
				if !strings.Contains(d.URL, "/help") {
					t.Errorf("the check judged %s, not its tab's", d.URL)
				}
			}
		})
	}
}
