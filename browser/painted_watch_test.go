package browser_test

import (
	"net/http"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestTextPaintedUnwatched: a page that watches for the look (a highlight
// in its registry, a style sheet adopted, a scroll, a mutation) and draws
// the success text only while it sees it shows a person nothing: the look
// must not count what the page draws for it alone.
func TestTextPaintedUnwatched(t *testing.T) {
	t.Parallel()
	const needle = "Membership cancelled"
	// The heading is clipped away; cue() tells when the look is under
	// way, and the page then draws the same text, in black, over it.
	watchers := map[string]string{
		"highlights":    `CSS.highlights.size > 0`,
		"sheets":        `document.adoptedStyleSheets.length > 0`,
		"highlight-get": `[...CSS.highlights.keys()].length > 0`,
	}
	mux := http.NewServeMux()
	for name, cue := range watchers {
		if cue == "" {
			continue
		}
		mux.HandleFunc("/"+name, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`<!doctype html><body style="margin:20px;font:20px system-ui,sans-serif;background:#fff">` +
				`<p>Plan: Premium.</p><h2 id="h" style="display:inline-block;margin:0;clip-path:circle(0)">` + needle + `</h2>` +
				`<h2 id="o" aria-hidden="true" style="position:absolute;margin:0;display:none;pointer-events:none">` + needle + `</h2>` +
				`<script>const h = document.getElementById('h'), o = document.getElementById('o');
const watch = () => {
  const on = ` + cue + `;
  if (on) { const r = h.getBoundingClientRect(); o.style.left = (r.left + scrollX) + 'px'; o.style.top = (r.top + scrollY) + 'px'; }
  o.style.display = on ? 'block' : 'none';
  requestAnimationFrame(watch);
};
requestAnimationFrame(watch);
setInterval(watch, 1);
</script>`))
		})
	}
	// Below the fold, the look scrolls to the text; the page reads a
	// scroll no wheel, key or touch began as the look's, and unclips the
	// heading for a while.
	mux.HandleFunc("/scroll", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`<!doctype html><body style="margin:20px;font:20px system-ui,sans-serif;background:#fff">` +
			`<p style="height:3000px">Plan: Premium.</p><h2 id="h" style="display:inline-block;margin:0;clip-path:circle(0)">` + needle + `</h2>` +
			`<p style="height:3000px"></p><script>const h = document.getElementById('h');
let person = false;
for (const e of ['wheel', 'keydown', 'touchstart', 'pointerdown']) addEventListener(e, () => { person = true; }, true);
addEventListener('scroll', () => {
  if (person) return;
  h.style.clipPath = 'none';
  setTimeout(() => { h.style.clipPath = 'circle(0)'; }, 5000);
}, true);
</script>`))
	})
	watchers["scroll"] = ""
	base := browsertest.Serve(t, mux)
	for name := range watchers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tab := browsertest.Tab(t)
			navigate(t, tab, base+"/"+name)
			got, err := tab.TextPainted(testCtx(t), textNodes(t, tab, needle)[:1], needle, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got {
				t.Errorf("TextPainted(%s) = true: the page drew the text only while the server looked", name)
			}
		})
	}
}
