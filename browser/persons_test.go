package browser_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// The person's own browser (Options.Attached) outlives every tab and the
// Browser itself: Close never closes it, and its endpoint still answers.
func TestPersonsBrowserIsNeverClosed(t *testing.T) {
	base := browsertest.Serve(t, pages())
	person := browsertest.StartPersonsBrowser(t, base+"/plain")
	b, err := browser.Launch(testCtx(t), browser.Options{CDPEndpoint: person.WebSocket, Attached: true})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := b.NewContext(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, tab, base+"/show")
	if err := tab.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !browsertest.Running(person.Cmd.Process.Pid) {
		t.Fatal("Close closed the person's browser")
	}
	res, err := http.Get(person.HTTP + "/json/version")
	if err != nil {
		t.Fatalf("the person's browser no longer answers: %v", err)
	}
	res.Body.Close()
}

// When the person closes their browser, its tabs report it, and Recover
// neither reconnects nor starts a browser: the tabs are over.
func TestPersonsBrowserClosedIsNotRecovered(t *testing.T) {
	base := browsertest.Serve(t, pages())
	person := browsertest.StartPersonsBrowser(t)
	b, err := browser.Launch(testCtx(t), browser.Options{CDPEndpoint: person.WebSocket, Attached: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, err := b.NewContext(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, tab, base+"/plain")
	person.Kill()
	if !waitUntil(t, 5*time.Millisecond, func() bool { return errors.Is(tab.Err(), browser.ErrBrowserGone) }) {
		t.Fatalf("tab.Err() = %v after the person's browser closed", tab.Err())
	}
	if err := tab.Err(); !errors.Is(err, browser.ErrPersonsBrowserClosed) {
		t.Errorf("tab.Err() = %v, want ErrPersonsBrowserClosed", err)
	}
	for range 2 {
		restarted, _, err := tab.Recover(testCtx(t))
		if restarted || !errors.Is(err, browser.ErrPersonsBrowserClosed) {
			t.Errorf("Recover = %v, %v; want ErrPersonsBrowserClosed and nothing restarted", restarted, err)
		}
	}
	if _, err := b.NewContext(testCtx(t)); !errors.Is(err, browser.ErrPersonsBrowserClosed) {
		t.Errorf("a new tab after the person closed their browser: %v, want ErrPersonsBrowserClosed", err)
	}
	if b.Process() != nil {
		t.Error("a browser was launched in place of the person's")
	}
}
