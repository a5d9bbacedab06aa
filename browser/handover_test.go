package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// personTab opens a tab of the person's in the browser's default context,
// as the person would, through DevTools' HTTP endpoint, and returns its id.
func personTab(t *testing.T, c *browsertest.Chromium, u string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, c.HTTP+"/json/new?"+url.QueryEscape(u), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var in struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&in); err != nil || in.ID == "" {
		t.Fatalf("open the person's tab: %v %q", err, in.ID)
	}
	return in.ID
}

// openTargets are the ids of the browser's pages, as DevTools lists them.
func openTargets(t *testing.T, c *browsertest.Chromium) []string {
	t.Helper()
	resp, err := http.Get(c.HTTP + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []struct{ ID, Type string }
	json.NewDecoder(resp.Body).Decode(&list)
	var ids []string
	for _, l := range list {
		ids = append(ids, l.ID)
	}
	return ids
}

func personTabIDs(tabs []browser.PersonTab) []string {
	var ids []string
	for _, p := range tabs {
		ids = append(ids, p.ID)
	}
	return ids
}

// TestHandOver is issue 28's tab picker, the browser's side: the person's
// own tabs are listed (the sessions' pages never), one handed over becomes
// the session's current page and leaves the list, no other session can
// take it, a page that is no tab of the person's cannot be handed over,
// and ending the session leaves the person's tab open.
func TestHandOver(t *testing.T) {
	t.Parallel()
	chromium := browsertest.StartChromium(t, 0)
	b := browsertest.NewBrowser(t, browser.Options{CDPEndpoint: chromium.WebSocket, Attached: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	site := browsertest.Site(t)
	mine := personTab(t, chromium, site+"/variants/form")
	agent := browsertest.TabOf(t, b)
	other := browsertest.TabOf(t, b)
	if err := agent.Navigate(ctx, site+"/"); err != nil {
		t.Fatal(err)
	}

	tabs, err := b.PersonTabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(personTabIDs(tabs), mine) {
		t.Fatalf("the person's tab is not listed: %+v", tabs)
	}
	for _, p := range tabs {
		if p.URL == site+"/" {
			t.Errorf("a session's page is listed as the person's: %+v", p)
		}
	}

	for _, bad := range []string{"", "no-such-target", "../" + mine} {
		if _, err := agent.HandOver(ctx, bad); !errors.Is(err, browser.ErrNotPersonTab) {
			t.Errorf("HandOver(%q) = %v, want ErrNotPersonTab", bad, err)
		}
	}
	info, err := agent.HandOver(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Current || info.URL != site+"/variants/form" {
		t.Errorf("the handed page: %+v", info)
	}
	if cur := agent.Current(); cur.URL != site+"/variants/form" || len(agent.Pages()) != 2 {
		t.Errorf("the session's current page %+v of %d", cur, len(agent.Pages()))
	}
	if _, err := other.HandOver(ctx, mine); !errors.Is(err, browser.ErrNotPersonTab) {
		t.Errorf("a second session took the handed tab: %v", err)
	}
	tabs, _ = b.PersonTabs(ctx)
	if slices.Contains(personTabIDs(tabs), mine) {
		t.Error("the handed tab is still listed as the person's")
	}
	// The session acts in it as in its own pages.
	if err := agent.Navigate(ctx, site+"/account"); err != nil || agent.Current().URL != site+"/account" {
		t.Fatalf("navigate in the handed tab: %v at %s", err, agent.Current().URL)
	}

	if err := agent.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(openTargets(t, chromium), mine) {
		t.Error("ending the session closed the person's tab")
	}
	tabs, _ = b.PersonTabs(ctx)
	if !slices.Contains(personTabIDs(tabs), mine) {
		t.Error("the tab is not the person's again once the session ended")
	}
}

// TestPersonTabsOnlyAttached: an isolated browser has no tabs of the
// person's to list or hand over.
func TestPersonTabsOnlyAttached(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	if _, err := tab.PersonTabs(t.Context()); !errors.Is(err, browser.ErrNotAttached) {
		t.Errorf("PersonTabs = %v, want ErrNotAttached", err)
	}
	if _, err := tab.HandOver(t.Context(), "x"); !errors.Is(err, browser.ErrNotAttached) {
		t.Errorf("HandOver = %v, want ErrNotAttached", err)
	}
}

// TestHandOverGuarded: a tab the person hands over is under the URL policy
// as the agent's own window is, from the moment the agent may act in it,
// and once the session leaves it the person's own navigations there are
// theirs again, judged by nothing.
func TestHandOverGuarded(t *testing.T) {
	t.Parallel()
	person := browsertest.StartPerson(t)
	const forbidden = "/person/forbidden"
	b := browsertest.NewBrowser(t, browser.Options{
		CDPEndpoint: person.Chromium.WebSocket, Attached: true,
		DocumentPolicy: func(_ context.Context, u string) error {
			if strings.Contains(u, forbidden) {
				return errors.New("forbidden is refused")
			}
			return nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	agent := browsertest.TabOf(t, b)
	tabs, err := b.PersonTabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tabs, func(p browser.PersonTab) bool {
		return strings.HasSuffix(p.URL, browsertest.PersonTabs[0].Path)
	})
	if i < 0 {
		t.Fatalf("the person's tab is not listed: %+v", tabs)
	}
	if _, err := agent.HandOver(ctx, tabs[i].ID); err != nil {
		t.Fatal(err)
	}
	if err := agent.Navigate(ctx, person.Site+forbidden); err == nil {
		t.Error("the agent navigated the handed tab to a refused URL")
	}
	if n := person.Hits(forbidden); n != 0 {
		t.Errorf("a refused URL was requested %d times from the handed tab", n)
	}
	if err := agent.Close(); err != nil {
		t.Fatal(err)
	}
	person.Navigate(t, 0, forbidden)
	if n := person.Hits(forbidden); n != 1 {
		t.Errorf("the person's own navigation, after the session left their tab: %d requests, want 1", n)
	}
	if href, _, note := person.State(t, 0); !strings.HasSuffix(href, forbidden) || note != browsertest.PersonNote {
		t.Errorf("the person's tab after the session left it: %s %q", href, note)
	}
}

// TestHandOverLeavesTitle: once the session leaves a tab the person handed
// over, the tab's title is the page's own again, and stays so as the page
// changes it: the mark and what keeps it there leave with the session.
func TestHandOverLeavesTitle(t *testing.T) {
	t.Parallel()
	person := browsertest.StartPerson(t)
	b := browsertest.NewBrowser(t, browser.Options{CDPEndpoint: person.Chromium.WebSocket, Attached: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	agent := browsertest.TabOf(t, b)
	tabs, err := b.PersonTabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tabs, func(p browser.PersonTab) bool {
		return strings.HasSuffix(p.URL, browsertest.PersonTabs[0].Path)
	})
	if i < 0 {
		t.Fatalf("the person's tab is not listed: %+v", tabs)
	}
	if _, err := agent.HandOver(ctx, tabs[i].ID); err != nil {
		t.Fatal(err)
	}
	var title string
	person.Eval(t, 0, `document.title`, &title)
	if !strings.HasPrefix(title, browser.WindowMark) {
		t.Fatalf("the handed tab is not marked: %q", title)
	}
	if err := agent.Close(); err != nil {
		t.Fatal(err)
	}
	person.Eval(t, 0, `document.title`, &title)
	if title != "Person "+browsertest.PersonTabs[0].Path {
		t.Errorf("the person's title once the session left: %q", title)
	}
	// The page's own change of title, after the session left, stays its own.
	person.Eval(t, 0, `document.title = 'Inbox (3)'; new Promise(r => setTimeout(() => r(document.title), 50))`, &title)
	if title != "Inbox (3)" {
		t.Errorf("the page's own title once the session left: %q", title)
	}
}
