package checkpoint_test

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg" // screenshots may be JPEG
	_ "image/png"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/checkpoint"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// TestDemoProfileOnTheDemoSite evaluates the demo profile on real snapshots
// of every page of the embedded demo site: the checkpoint holds on /finish
// only, success on /cancelled only, failure on /error only.
func TestDemoProfileOnTheDemoSite(t *testing.T) {
	t.Parallel()
	p, err := checkpoint.LoadProfile("demo")
	if err != nil {
		t.Fatal(err)
	}
	site := browsertest.Site(t)
	p, err = p.WithDemoSite(site)
	if err != nil {
		t.Fatal(err)
	}
	g := checkpoint.NewGate(p, nil, checkpoint.Options{})
	tab := browsertest.Tab(t)
	for _, c := range []struct {
		path                         string
		checkpoint, success, failure bool
	}{
		{"/account", false, false, false},
		{"/retention", false, false, false},
		{"/survey", false, false, false},
		{"/finish", true, false, false},
		{"/cancelled", false, true, false},
		{"/help", false, false, false},
		{"/error", false, false, true},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		if err := tab.Navigate(ctx, site+c.path); err != nil {
			t.Fatal(err)
		}
		page, err := tab.Capture(ctx, browser.CaptureOptions{Screenshot: true})
		cancel()
		if err != nil {
			t.Fatalf("capture %s: %v", c.path, err)
		}
		s, _, _ := snapshot.Build(page, snapshot.Options{}, 0)
		_, cp := g.Checkpoint(s)
		ok, msg := g.Verify(s)
		failed := len(g.Failures(s)) > 0
		if cp != c.checkpoint || ok != c.success || failed != c.failure {
			t.Errorf("%s (%q): checkpoint=%v success=%v (%s) failure=%v; want %v %v %v",
				c.path, s.Page.Title, cp, ok, msg, failed, c.checkpoint, c.success, c.failure)
		}
	}
	if p.StartURL != site+"/account" {
		t.Errorf("start URL %s", p.StartURL)
	}
}

// capture takes a snapshot of the whole page at url, as the gate judges it.
func capture(t *testing.T, tab *browser.Context, url string) *snapshot.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := tab.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	page, err := tab.Capture(ctx, browser.CaptureOptions{Screenshot: true})
	if err != nil {
		t.Fatalf("capture %s: %v", url, err)
	}
	s, _, _ := snapshot.Build(page, snapshot.Options{MaxElements: 400, TokenBudget: 20000, TextBudget: 20000}, 0)
	return s
}

// TestVerifyOnTheFixtureSite judges claimed successes on real captures of the
// whole page: a failure page that also says "cancelled" is refused, naming
// the failure indicator; success shown below the fold is acknowledged; the
// same page on another origin is refused.
func TestVerifyOnTheFixtureSite(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	p, err := checkpoint.LoadProfile("demo")
	if err != nil {
		t.Fatal(err)
	}
	if p, err = p.WithDemoSite(site); err != nil {
		t.Fatal(err)
	}
	g := checkpoint.NewGate(p, nil, checkpoint.Options{})
	tab := browsertest.Tab(t)

	ok, msg := g.Verify(capture(t, tab, site+"/variants/not-cancelled"))
	if ok || !strings.Contains(msg, `failure indicators the page shows "could not"; the page shows "unable to" hold`) {
		t.Errorf("not-cancelled: %v %q", ok, msg)
	}
	below := capture(t, tab, site+"/variants/cancelled-below")
	if ok, msg := g.Verify(below); !ok || msg != `Success verified on the page: a heading whose name contains "cancelled".` {
		t.Errorf("cancelled-below: %v %q", ok, msg)
	}
	if h, found := below.Find("heading", "has been cancelled"); !found || h.BBox.Y < below.Viewport.Height {
		t.Errorf("the success heading is not below the fold: %+v (viewport %+v)", h, below.Viewport)
	}
	// localhost is another origin than the 127.0.0.1 the profile allows.
	other := strings.Replace(site, "127.0.0.1", "localhost", 1)
	if other == site {
		t.Fatalf("the fixture site is not on 127.0.0.1: %s", site)
	}
	if ok, msg := g.Verify(capture(t, tab, other+"/variants/cancelled-below")); ok || !strings.Contains(msg, "which profile \"demo\" does not allow") {
		t.Errorf("another origin: %v %q", ok, msg)
	}
}

// TestMarkTargetOnARealScreenshot draws the box of a real button on the
// page's real screenshot, whatever the image's scale.
func TestMarkTargetOnARealScreenshot(t *testing.T) {
	t.Parallel()
	s := capture(t, browsertest.Tab(t), browsertest.Site(t)+"/finish")
	e, ok := s.Find("button", "Finish Cancellation")
	if !ok || s.Screenshot == nil {
		t.Fatalf("no button or no screenshot:\n%s", s.Outline())
	}
	marked := checkpoint.MarkTarget(s.Screenshot, e.BBox, s.Viewport)
	img, _, err := image.Decode(bytes.NewReader(marked.Data))
	if err != nil || marked == s.Screenshot {
		t.Fatalf("marked screenshot: %v", err)
	}
	sx := float64(img.Bounds().Dx()) / s.Viewport.Width
	sy := float64(img.Bounds().Dy()) / s.Viewport.Height
	x, y := int(e.BBox.X*sx)-2, int((e.BBox.Y+e.BBox.Height/2)*sy)
	if r, g, b, _ := img.At(x, y).RGBA(); r < 0xa000 || g > 0x5000 || b > 0x5000 {
		t.Errorf("pixel left of the button (%d,%d) is %v, want the red mark", x, y, img.At(x, y))
	}
}
