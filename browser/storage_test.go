package browser_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// playwrightState reads testdata/playwright-storage.json, a file in the
// format Playwright's storageState writes, with its localStorage origin
// pointed at the site base (http://127.0.0.1:PORT).
func playwrightState(t testing.TB, base string) browser.StorageState {
	t.Helper()
	data, err := os.ReadFile("testdata/playwright-storage.json")
	if err != nil {
		t.Fatal(err)
	}
	port := base[strings.LastIndex(base, ":")+1:]
	st, err := browser.ParseStorageState([]byte(strings.ReplaceAll(string(data), "PORT", port)))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// textOf returns the text of the element with the id on the tab's page.
func textOf(t *testing.T, tab *browser.Context, id string) string {
	t.Helper()
	var s string
	if err := tab.Evaluate(testCtx(t), "document.getElementById("+`"`+id+`"`+").innerText", &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func loadState(t *testing.T, tab *browser.Context, st browser.StorageState) {
	t.Helper()
	if err := tab.LoadStorageState(testCtx(t), st); err != nil {
		t.Fatal(err)
	}
}

func cookieNamed(st browser.StorageState, name string) (browser.Cookie, bool) {
	for _, c := range st.Cookies {
		if c.Name == name {
			return c, true
		}
	}
	return browser.Cookie{}, false
}

func TestLoadPlaywrightStorageState(t *testing.T) {
	t.Parallel()
	base := browsertest.Site(t)
	st := playwrightState(t, base)
	one, two := browsertest.Tab(t), browsertest.Tab(t)
	for i, tab := range []*browser.Context{one, two} {
		loadState(t, tab, st)
		navigate(t, tab, base+"/echo/cookies")
		if got := textOf(t, tab, "cookies"); got != "sid=pw-session-7f3a9c\ntheme=dark" {
			t.Errorf("tab %d: cookies sent = %q, want sid and theme", i+1, got)
		}
		navigate(t, tab, base+"/variants/storage")
		if got, want := textOf(t, tab, "storage"), "prefs={\"lang\":\"en\"}\nuser=ada@example.com"; got != want {
			t.Errorf("tab %d: localStorage = %q, want %q", i+1, got, want)
		}
	}

	// The cookie for the other site is there, as it was saved.
	got, err := one.StorageState(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cookieNamed(got, "xsite"); !ok || c.Domain != "localhost" || !c.Secure || c.SameSite != "None" || c.Value != "pw-cross-site-41d2" {
		t.Errorf("xsite cookie read back as %+v (found %v)", c, ok)
	}
	if c, _ := cookieNamed(got, "sid"); c.Expires != -1 || !c.HTTPOnly || c.SameSite != "Lax" {
		t.Errorf("session cookie sid read back as %+v, want expires -1, httpOnly, Lax", c)
	}
	// Chromium caps a cookie's life at 400 days from now.
	if c, _ := cookieNamed(got, "theme"); c.Expires <= 0 || c.Expires > 1924992001 || c.SameSite != "Strict" {
		t.Errorf("cookie theme read back as %+v, want a persistent Strict cookie", c)
	}
	// The other site (same server, another host name) gets its own cookie.
	other := strings.Replace(base, "127.0.0.1", "localhost", 1)
	navigate(t, one, other+"/echo/cookies")
	if got := textOf(t, one, "cookies"); got != "xsite=pw-cross-site-41d2" {
		t.Errorf("cookies sent to %s = %q, want only xsite", other, got)
	}

	// Otherwise the two stay isolated: what one sets, two does not see.
	navigate(t, one, base+"/variants/cookies?name=only-one")
	if err := one.Evaluate(testCtx(t), "document.getElementById('set-cookie').click()", nil); err != nil {
		t.Fatal(err)
	}
	navigate(t, one, base+"/echo/cookies")
	navigate(t, two, base+"/echo/cookies")
	if got := textOf(t, one, "cookies"); !strings.Contains(got, "client=only-one") {
		t.Errorf("tab 1 lost its own cookie: %q", got)
	}
	if got := textOf(t, two, "cookies"); strings.Contains(got, "client=") {
		t.Errorf("tab 2 sees tab 1's cookie: %q", got)
	}
}

func TestStorageStateRoundTrip(t *testing.T) {
	t.Parallel()
	base := browsertest.Site(t)
	ctx := testCtx(t)
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/variants/signin")
	if err := tab.Evaluate(ctx, `document.getElementById('email').value = 'ada@example.com';
		document.getElementById('sign-in').click()`, nil); err != nil {
		t.Fatal(err)
	}
	navigate(t, tab, base+"/help") // the state is read from where the tab went
	st, err := tab.StorageState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sid, ok := cookieNamed(st, "sid")
	if !ok || sid.Value != "sess-ada%40example.com" || sid.Domain != "127.0.0.1" || sid.Path != "/" || sid.Expires <= 0 || sid.SameSite != "Lax" {
		t.Fatalf("sid cookie = %+v (found %v)", sid, ok)
	}
	if len(st.Origins) != 1 || st.Origins[0].Origin != base ||
		len(st.Origins[0].LocalStorage) != 1 || st.Origins[0].LocalStorage[0] != (browser.NameValue{Name: "user", Value: "ada@example.com"}) {
		t.Fatalf("origins = %+v, want %s with user=ada@example.com", st.Origins, base)
	}

	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := browser.WriteStorageStateFile(path, st); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file's mode is %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	back, err := browser.ReadStorageStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fresh := browsertest.Tab(t)
	loadState(t, fresh, back)
	navigate(t, fresh, base+"/variants/signin")
	if got := textOf(t, fresh, "status"); got != "Signed in as ada@example.com" {
		t.Errorf("a new tab from the saved file shows %q, want signed in", got)
	}
}

// TestStorageStateAfterPageClosed reads the state after the page went away,
// as chaperone login does when the person closes the window.
func TestStorageStateAfterPageClosed(t *testing.T) {
	t.Parallel()
	base := browsertest.Site(t)
	tab := browsertest.Tab(t)
	navigate(t, tab, base+"/variants/signin?as=grace")
	if err := browser.ClosePageForTest(testCtx(t), tab); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tab.Done():
	case <-testCtx(t).Done():
		t.Fatal("the tab did not notice its page closing")
	}
	st, err := tab.StorageState(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cookieNamed(st, "sid"); !ok || c.Value != "sess-grace" {
		t.Errorf("sid = %+v (found %v)", c, ok)
	}
	if len(st.Origins) != 1 || len(st.Origins[0].LocalStorage) != 1 || st.Origins[0].LocalStorage[0].Value != "grace" {
		t.Errorf("origins = %+v", st.Origins)
	}
}

func TestParseStorageStateErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json, want string
	}{
		{"not JSON", `{"cookies": [`, "not a storage state"},
		{"cookies not a list", `{"cookies": {"name": "a"}}`, "not a storage state"},
		{"no name", `{"cookies": [{"value": "v-secret-1", "domain": "a.example"}]}`, "cookie 0 has no name"},
		{"no domain", `{"cookies": [{"name": "sid", "value": "v-secret-1"}]}`, `cookie 0 ("sid") has no domain`},
		{"bad sameSite", `{"cookies": [{"name": "sid", "value": "v-secret-1", "domain": "a.example", "sameSite": "lax"}]}`, `sameSite "lax"`},
		{"origin with path", `{"origins": [{"origin": "https://a.example/app", "localStorage": []}]}`, "not an http or https origin"},
		{"origin not http", `{"origins": [{"origin": "file:///tmp", "localStorage": []}]}`, "not an http or https origin"},
		{"item without name", `{"origins": [{"origin": "https://a.example", "localStorage": [{"value": "v"}]}]}`, "item 0 has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := browser.ParseStorageState([]byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "v-secret-1") {
				t.Errorf("the error shows a cookie's value: %v", err)
			}
		})
	}
	if _, err := browser.ParseStorageState([]byte(`{"cookies": [], "origins": []}`)); err != nil {
		t.Errorf("an empty state is refused: %v", err)
	}
}

