package checkpoint_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // screenshots may be JPEG
	_ "image/png"
	"slices"
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
func capture(t *testing.T, tab *browser.Tab, url string) *snapshot.Snapshot {
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

// TestDefaultPolicyOnTheFixtureSite runs the default policy over every
// control of every page of the fixture site: a click on each button, link or
// menu item, a fill into each text field. It is the policy's precision as a
// table; the test fails when a control changes sides.
func TestDefaultPolicyOnTheFixtureSite(t *testing.T) {
	p, err := checkpoint.LoadProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	g := checkpoint.NewGate(p, nil, checkpoint.Options{})
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	pages := []string{"/account", "/retention", "/survey", "/finish", "/cancelled", "/error", "/help"}
	for _, v := range []string{"altered", "approve", "busy", "cancelled-below", "checkout", "dialogs", "disabled", "everyday",
		"form", "long", "modal", "not-cancelled", "order-placed", "shadow", "similar", "spa-steps", "third-party", "widgets"} {
		pages = append(pages, "/variants/"+v)
	}
	want := map[string][]string{
		"/account": {`click button "Cancel Membership"`},
		"/finish":  {`click button "Finish Cancellation"`},
		// Judged by accessible names only here: the browser's facts
		// (autocomplete cc-name) gate "Name on card" too.
		"/variants/checkout": {`fill textbox "Card number"`, `fill textbox "Expiry date"`, `fill textbox "Security code"`, `click button "Place order — $129"`},
		"/variants/dialogs":  {`click button "Delete item"`},
		"/variants/disabled": {`click button "Finish Cancellation"`},
		"/variants/everyday": {`click button "Buy now"`, `click button "Pay $20.00"`, `click button "Purchase gift card"`, `click button "Book now"`,
			`click button "Subscribe"`, `click button "Unsubscribe from emails"`, `click button "Cancel subscription"`, `click button "Delete account"`,
			`click button "Remove account"`, `click button "Send message"`, `click button "Transfer $500"`, `click button "Send money"`},
		"/variants/long":    {`click button "Cancel Membership"`},
		"/variants/modal":   {`click button "Cancel Membership"`},
		"/variants/altered": {`click button "Cancel Membership"`},
		// A div the page made a button, named Subscribe.
		"/variants/widgets": {`click button "Subscribe"`},
	}
	var table strings.Builder
	for _, path := range pages {
		s := capture(t, tab, site+path)
		var gated, free []string
		for _, e := range s.Elements {
			var a checkpoint.Action
			switch e.Role {
			case "button", "link", "menuitem", "checkbox", "radio", "tab", "switch":
				a = checkpoint.Action{Verb: checkpoint.VerbClick, Role: e.Role, Name: e.Name}
			case "textbox", "searchbox", "spinbutton":
				a = checkpoint.Action{Verb: checkpoint.VerbFill, Role: e.Role, Name: e.Name}
			default:
				continue
			}
			desc := strings.TrimSuffix(a.String(), ` with ""`)
			if _, ok := g.Gated(s, a); ok {
				gated = append(gated, desc)
			} else {
				free = append(free, desc)
			}
		}
		fmt.Fprintf(&table, "%s\n  gated: %s\n  not gated: %s\n", path, strings.Join(gated, ", "), strings.Join(free, ", "))
		if !slices.Equal(gated, want[path]) {
			t.Errorf("%s: gated %q, want %q", path, gated, want[path])
		}
	}
	t.Logf("the default policy on the fixture site:\n%s", table.String())
}
