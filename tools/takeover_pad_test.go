package tools

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// takeoverPad is a PIN pad whose digits a person clicks; the click (on the
// button's release) that completes the PIN sends it, and the next page
// says it.
const takeoverPad = `<!doctype html><html><head><meta charset="utf-8"><title>Pad</title><style>
body{margin:0;font:16px sans-serif}button{position:absolute;top:100px;width:60px;height:40px}
</style></head><body><input id="pin" type="password" aria-label="PIN" readonly style="position:absolute;top:20px;left:20px">
<button style="left:20px">1</button><button style="left:90px">2</button><button style="left:160px">3</button><button style="left:230px">4</button>
<script>
const pin = document.getElementById('pin');
for (const b of document.querySelectorAll('button')) b.addEventListener('click', () => {
  pin.value += b.textContent;
  if (pin.value.length === 4) location.href = '/said?pin=' + pin.value;
});
</script></body></html>`

// A PIN a person enters on a pad of buttons, sent by the click of its last
// digit (a release, not a press), is hidden from the agent all the same.
func TestTakeoverPersonPINByPad(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/pad", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, takeoverPad)
	})
	mux.HandleFunc("/said", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><title>Said</title></head><body><p>Your PIN is %s</p></body></html>`,
			strings.Trim(r.URL.Query().Get("pin"), "<>&\""))
	})
	site := browsertest.Serve(t, mux)
	tab := browsertest.Tab(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := tab.Navigate(ctx, site+"/pad"); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: NewSession(tab, Config{ActionTimeout: 6 * time.Second, ScrollTimeout: 6 * time.Second, SnapshotTimeout: 6 * time.Second}), tab: tab, site: site}
	h.snap(true)
	h.s.TakeOver()
	for _, x := range []float64{50, 120, 190, 260} {
		for _, typ := range []string{"mousePressed", "mouseReleased"} {
			if err := h.s.PersonInput(ctx, browser.PersonInput{Type: typ, X: x, Y: 120, Button: "left", ClickCount: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; !strings.Contains(tab.URL(), "/said"); i++ {
		if i == 100 {
			t.Fatalf("the pad never sent the PIN: %s", tab.URL())
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.s.HandBack("")
	var s = h.snap(false)
	for i := 0; !strings.Contains(s.Text, "Your PIN is"); i++ {
		if i == 50 {
			t.Fatalf("the page does not say the PIN: %s", s.Text)
		}
		s = h.snap(false)
	}
	for what, text := range map[string]string{"text": s.Text, "url": s.Page.URL} {
		if strings.Contains(text, "1234") {
			t.Errorf("the agent's snapshot's %s shows the person's PIN: %q", what, text)
		}
	}
}
