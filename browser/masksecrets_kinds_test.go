package browser_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// maskKinds are the ways a page draws text, each a page template whose %s
// is where the page puts a secret.
var maskKinds = []struct{ name, page string }{
	{"a paragraph", `<p>%s</p>`},
	{"SVG text", `<svg width="400" height="60"><text x="10" y="40" font-size="28">%s</text></svg>`},
	{"a submit button's value", `<input type="submit" value="%s">`},
	{"a closed select", `<select style="font:inherit"><option>%s</option></select>`},
	{"a list box", `<select size="3"><option>a</option><option>%s</option></select>`},
	{"a textarea", `<textarea>%s</textarea>`},
	{"a broken image's alt", `<img src="/nothing.png" alt="%s" width="300" height="40">`},
	{"a placeholder", `<input placeholder="%s">`},
	{"a first line the page draws without discs", `<style>p::first-line{-webkit-text-security:none!important}</style><p>%s</p>`},
	{"a first letter the page draws without discs", `<style>p::first-letter{-webkit-text-security:none!important}</style><p>%s</p>`},
	{"a literal CSS content", `<style>p::after{content:"%s"}</style><p>x</p>`},
	{"a legend", `<fieldset><legend>%s</legend></fieldset>`},
	{"a progress label in a meter's title", `<p title="%s">hover</p>`},
	{"a contenteditable", `<div contenteditable="true">%s</div>`},
	{"a text field's value", `<input value="%s">`},
	{"a same-origin frame", `<iframe srcdoc="<p>%s</p>" width="400" height="80"></iframe>`},
	{"an image button's alt", `<input type="image" src="/nothing.png" alt="%s" width="300" height="40">`},
	{"letters in a flex box with gaps", `<div id="f" style="display:flex;gap:12px"></div><script>for(const c of "%s")f.append(Object.assign(document.createElement("span"),{textContent:c}))</script>`},
	{"letters in positioned boxes", `<div id="f"></div><script>[..."%s"].forEach((c,i)=>f.append(Object.assign(document.createElement("b"),{textContent:c,style:"position:absolute;top:40px;left:"+(10+i*20)+"px"})))</script>`},
	{"letter-spacing", `<p style="letter-spacing:14px">%s</p>`},
	{"one character a field, as a code's boxes", `<div id="f"></div><script>for(const c of "%s")f.append(Object.assign(document.createElement("input"),{value:c,size:1}))</script>`},
}

// TestScreenshotMaskKinds: whatever element draws a secret, the masked
// screenshot of the page is the same whichever secret (of the same length)
// it draws: no character of it shows.
func TestScreenshotMaskKinds(t *testing.T) {
	t.Parallel()
	secrets := []string{"Zq7-Quokka-88", "Mx4-Walrus-51"}
	mux := http.NewServeMux()
	for i, k := range maskKinds {
		for j, s := range secrets {
			mux.HandleFunc(fmt.Sprintf("/kind/%d/%d", i, j), func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:10px;font:20px monospace;background:#fff}*{caret-color:transparent}</style></head><body>`+k.page+`</body></html>`, s)
			})
		}
	}
	site := browsertest.Serve(t, mux)
	for i, k := range maskKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			var shots [][]byte
			for j, s := range secrets {
				tab := browsertest.Tab(t)
				navigate(t, tab, fmt.Sprintf("%s/kind/%d/%d", site, i, j))
				shot, err := tab.Screenshot(testCtx(t), browser.CaptureOptions{Screenshot: true, Format: "png", ImageTokens: 2000,
					SecretTexts: func() []string { return []string{s} }})
				if err != nil {
					t.Fatal(err)
				}
				shots = append(shots, shot.Data)
			}
			if !bytes.Equal(shots[0], shots[1]) {
				t.Errorf("the screenshots of %s differ with the secret: it shows", strings.ReplaceAll(k.page, "%s", "…"))
			}
		})
	}
}
