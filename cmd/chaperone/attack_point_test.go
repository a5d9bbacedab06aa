package main

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// pointOrders is the coordinates fixture's own count of orders placed.
var pointOrders = regexp.MustCompile(`Orders placed: (\d+)`)

func pointOrdersOf(t *testing.T, s *snapshot.Snapshot) string {
	t.Helper()
	m := pointOrders.FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no order count on the page:\n%s", s.Text)
	}
	return m[1]
}

// The input goes exactly where the gate looked. Under --caps vision a
// click at a point was judged at the point truncated to whole pixels and
// sent to the point itself: x = 99.9 beside a gated "Place order" whose
// edge is at 100 was judged as the plain div (or "Read more") at 99, and
// the order was placed unasked; beside "Read more" the miss was resent
// onto the button, and the order placed twice. The same edge made by a
// fractional transform, by zoom, across rather than along, and a page that
// slides the button under the pointer as it arrives. The person rejects
// anything they are asked: no order may ever be placed.
func TestAttackPointAtASubPixelEdge(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(fixtures.Site())
	defer site.Close()
	c, host, _ := webhookServe(t, "--url", site.URL+"/hostile/point-edge", "--caps", "vision")
	tests := []struct {
		name string
		x, y float64
		// query is added to the page's address.
		query string
	}{
		{"a plain div ends at 99.95", 99.9, 80, ""},
		{"Read more ends at 99.95", 99.9, 140, ""},
		{"a fractional transform", 99.9, 200, ""},
		{"zoom", 99.9, 250, ""},
		{"the edge runs across", 100, 339.9, ""},
		{"a hair's breadth past the whole pixel", 99.01, 80, ""},
		{"Read more, a hair's breadth past the whole pixel", 99.01, 140, ""},
		{"the page slides the button under the pointer", 100, 480, ""},
		// The whole page zoomed by 1.25: the edge at 125, Read more's
		// row at 150 to 200.
		{"the page zoomed", 124.9, 100, "?zoom=1.25"},
		{"Read more on the page zoomed", 124.9, 175, "?zoom=1.25"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Each case on the page as it loaded: no earlier order counts.
			if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/point-edge" + tc.query}); !r.Success {
				t.Fatalf("reload: %v %s", r.Error, r.Message)
			}
			// The person says no, if they are asked at all.
			host.decisions <- map[string]any{"approved": false, "feedback": "not this"}
			r, s := keysAct(t, c, toolapi.Click, map[string]any{"x": tc.x, "y": tc.y})
			asked := false
			select {
			case p := <-host.requests:
				asked = true
				if p.Concrete == nil || p.Concrete.Name != "Place order" {
					t.Errorf("the person was asked about %+v; the click was judged as something else than what it reaches", p.Concrete)
				}
			default:
				<-host.decisions
			}
			if got := pointOrdersOf(t, s); got != "0" {
				t.Fatalf("orders placed: %s, though nobody approved one (the person was asked: %v); the result: success %v, %q", got, asked, r.Success, r.Message)
			}
			t.Logf("asked: %v; result: success %v, error %v, %q", asked, r.Success, r.Error, r.Message)
		})
	}
	// The button itself is asked about, and an approved click places one
	// order, not two.
	if r, _ := act(t, c, toolapi.Navigate, map[string]any{"url": site.URL + "/hostile/point-edge"}); !r.Success {
		t.Fatalf("reload: %v %s", r.Error, r.Message)
	}
	host.decisions <- map[string]any{"approved": true}
	r, s := keysAct(t, c, toolapi.Click, map[string]any{"x": 160.4, "y": 80})
	if p := host.asked(t); p.Concrete == nil || p.Concrete.Name != "Place order" {
		t.Errorf("the person was asked about %+v, want the Place order button", p.Concrete)
	}
	if !r.Success || pointOrdersOf(t, s) != "1" {
		t.Errorf("an approved click on the button: success %v, %q; page: %s", r.Success, r.Message, strings.TrimSpace(pointOrders.FindString(s.Text)))
	}
}

// TestPointPressNotOnWhatMovedUnder: a click on "Read more", by its ref or
// at a point on it, on a page that moves a gated "Place order" under the
// pointer as it arrives and stops the press on it before the server's
// listeners hear it, placed the order though nobody was asked. The button
// is pressed only where the element judged is still under the pointer.
func TestPointPressNotOnWhatMovedUnder(t *testing.T) {
	t.Parallel()
	for _, on := range []string{"pointermove", "mouseover"} {
		for _, by := range []string{"ref", "point"} {
			t.Run(on+" "+by, func(t *testing.T) {
				t.Parallel()
				c, host := keysServe(t, "/hostile/click-swap?on="+on, "--caps", "vision")
				s := getSnapshot(t, c)
				args := map[string]any{"ref": browsertest.Ref(t, s, "button", "Read more")}
				if by == "point" {
					e, ok := s.Find("button", "Read more")
					if !ok {
						t.Fatal("no Read more button")
					}
					args = map[string]any{"x": e.BBox.X + e.BBox.Width/2, "y": e.BBox.Y + e.BBox.Height/2}
				}
				r, s := keysAct(t, c, toolapi.Click, args)
				if r.Success {
					t.Errorf("the click on Read more succeeded: %q", r.Message)
				}
				keysStatus(t, s, "No order placed")
				host.notAsked(t)
			})
		}
	}
}
