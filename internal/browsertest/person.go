package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
)

// PersonText is on every page of the person's own tabs (Person): it must
// reach nothing an agent's session reads.
const PersonText = "PERSON-ONLY-TEXT-7731"

// PersonNote is what the person has half typed into the form of each of
// their tabs.
const PersonNote = "half typed by the person"

// PersonTabs are the paths and window names of the person's two tabs.
var PersonTabs = [2]struct{ Path, Name string }{{"/person/mail", "person-mail"}, {"/person/bank", "person-bank"}}

// Person is the person's own browser (StartPersonsBrowser) with two tabs
// of the person's open on a loopback origin of their own, localhost: each a
// page with PersonText and a form half filled in (PersonNote), named as
// PersonTabs says. The person's side drives them through a
// browser.Browser of its own with no document policy, as the person's own
// clicks would.
type Person struct {
	Chromium *Chromium
	// Site is the person's origin, http://localhost:PORT.
	Site string

	tab  *browser.Context
	hits sync.Map // path → *atomic.Int64
}

// StartPerson starts the person's browser and opens their two tabs.
func StartPerson(t testing.TB) *Person {
	t.Helper()
	p := &Person{Chromium: StartPersonsBrowser(t).Chromium}
	srv := Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := p.hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Person %s</title>`+
			`<a id="pop" href="/person/popup" target="_blank" style="position:fixed;left:0;top:0;width:200px;height:60px;display:block">pop</a>`+
			`<p style="margin-top:80px">%s at %s</p>`+
			`<form><label>Note <input id="note" name="note"></label><button>Send</button></form>`,
			r.URL.Path, PersonText, r.URL.Path)
	}))
	p.Site = strings.Replace(srv, "127.0.0.1", "localhost", 1)
	ctx, cancel := context.WithTimeout(context.Background(), launchTimeout)
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{CDPEndpoint: p.Chromium.HTTP, DefaultContext: true})
	if err != nil {
		t.Fatalf("browsertest: connecting as the person: %v", err)
	}
	// Closing a connected browser leaves its tabs open.
	t.Cleanup(func() { b.Close() })
	if p.tab, err = b.NewContext(ctx); err != nil {
		t.Fatalf("browsertest: opening the person's tab: %v", err)
	}
	for i, tab := range PersonTabs {
		if i > 0 {
			if err := p.tab.OpenPage(ctx); err != nil {
				t.Fatalf("browsertest: opening the person's second tab: %v", err)
			}
		}
		p.Navigate(t, i, tab.Path)
	}
	return p
}

// Hits counts the requests of the person's server for path.
func (p *Person) Hits(path string) int64 {
	v, ok := p.hits.Load(path)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

// Navigate has the person open path of their site in their tab i, name it
// and half fill in its form again.
func (p *Person) Navigate(t testing.TB, i int, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.tab.SwitchTo(ctx, i); err != nil {
		t.Fatalf("browsertest: the person's tab %d: %v", i, err)
	}
	if err := p.tab.Navigate(ctx, p.Site+path); err != nil {
		t.Fatalf("browsertest: the person opening %s: %v", path, err)
	}
	expr := fmt.Sprintf(`window.name = %q; document.getElementById('note').value = %q; true`, PersonTabs[i].Name, PersonNote)
	if err := p.tab.Evaluate(ctx, expr, nil); err != nil {
		t.Fatalf("browsertest: the person filling in %s: %v", path, err)
	}
}

// State reads the person's tab i: its URL, window name and half-typed note.
func (p *Person) State(t testing.TB, i int) (href, name, note string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.tab.SwitchTo(ctx, i); err != nil {
		t.Fatalf("browsertest: the person's tab %d: %v", i, err)
	}
	var out []string
	err := p.tab.Evaluate(ctx, `[location.href, window.name, (document.getElementById('note')||{}).value || '']`, &out)
	if err != nil || len(out) != 3 {
		t.Fatalf("browsertest: reading the person's tab %d: %v", i, err)
	}
	return out[0], out[1], out[2]
}

// Pages lists the titles and URLs of every page of the person's browser, as
// DevTools' /json/list says.
func (p *Person) Pages(t testing.TB) (titles, urls []string) {
	t.Helper()
	res, err := http.Get(p.Chromium.HTTP + "/json/list")
	if err != nil {
		t.Fatalf("browsertest: listing the person's pages: %v", err)
	}
	defer res.Body.Close()
	var list []struct{ Type, Title, URL string }
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
		t.Fatalf("browsertest: listing the person's pages: %v", err)
	}
	for _, in := range list {
		if in.Type == "page" {
			titles, urls = append(titles, in.Title), append(urls, in.URL)
		}
	}
	return titles, urls
}

// OpenPopup has the person click the link of their tab i that opens
// /person/popup in a new tab, and waits until it is requested.
func (p *Person) OpenPopup(t testing.TB, i int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.tab.SwitchTo(ctx, i); err != nil {
		t.Fatalf("browsertest: the person's tab %d: %v", i, err)
	}
	before := p.Hits("/person/popup")
	if err := p.tab.Click(ctx, 20, 20); err != nil {
		t.Fatalf("browsertest: the person clicking their popup link: %v", err)
	}
	for n := 0; n < 200 && p.Hits("/person/popup") == before; n++ {
		_ = p.tab.WaitQuiet(ctx, 20*time.Millisecond, time.Second)
	}
	if p.Hits("/person/popup") == before {
		t.Fatal("browsertest: the person's popup did not open")
	}
}

// Eval runs expr in the page of the person's tab i, as the page's own
// script would, and decodes its value into out (nil: dropped).
func (p *Person) Eval(t testing.TB, i int, expr string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.tab.SwitchTo(ctx, i); err != nil {
		t.Fatalf("browsertest: the person's tab %d: %v", i, err)
	}
	if err := p.tab.Evaluate(ctx, expr, out); err != nil {
		t.Fatalf("browsertest: running a script in the person's tab %d: %v", i, err)
	}
}
