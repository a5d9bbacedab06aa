package browser_test

import (
	"bytes"
	"image"
	"image/png"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// secretsPW is a password that URL-encodes in every way.
const secretsPW = "p@ss w0rd/Zq?9"

// secretsLine is where a line of /hostile/secrets-results (or, in page
// terms, of its cross-site frame) is drawn: 380×32 CSS px at x, y.
type secretsLine struct{ x, y, w, h int }

// secretsPairs are the echoes of /hostile/secrets-results and, beside each,
// the same text the page itself draws as discs, in viewport CSS pixels; the
// frame is at 420,60 with no border.
var secretsPairs = []struct {
	name      string
	echo, ref secretsLine
}{
	{"the heading", secretsLine{20, 260, 380, 32}, secretsLine{20, 300, 380, 32}},
	{"the search field", secretsLine{20, 70, 300, 28}, secretsLine{20, 110, 300, 28}},
	{"the echo split across elements", secretsLine{20, 150, 380, 32}, secretsLine{20, 190, 380, 32}},
	{"the cross-site frame's greeting", secretsLine{430, 80, 340, 32}, secretsLine{430, 130, 340, 32}},
}

// secretsMasked reports, for each pair, whether the echo in the screenshot
// is drawn exactly as the page's own discs are, and fails the test if the
// echo region is blank (nothing was echoed, so nothing was tested).
func secretsMasked(t *testing.T, data []byte, scale float64) map[string]bool {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	out := map[string]bool{}
	for _, p := range secretsPairs {
		same, ink := true, 0
		for dy := range int(float64(p.echo.h) * scale) {
			for dx := range int(float64(p.echo.w) * scale) {
				a := grey(img, int(float64(p.echo.x)*scale)+dx, int(float64(p.echo.y)*scale)+dy)
				b := grey(img, int(float64(p.ref.x)*scale)+dx, int(float64(p.ref.y)*scale)+dy)
				if a != b {
					same = false
				}
				if a < 128 {
					ink++
				}
			}
		}
		if ink == 0 {
			t.Errorf("%s: nothing is drawn where the page echoes the password", p.name)
		}
		out[p.name] = same
	}
	return out
}

func grey(img image.Image, x, y int) uint32 {
	r, g, b, _ := img.At(img.Bounds().Min.X+x, img.Bounds().Min.Y+y).RGBA()
	return (r + g + b) / 3 >> 8
}

// TestScreenshotMasksEchoedSecret: a page that echoes a secret, and a
// cross-site frame in it that does too, are photographed with the echoes
// drawn as discs, by Capture and by Screenshot, while what the page says
// (its accessibility tree) and its own styles are left as they were.
func TestScreenshotMasksEchoedSecret(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/hostile/secrets-results?user=alice&pw="+url.QueryEscape(secretsPW))
	waitFrameText(t, tab, "Welcome")
	secrets := func() []string { return []string{strings.ToUpper(url.QueryEscape(secretsPW)), secretsPW} }
	opts := browser.CaptureOptions{Screenshot: true, ImageTokens: 1300, SecretTexts: secrets}

	c, err := tab.Capture(testCtx(t), opts)
	if err != nil || c.Screenshot == nil {
		t.Fatalf("capture: %v %v", err, c)
	}
	for name, ok := range secretsMasked(t, c.Screenshot.Data, 1) {
		if !ok {
			t.Errorf("Capture: %s shows the password", name)
		}
	}
	if !strings.Contains(string(c.Frames[0].AX), "Results for "+secretsPW) {
		t.Error("the page reads masked after the screenshot: its accessibility tree lost the echo")
	}
	var inline string
	if err := tab.Evaluate(testCtx(t), `document.getElementById('echo').style.getPropertyValue('-webkit-text-security')`, &inline); err != nil || inline != "" {
		t.Errorf("the echo keeps the mask after the screenshot: %q %v", inline, err)
	}

	shot, err := tab.Screenshot(testCtx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, ok := range secretsMasked(t, shot.Data, 1) {
		if !ok {
			t.Errorf("Screenshot: %s shows the password", name)
		}
	}

	// Without secrets to hide the echo is drawn as the page draws it: the
	// comparison tells a masked echo from one that is not.
	opts.SecretTexts = nil
	plain, err := tab.Screenshot(testCtx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, ok := range secretsMasked(t, plain.Data, 1) {
		if ok {
			t.Errorf("without secrets, %s is drawn as discs: the test cannot tell", name)
		}
	}
}

// waitFrameText waits until a cross-site frame's text holds want.
func waitFrameText(t *testing.T, tab *browser.Context, want string) {
	t.Helper()
	ok := waitUntil(t, 50*time.Millisecond, func() bool {
		c, err := tab.Capture(testCtx(t), browser.CaptureOptions{})
		if err != nil {
			return false
		}
		for _, f := range c.Frames[1:] {
			if strings.Contains(string(f.AX), want) {
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("no frame shows %q", want)
	}
}