func TestDefaultContextHoldsOneTab(t *testing.T) {
	base := browsertest.Site(t)
	b := browsertest.NewBrowser(t, browser.Options{UserDataDir: t.TempDir(), DefaultContext: true})
	first, err := b.NewContext(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, first, base+"/variants/signin?as=ada")
	if _, err := b.NewContext(testCtx(t)); !errors.Is(err, browser.ErrContextBusy) {
		t.Fatalf("a second tab: err = %v, want ErrContextBusy", err)
	}
	if got := textOf(t, first, "status"); got != "Signed in as ada" {
		t.Errorf("the first tab shows %q after the second was refused", got)
	}
	if ids, err := browser.BrowserContextsForTest(testCtx(t), b); err != nil || len(ids) != 0 {
		t.Errorf("browser contexts besides the default one: %v (%v)", ids, err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	next := browsertest.TabOf(t, b)
	navigate(t, next, base+"/echo/cookies")
	if got := textOf(t, next, "cookies"); got != "sid=sess-ada" {
		t.Errorf("the next tab, in the same default context, sends cookies %q, want sid=sess-ada", got)
	}
}

// Connected with DefaultContext, a tab uses the running browser's own
// context: what a person's login left there applies, and what the tab sets
// stays after it closes. Without it, a tab sees none of that.
func TestConnectDefaultContext(t *testing.T) {
	base := browsertest.Site(t)
	ws := browsertest.StartChromium(t, 0).WebSocket
	connect := func(shared bool) *browser.Context {
		b, err := browser.Launch(testCtx(t), browser.Options{CDPEndpoint: ws, DefaultContext: shared})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return browsertest.TabOf(t, b)
	}
	first := connect(true)
	navigate(t, first, base+"/variants/signin?as=ada")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again := connect(true)
	navigate(t, again, base+"/echo/cookies")
	if got := textOf(t, again, "cookies"); got != "sid=sess-ada" {
		t.Errorf("a later connection's tab sends %q, want the login left in the default context", got)
	}
	isolated := connect(false)
	navigate(t, isolated, base+"/echo/cookies")
	if got := textOf(t, isolated, "cookies"); got != "" {
		t.Errorf("an isolated tab sends %q, want no cookies", got)
	}
}

// A crashed page comes back in the default context, with its login.
func TestRecoverInDefaultContext(t *testing.T) {
	base := browsertest.Site(t)
	b := browsertest.NewBrowser(t, browser.Options{UserDataDir: t.TempDir(), DefaultContext: true})
	tab := browsertest.TabOf(t, b)
	navigate(t, tab, base+"/variants/signin?as=ada")
	navigate(t, tab, base+"/help") // where Recover goes back to signs nobody in
	if err := tab.CrashRenderer(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tab.Recover(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	navigate(t, tab, base+"/echo/cookies")
	if got := textOf(t, tab, "cookies"); got != "sid=sess-ada" {
		t.Errorf("after recovery the tab sends %q, want the login", got)
	}
	if _, err := b.NewContext(testCtx(t)); !errors.Is(err, browser.ErrContextBusy) {
		t.Errorf("a second tab after recovery: %v, want ErrContextBusy", err)
	}
}

// BenchmarkNewTabStorageState is what loading a storage state adds to
// opening a session's tab: "bare" is the tab alone (the floor every session
// pays), "cookies" adds one Storage.setCookies, "full" also writes one
// origin's localStorage through a hidden page.
func BenchmarkNewTabStorageState(b *testing.B) {
	base := browsertest.Site(b)
	full := playwrightState(b, base)
	cookies := browser.StorageState{Cookies: full.Cookies}
	br := browsertest.Browser(b)
	for _, bb := range []struct {
		name  string
		state *browser.StorageState
	}{{"bare", nil}, {"cookies", &cookies}, {"full", &full}} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				tab, err := br.NewContext(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				if bb.state != nil {
					if err := tab.LoadStorageState(b.Context(), *bb.state); err != nil {
						b.Fatal(err)
					}
				}
				if err := tab.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A browser that dies takes the tab's context with it; the storage state the
// tab loaded comes back with the new one, before the page reopens.
func TestRecoverReloadsStorageState(t *testing.T) {
	base := browsertest.Site(t)
	b := browsertest.NewBrowser(t, browser.Options{})
	tab := browsertest.TabOf(t, b)
	loadState(t, tab, playwrightState(t, base))
	navigate(t, tab, base+"/echo/cookies")
	if err := b.Process().Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitErr(t, tab, browser.ErrBrowserGone)
	restarted, _, err := tab.Recover(testCtx(t))
	if err != nil || !restarted {
		t.Fatalf("Recover = %v, %v; want a restart", restarted, err)
	}
	// The page Recover reopened was requested with the cookies.
	if got := textOf(t, tab, "cookies"); got != "sid=pw-session-7f3a9c\ntheme=dark" {
		t.Errorf("after the restart the reopened page got cookies %q", got)
	}
	navigate(t, tab, base+"/variants/storage")
	if got := textOf(t, tab, "storage"); !strings.Contains(got, "user=ada@example.com") {
		t.Errorf("after the restart localStorage = %q", got)
	}
}
