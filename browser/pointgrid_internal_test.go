package browser

import (
	"math"
	"testing"
)

func TestSnapToDocument(t *testing.T) {
	tests := []struct {
		name      string
		v, scroll Point
		doc       [2]int64
		at        Point
	}{
		{"on the grid", Point{100, 40}, Point{}, [2]int64{100, 40}, Point{100, 40}},
		{"a fraction short of an edge", Point{99.9, 40.2}, Point{}, [2]int64{99, 40}, Point{99, 40}},
		{"scrolled by whole pixels", Point{99.9, 40.2}, Point{0, 300}, [2]int64{99, 340}, Point{99, 40}},
		{"scrolled by a fraction", Point{99.9, 40.2}, Point{0.4, 10.5}, [2]int64{100, 50}, Point{99.6, 39.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, at := snapToDocument(tc.v, tc.scroll)
			if doc != tc.doc || at != tc.at {
				t.Errorf("snap %v scrolled %v = %v at %v, want %v at %v", tc.v, tc.scroll, doc, at, tc.doc, tc.at)
			}
			// The point sent, scrolled, is the pixel judged, exactly.
			if at.X+tc.scroll.X != float64(doc[0]) || at.Y+tc.scroll.Y != float64(doc[1]) {
				t.Errorf("%v + %v is not the document pixel %v", at, tc.scroll, doc)
			}
		})
	}
}

func TestFrameMap(t *testing.T) {
	tests := []struct {
		name string
		quad []float64
		w, h float64
		// in is a point of the parent, want the same point in the frame.
		in, want Point
		err      bool
	}{
		{"offset", []float64{10.5, 20, 310.5, 20, 310.5, 220, 10.5, 220}, 300, 200, Point{110.5, 70}, Point{100, 50}, false},
		{"scaled by half", []float64{0, 0, 150, 0, 150, 100, 0, 100}, 300, 200, Point{50, 25}, Point{100, 50}, false},
		{"turned a quarter", []float64{200, 0, 200, 300, 0, 300, 0, 0}, 300, 200, Point{150, 100}, Point{100, 50}, false},
		{"in perspective", []float64{0, 0, 300, 10, 290, 200, 0, 200}, 300, 200, Point{}, Point{}, true},
		{"flat", []float64{0, 0, 300, 0, 300, 0, 0, 0}, 300, 200, Point{}, Point{}, true},
		{"no quad", []float64{0, 0}, 300, 200, Point{}, Point{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := newFrameMap(tc.quad, tc.w, tc.h)
			if (err != nil) != tc.err {
				t.Fatalf("newFrameMap: %v, want error %v", err, tc.err)
			}
			if err != nil {
				return
			}
			got := m.in(tc.in)
			if math.Abs(got.X-tc.want.X) > 1e-9 || math.Abs(got.Y-tc.want.Y) > 1e-9 {
				t.Errorf("in(%v) = %v, want %v", tc.in, got, tc.want)
			}
			back := m.out(got)
			if math.Abs(back.X-tc.in.X) > 1e-9 || math.Abs(back.Y-tc.in.Y) > 1e-9 {
				t.Errorf("out(in(%v)) = %v", tc.in, back)
			}
		})
	}
}

func TestCorners(t *testing.T) {
	if got := corners(Point{99, 40}, Point{}); len(got) != 1 || got[0] != [2]int64{99, 40} {
		t.Errorf("a point on the grid: %v, want only its own pixel", got)
	}
	if got := corners(Point{99.5, 40}, Point{0, 0.5}); len(got) != 4 {
		t.Errorf("a point off the grid both ways: %v, want the four pixels around it", got)
	}
}
