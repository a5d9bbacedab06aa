package approver

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// tabsWheel is a session in the person's own browser: a wheel with the
// person's tabs.
type tabsWheel struct {
	fakeWheel
	mu     sync.Mutex
	tabs   []PersonTab
	handed []string
}

func (w *tabsWheel) PersonTabs(context.Context) ([]PersonTab, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.tabs), nil
}

func (w *tabsWheel) HandOver(_ context.Context, id string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := slices.IndexFunc(w.tabs, func(t PersonTab) bool { return t.ID == id })
	if i < 0 {
		return errors.New("not one of the person's own tabs\x1b[2J")
	}
	w.handed = append(w.handed, id)
	w.tabs = slices.Delete(w.tabs, i, i+1)
	return nil
}

// TestTabPicker: the console lists the person's tabs escaped (markup,
// control characters, look-alike hosts), behind the session's capability,
// and hands the one the person picks to that session; a page of another
// site cannot, and a session not in the person's browser has no picker.
func TestTabPicker(t *testing.T) {
	t.Parallel()
	w, _ := startWeb(t)
	wh := &tabsWheel{tabs: []PersonTab{
		{ID: "T1", Title: "<script>alert(1)</script>\u202eBank", URL: "https://аpple.com/account"},
		{ID: "T2", Title: "Mail", URL: "https://mail.example/inbox"},
	}}
	view, err := w.Attach("sess-1", wh)
	if err != nil {
		t.Fatal(err)
	}
	code, body, hdr := get(t, view+"tabs")
	if code != 200 || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("tabs page: %d %v", code, hdr)
	}
	for _, bad := range []string{"<script>alert", "\u202e", "аpple"} {
		if strings.Contains(body, bad) {
			t.Errorf("the tabs page holds %q", bad)
		}
	}
	for _, want := range []string{"https://xn--pple-43d.com/account", `value="T2"`, "Hand to the agent", `\u202eBank`} {
		if !strings.Contains(body, want) {
			t.Errorf("the tabs page lacks %q:\n%s", want, body)
		}
	}
	if code, _, _ := get(t, "http://"+w.Addr()+"/not-a-capability/tabs"); code != http.StatusNotFound {
		t.Error("no capability, yet the tabs page")
	}

	// Another site's page posts a hand-over: refused.
	req, _ := http.NewRequest(http.MethodPost, view+"tabs/handover", strings.NewReader("id=T2"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a cross-site hand-over: %v %v", resp, err)
	}
	resp, err = http.PostForm(view+"tabs/handover", url.Values{"id": {"T2"}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("hand over: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, _ = http.PostForm(view+"tabs/handover", url.Values{"id": {"T9"}})
	resp.Body.Close()
	if !slices.Equal(wh.handed, []string{"T2"}) {
		t.Errorf("handed %v, want T2 only", wh.handed)
	}

	// A session that is not in the person's browser has no picker.
	w.Attach("sess-2", &fakeWheel{})
	view2, _ := w.URL("sess-2")
	if code, _, _ := get(t, view2+"tabs"); code != http.StatusNotFound {
		t.Errorf("a session without tabs of the person's: %d", code)
	}
}
