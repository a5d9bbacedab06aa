package browser_test

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestScreenshotMasksDrawnSecrets: the secret /hostile/secrets-echoes
// draws with CSS content (attr(), and under the page's own rule against
// discs) is drawn as discs, and its canvas hidden, in the result's
// screenshot and in a full-page one; without CoverCanvases the canvas
// shows, so the check looks where the page draws.
func TestScreenshotMasksDrawnSecrets(t *testing.T) {
	t.Parallel()
	const secret = "Zq7-Quokka-88"
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/hostile/secrets-echoes")
	if err := tab.Evaluate(testCtx(t), `pw.value = "`+secret+`", pw.dispatchEvent(new Event("input")), true`, nil); err != nil {
		t.Fatal(err)
	}
	// Where the page draws, in CSS pixels: two CSS content echoes, each
	// beside the same text drawn as discs, and the canvas.
	pairs := []struct{ name string }{{"attr()"}, {"under the page's rule"}}
	check := func(what string, data []byte, covered bool) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i, p := range pairs {
			y := 60 + 80*i
			differ, ink := 0, 0
			for dy := range 32 {
				for dx := range 380 {
					a, b := grey(img, 20+dx, y+dy), grey(img, 20+dx, y+40+dy)
					if a != b {
						differ++
					}
					if a < 128 {
						ink++
					}
				}
			}
			if ink == 0 || differ > 0 {
				t.Errorf("%s: the CSS content echo %s: %d dark pixels, %d differ from the discs", what, p.name, ink, differ)
			}
		}
		ink := 0
		for y := 60; y < 120; y++ {
			for x := 420; x < 780; x++ {
				if grey(img, x, y) < 128 {
					ink++
				}
			}
		}
		if covered && ink > 0 {
			t.Errorf("%s: the canvas shows (%d dark pixels)", what, ink)
		}
		if !covered && ink == 0 {
			t.Errorf("%s: the canvas is not drawn where the test looks", what)
		}
	}
	for _, cover := range []bool{true, false} {
		opts := browser.CaptureOptions{Screenshot: true, Format: "png", ImageTokens: 2000,
			SecretTexts: func() []string { return []string{secret} }, CoverCanvases: func() bool { return cover }}
		full, err := tab.FullPageScreenshot(testCtx(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		check("the full-page screenshot", full.PNG, cover)
		c := captureOf(t, tab, opts)
		if c.Screenshot == nil {
			t.Fatal("the capture has no screenshot")
		}
		check("the capture's screenshot", c.Screenshot.Data, cover)
	}
}
