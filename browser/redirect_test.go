package browser_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// GoChecked judges each server redirect of the navigation before the
// browser follows it: a refused hop is never requested, the page stays,
// and the tab gets the refusal. The URL navigated to itself, a plain Go
// and a hop the check allows are not refused.
func TestGoCheckedRedirects(t *testing.T) {
	site := browsertest.Site(t)
	b := browsertest.NewBrowser(t, browser.Options{DocumentPolicy: func(context.Context, string) error { return nil }})
	tab := browsertest.TabOf(t, b)
	if err := tab.Navigate(t.Context(), site+"/account"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var judged []string
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), judged...)
	}
	check := func(u string) error {
		mu.Lock()
		defer mu.Unlock()
		judged = append(judged, u)
		if strings.Contains(u, "secret") {
			return errors.New("that hop sends the secret")
		}
		return nil
	}
	tests := []struct {
		name, url string
		refused   bool
	}{
		{"a refused hop", site + "/redirect?to=" + url.QueryEscape("/help?secret=1"), true},
		{"the second hop refused", site + "/redirect?to=" + url.QueryEscape("/redirect?to="+url.QueryEscape("/help?secret=2")), true},
		{"an allowed hop", site + "/redirect?to=" + url.QueryEscape("/help?plain=1"), false},
		{"no redirect, though the URL itself would be refused", site + "/help?secret=3", false},
	}
	for _, tt := range tests {
		mu.Lock()
		judged = judged[:0]
		mu.Unlock()
		tab.TakeBlocked(t.Context())
		err := tab.GoChecked(t.Context(), tt.url, check)
		blocked := tab.TakeBlocked(t.Context())
		if tt.refused {
			if err == nil {
				t.Errorf("%s: GoChecked succeeded", tt.name)
			}
			if len(blocked) != 1 || blocked[0].Reason != "that hop sends the secret" || !blocked[0].Page {
				t.Errorf("%s: blocked %+v (err %v), want the hop refused with the check's reason", tt.name, blocked, err)
			}
			if !strings.HasSuffix(tab.URL(), "/account") {
				t.Errorf("%s: the page moved to %s", tt.name, tab.URL())
			}
			continue
		}
		if err != nil || len(blocked) > 0 {
			t.Errorf("%s: err %v, blocked %+v", tt.name, err, blocked)
		}
		if strings.Contains(tt.name, "no redirect") && len(seen()) > 0 {
			t.Errorf("%s: the check judged %q, which is no redirect", tt.name, seen())
		}
		if err := tab.Navigate(t.Context(), site+"/account"); err != nil {
			t.Fatal(err)
		}
	}
	// Go alone judges nothing: the check is gone once GoChecked returns.
	mu.Lock()
	judged = judged[:0]
	mu.Unlock()
	if err := tab.Navigate(t.Context(), site+"/redirect?to="+url.QueryEscape("/help?secret=4")); err != nil || len(seen()) > 0 {
		t.Errorf("a plain navigation after GoChecked: err %v, judged %q", err, seen())
	}
}
