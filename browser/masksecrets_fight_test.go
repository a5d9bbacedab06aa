package browser_test

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// fightSecret is the secret the fighting pages draw.
const fightSecret = "Zq7-Quokka-88"

// fightPages are pages that fight the mask, each drawing the secret at
// #echo (left 20, top 20) beside a copy drawn as discs at #ref (top 70),
// or (canvas) drawing it on a canvas at left 20, top 20, 360×60.
var fightPages = []struct {
	name, head, body string
	canvas           bool
	// ref is the markup of the copy drawn as discs, when it is not the
	// secret in one paragraph.
	ref string
}{
	{name: "spans that restyle", head: `span{-webkit-text-security:none}`,
		body: `<p id="echo" class="line"><span>Zq7-Quo</span><span>kka-88</span></p>`,
		ref:  `<p id="ref" class="line"><span>Zq7-Quo</span><span>kka-88</span></p>`},
	{name: "spans inline important", head: ``,
		body: `<p id="echo" class="line"><span style="-webkit-text-security:none!important">Zq7-Quo</span><span style="-webkit-text-security:none!important">kka-88</span></p>`,
		ref:  `<p id="ref" class="line"><span>Zq7-Quo</span><span>kka-88</span></p>`},
	{name: "one span that restyles", head: `b{-webkit-text-security:none!important;font-weight:normal}`,
		body: `<p id="echo" class="line"><b>Zq7-Quokka-88</b></p>`},
	{name: "discrete transition", head: `#echo{transition:-webkit-text-security 1000s allow-discrete}`,
		body: `<p id="echo" class="line">Zq7-Quokka-88</p>`},
	{name: "all transition", head: `*{transition:all 1000s allow-discrete!important}`,
		body: `<p id="echo" class="line">Zq7-Quokka-88</p>`},
	{name: "observer reverts the style", head: ``,
		body: `<p id="echo" class="line">Zq7-Quokka-88</p><script>new MutationObserver(rs=>{for(const r of rs)if(r.target.getAttribute('style'))r.target.removeAttribute('style')}).observe(document.body,{attributes:true,subtree:true,attributeFilter:['style']})</script>`},
	{name: "pseudo transition", head: `#echo::before{content:attr(data-v);transition:all 1000s allow-discrete}`,
		body: `<p id="echo" class="line" data-v="Zq7-Quokka-88"></p>`},
	{name: "canvas transition", head: `canvas{transition:visibility 1000s}`, canvas: true,
		body: `<canvas id="c" width="360" height="60" style="position:absolute;left:20px;top:20px"></canvas><script>const g=c.getContext('2d');g.font='28px monospace';g.fillText('Zq7-Quokka-88',4,40)</script>`},
	{name: "canvas observer", head: ``, canvas: true,
		body: `<canvas id="c" width="360" height="60" style="position:absolute;left:20px;top:20px"></canvas><script>const g=c.getContext('2d');g.font='28px monospace';g.fillText('Zq7-Quokka-88',4,40);new MutationObserver(()=>{if(c.getAttribute('style')!=='position:absolute;left:20px;top:20px')c.setAttribute('style','position:absolute;left:20px;top:20px')}).observe(c,{attributes:true})</script>`},
	{name: "a layer the page declares first", head: ``,
		body: `<p id="echo" class="line" data-v="Zq7-Quokka-88"></p><style id="s">#echo::before{content:attr(data-v)}</style><script>new MutationObserver(()=>{const s=document.createElement("style");s.textContent="@layer first{#echo::before{-webkit-text-security:none!important}}";if(!document.querySelector("style[data-e]")){s.dataset.e="";document.documentElement.prepend(s)}}).observe(document.documentElement,{childList:true})</script>`},
	{name: "canvas opacity trick", head: `canvas{visibility:hidden}canvas::after{content:''}`, canvas: true,
		body: `<div style="position:absolute;left:20px;top:20px;visibility:visible"><canvas id="c" width="360" height="60" style="visibility:visible"></canvas></div><script>const g=c.getContext('2d');g.font='28px monospace';g.fillText('Zq7-Quokka-88',4,40)</script>`},
}

func fightPage(head, body, ref string) string {
	if ref == "" {
		ref = `<p id="ref" class="line">` + fightSecret + `</p>`
	}
	return `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;background:#fff}` +
		`.line{position:absolute;left:20px;top:20px;width:380px;height:32px;margin:0;font:20px/32px monospace;white-space:pre;overflow:hidden;background:#fff;color:#000}` +
		`#ref{top:70px}#ref,#ref *{-webkit-text-security:disc!important}` + head + `</style></head><body>` + body +
		`<div aria-hidden="true">` + ref + `</div></body></html>`
}

// TestScreenshotMaskHoldsAgainstThePage: a page that fights the mask (its
// own rules on what the masked element holds, a transition that keeps the
// old look, a mutation observer that undoes it in the microtask after) shows
// discs where it echoes the secret and no canvas, or gets no screenshot at
// all.
func TestScreenshotMaskHoldsAgainstThePage(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	for i, p := range fightPages {
		mux.HandleFunc(fmt.Sprintf("/fight/%d", i), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, fightPage(p.head, p.body, p.ref))
		})
	}
	site := browsertest.Serve(t, mux)
	for i, p := range fightPages {
		t.Run(p.name, func(t *testing.T) {
			tab := browsertest.Tab(t)
			navigate(t, tab, fmt.Sprintf("%s/fight/%d", site, i))
			opts := browser.CaptureOptions{Screenshot: true, Format: "png", ImageTokens: 2000,
				SecretTexts: func() []string { return []string{fightSecret} }, CoverCanvases: func() bool { return true }}
			c, err := tab.Capture(testCtx(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.Screenshot == nil {
				// A page that fights the mask gets no screenshot: safe.
				if !strings.Contains(c.ScreenshotError, "undid its masking") {
					t.Fatalf("no screenshot, and not for the page fighting the mask: %q", c.ScreenshotError)
				}
				return
			}
			img, err := png.Decode(bytes.NewReader(c.Screenshot.Data))
			if err != nil {
				t.Fatal(err)
			}
			differ, ink := 0, 0
			for dy := range 32 {
				for dx := range 360 {
					a, b := grey(img, 20+dx, 20+dy), grey(img, 20+dx, 70+dy)
					if a != b {
						differ++
					}
					if a < 128 {
						ink++
					}
				}
			}
			if p.canvas {
				if ink > 0 {
					t.Errorf("the canvas shows (%d dark pixels)", ink)
				}
				return
			}
			if ink == 0 || differ > 0 {
				t.Errorf("the echo: %d dark pixels, %d differ from the discs", ink, differ)
			}
		})
	}
}
