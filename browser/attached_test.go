package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// personText is in the person's own tabs only: it must reach nothing the
// agent's session reads.
const personText = "PERSON-ONLY-TEXT-7731"

// personBrowser is a Chromium started as the person's own browser (its own
// profile, remote debugging on) with two tabs of the person's open on a
// second loopback origin: a half-filled form named person-mail, and an
// inbox named person-bank. hits counts the requests of its server by path.
type personBrowser struct {
	chromium *browsertest.Chromium
	site     string // http://localhost:PORT, the person's origin
	hits     sync.Map
	tabs     []context.Context
}

func (p *personBrowser) hit(path string) int64 {
	v, ok := p.hits.Load(path)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

func startPersonBrowser(t *testing.T) *personBrowser {
	t.Helper()
	p := &personBrowser{chromium: browsertest.StartChromium(t, 0)}
	srv := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := p.hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Person %s</title><p>%s at %s</p>`+
			`<form><label>Note <input id="note" name="note"></label><button>Send</button></form>`,
			r.URL.Path, personText, r.URL.Path)
	}))
	p.site = strings.Replace(srv, "127.0.0.1", "localhost", 1)

	alloc, cancelAlloc := remote.NewAllocator(context.Background(), p.chromium.WebSocket)
	t.Cleanup(cancelAlloc)
	first, cancelFirst := chromedp.NewContext(alloc)
	t.Cleanup(cancelFirst)
	second, cancelSecond := chromedp.NewContext(first)
	t.Cleanup(cancelSecond)
	p.tabs = []context.Context{first, second}
	for i, tab := range p.tabs {
		// The first run on a chromedp context binds what it opens to it.
		if err := chromedp.Do(tab); err != nil {
			t.Fatalf("opening the person's tab %d: %v", i, err)
		}
		name := []string{"person-mail", "person-bank"}[i]
		path := []string{"/person/mail", "/person/bank"}[i]
		ctx, cancel := context.WithTimeout(tab, 30*time.Second)
		err := chromedp.Do(ctx, chromedp.Navigate(p.site+path))
		if err == nil {
			_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`window.name = %q; document.getElementById('note').value = 'half typed by the person'; true`, name)))
		}
		cancel()
		if err != nil {
			t.Fatalf("opening the person's tab %s: %v", path, err)
		}
	}
	return p
}

// state reads one of the person's tabs: its URL, name and note.
func (p *personBrowser) state(t *testing.T, i int) (href, name, note string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.tabs[i], 10*time.Second)
	defer cancel()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[location.href, window.name, (document.getElementById('note')||{}).value || '']`))
	if err != nil || len(out) != 3 {
		t.Fatalf("reading the person's tab %d: %v", i, err)
	}
	return out[0], out[1], out[2]
}

// targets lists the person's browser's pages, as the person's side sees
// them.
func (p *personBrowser) targets(t *testing.T) (titles, urls []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.tabs[0], 10*time.Second)
	defer cancel()
	infos, err := chromedp.Targets(ctx)
	if err != nil {
		t.Fatalf("listing the person's browser's targets: %v", err)
	}
	for _, in := range infos {
		if in.Type == "page" {
			titles, urls = append(titles, in.Title), append(urls, in.URL)
		}
	}
	return titles, urls
}

// TestAttachedWindow works in "the person's own browser" with a hostile
// page that tries to reach the person's tabs, and checks that the agent's
// session sees, touches and intercepts nothing of theirs, and that ending
// it leaves their tabs and browser open.
func TestAttachedWindow(t *testing.T) {
	person := startPersonBrowser(t)
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
	b, err := browser.Launch(ctx, browser.Options{CDPEndpoint: person.chromium.HTTP, Attached: true, DocumentPolicy: policy})
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

	forbidden := person.site + "/forbidden"
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
	// Chromium does not hold a page's popups for its session: the first
	// request of a popup is judged as soon as the popup is reported, and
	// may have been sent by then (docs/architecture.md says so).
	t.Logf("the refused popup's first request reached the server %d times", person.hit("/forbidden"))

	// The person keeps working while the agent does: their navigation to
	// an origin the agent's policy refuses goes through, unjudged.
	nctx, ncancel := context.WithTimeout(person.tabs[1], 20*time.Second)
	err = chromedp.Do(nctx, chromedp.Navigate(person.site+"/person/later"))
	if err == nil {
		_, err = chromedp.Run(nctx, chromedp.Evaluate[bool](`window.name = 'person-bank'; document.getElementById('note').value = 'half typed by the person'; true`))
	}
	ncancel()
	if err != nil || person.hit("/person/later") != 1 {
		t.Errorf("the person's own navigation was held or refused (hits %d): %v", person.hit("/person/later"), err)
	}

	// The person's tabs are as they were.
	for i, want := range []string{"/person/mail", "/person/later"} {
		href, name, note := person.state(t, i)
		if !strings.HasSuffix(href, want) || note != "half typed by the person" || !strings.HasPrefix(name, "person-") {
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
		if strings.Contains(string(data), personText) || strings.Contains(string(data), "/person/") {
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
		titles, _ := person.targets(t)
		for _, title := range titles {
			marked = marked || title == browser.WindowMark+"Unmarked"
		}
		if !marked {
			_ = tab.WaitQuiet(ctx, 50*time.Millisecond, time.Second)
		}
	}
	if !marked {
		titles, _ := person.targets(t)
		t.Errorf("the agent's window is not marked: %q", titles)
	}
	if got := tab.Current().Title; got != "Unmarked" {
		t.Errorf("the session reads its title as %q, want the page's own", got)
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
	titles, urls := person.targets(t)
	for i := 0; i < 200 && agentLeft(titles, urls); i++ {
		time.Sleep(50 * time.Millisecond)
		titles, urls = person.targets(t)
	}
	all := strings.Join(urls, " ")
	if agentLeft(titles, urls) || !strings.Contains(all, person.site+"/person/mail") || !strings.Contains(all, person.site+"/person/later") {
		t.Errorf("after the sessions ended the person's browser has pages %q %q, want their two tabs and none of the agent's", titles, urls)
	}
	for i := range person.tabs {
		if href, _, note := person.state(t, i); note != "half typed by the person" {
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
