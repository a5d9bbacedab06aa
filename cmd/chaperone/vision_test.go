package main

import (
	"bytes"
	"image"
	_ "image/jpeg" // screenshots may be JPEG
	_ "image/png"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Coordinates (--caps vision): browser_click at x,y on /variants/canvas, a
// board whose target is only drawn (the page says "hit" or "miss" and where)
// and a cross-site payment frame whose Pay button is drawn on a canvas.

// find returns the element role name of s, failing the test without it.
func find(t *testing.T, s *snapshot.Snapshot, role, name string) snapshot.Element {
	t.Helper()
	e, ok := s.Find(role, name)
	if !ok {
		t.Fatalf("no %s %q in the snapshot:\n%s", role, name, s.Outline())
	}
	return e
}

// TestVisionClickAndHoverAtAPoint clicks and hovers on a canvas by
// coordinates through the built binary: the page records the click where
// it was aimed, a miss is a miss, the result says what was under the
// point, and a point outside the viewport is invalid_params.
func TestVisionClickAndHoverAtAPoint(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/canvas", "--profile", "none", "--caps", "vision")
	board := find(t, getSnapshot(t, c), "image", "Target board").BBox
	tests := []struct {
		name   string
		dx, dy float64
		hover  bool
		page   string
	}{
		{"click on the target", 300, 120, false, "hit at 300,120"},
		{"click beside it", 50, 50, false, "miss at 50,50"},
		{"hover on the target", 305, 125, true, "Pointer over the target"},
		{"hover beside it", 100, 200, true, "Pointer off the target"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"x": board.X + tc.dx, "y": board.Y + tc.dy}
			verb := "Clicked at"
			if tc.hover {
				args["hover"] = true
				verb = "Hovered at"
			}
			r, s := act(t, c, toolapi.Click, args)
			if !r.Success {
				t.Fatalf("error %v: %s", r.Error, r.Message)
			}
			if !strings.Contains(r.Message, verb) || !strings.Contains(r.Message, `image "Target board"`) || !strings.Contains(r.Message, "(http://127.0.0.1") {
				t.Errorf("message %q; want it to say %s the point, on image \"Target board\", on the page's site", r.Message, verb)
			}
			if !strings.Contains(s.Text, tc.page) {
				t.Errorf("the page does not say %q:\n%s", tc.page, s.Text)
			}
		})
	}
	r, _ := act(t, c, toolapi.Click, map[string]any{"x": 5000, "y": 10})
	if r.Success || r.Error == nil || *r.Error != string(toolapi.InvalidParams) || !strings.Contains(r.Message, "outside the viewport") {
		t.Errorf("a point outside the viewport: error %v, message %q; want invalid_params saying so", r.Error, r.Message)
	}
	r, _ = act(t, c, toolapi.Click, map[string]any{"x": 10, "y": 10, "ref": "@e1"})
	if r.Success || r.Error == nil || *r.Error != string(toolapi.InvalidParams) {
		t.Errorf("ref with x,y: error %v, message %q; want invalid_params", r.Error, r.Message)
	}
}

// TestClickAtNeedsVision checks that without --caps vision a point is no
// argument browser_click takes: it is a click without a ref, and nothing
// is clicked.
func TestClickAtNeedsVision(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, _, _ := stdioClient(t, nil, "serve", "--url", site.URL+"/variants/canvas", "--profile", "none")
	board := find(t, getSnapshot(t, c), "image", "Target board").BBox
	r, s := act(t, c, toolapi.Click, map[string]any{"x": board.X + 300, "y": board.Y + 120})
	if r.Success || r.Error == nil || *r.Error != string(toolapi.RefInvalid) {
		t.Errorf("x,y without vision: error %v, message %q; want ref_invalid, as for any click without a ref", r.Error, r.Message)
	}
	if !strings.Contains(s.Text, "No click yet") {
		t.Errorf("the board was clicked without vision:\n%s", s.Text)
	}
}

// TestVisionGateJudgesWhatIsAtThePoint clicks by coordinates on a Pay
// button drawn on a canvas inside a cross-site payment frame, with the
// default policy: the person is asked about the button at the point, in
// that frame, and sees the point marked on the screenshot; rejected,
// nothing is paid; approved, the click lands and the result names what was
// under the point and the frame's site.
func TestVisionGateJudgesWhatIsAtThePoint(t *testing.T) {
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, host, _ := webhookServe(t, "--url", site.URL+"/variants/canvas", "--caps", "vision")
	pay := find(t, getSnapshot(t, c), "button", "Pay $20").BBox
	x, y := pay.X+20, pay.Y+pay.Height/2
	args := map[string]any{"x": x, "y": y}

	p, s := keysRefused(t, c, host, toolapi.Click, args)
	a := p.Concrete
	if a == nil || a.Role != "button" || a.Name != "Pay $20" || !strings.Contains(a.Where.URL, "//localhost:") || !strings.Contains(a.Where.URL, "/variants/canvas-pay") {
		t.Fatalf("the person was asked about %+v; want button \"Pay $20\" in the localhost payment frame", a)
	}
	if a.Box == nil || a.Box.X+a.Box.Width/2 != x || a.Box.Y+a.Box.Height/2 != y {
		t.Errorf("the marked box %+v is not centred on the point %v,%v", a.Box, x, y)
	}
	if p.Screenshot == nil {
		t.Fatal("the person saw no screenshot")
	}
	img, _, err := image.Decode(bytes.NewReader(p.Screenshot.Data))
	if err != nil {
		t.Fatalf("decode the person's screenshot: %v", err)
	}
	// The mark is drawn just outside the box around the point.
	vp := s.Viewport
	sx, sy := float64(img.Bounds().Dx())/vp.Width, float64(img.Bounds().Dy())/vp.Height
	r, g, b, _ := img.At(int(a.Box.X*sx)-2, int(y*sy)).RGBA()
	if r>>8 < 0xc0 || g>>8 > 0x40 || b>>8 > 0x40 {
		t.Errorf("no red mark beside the point on the person's screenshot: pixel %d,%d,%d", r>>8, g>>8, b>>8)
	}
	if strings.Contains(s.Text, "Paid $20") {
		t.Fatalf("paid although the person said no:\n%s", s.Text)
	}

	host.decisions <- map[string]any{"approved": true}
	res, after := keysAct(t, c, toolapi.Click, args)
	host.asked(t)
	if !res.Success {
		t.Fatalf("approved click at the point: error %v, message %q", res.Error, res.Message)
	}
	if !strings.Contains(res.Message, `button "Pay $20" in a frame of http://localhost`) {
		t.Errorf("message %q does not name the button and its frame's site", res.Message)
	}
	if !strings.Contains(after.Text, "Paid $20") {
		t.Errorf("the page does not say it was paid:\n%s", after.Text)
	}
}
