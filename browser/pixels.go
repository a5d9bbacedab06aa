package browser

import (
	"image"
	"math"
)

// What ink a person reads, for TextPainted.
const (
	// inkDelta is the least change of a pixel, in any channel out of 255,
	// that counts as ink: grey 215 on white, about the 1.5:1 contrast
	// below which the capture's rules (snapshot.Seen) call text
	// unreadable. A blur or a faded filter spreads text into changes
	// below it.
	inkDelta = 40
	// inkPerGlyph is the least ink a glyph must change, in pixels on its
	// strokes (see stroke) per CSS pixel of font size. Measured on
	// Chromium's system fonts (TestTextPainted): 3.1 per pixel of font at
	// 12 px, 4.4 to 9 at 30 px, 10 at 48 px bold; 0.7 at most for text
	// blurred by 6 px, and 0 under a 12 px blur. One font size's worth is
	// a third of the least that text a person reads changes. Text scaled, zoomed or clipped to a sliver
	// changes far less; one stray pixel never passes.
	inkPerGlyph = 1.0
	// minInkFont is the font size, in CSS pixels, below which text is
	// judged as if it had this size: a page that says its text is tiny
	// (zoom, a 1 px font) gains nothing by it.
	minInkFont = 6
	// inkColumns is the share of the box's glyph-wide columns that must
	// hold changed ink: text clipped to its first half, or to a few
	// letters, is not the text.
	inkColumns = 2.0 / 3
)

// ink is what making a text transparent changed in its box.
type ink struct {
	// Changed counts the pixels on a stroke (see stroke) that
	// changed by inkDelta or more, among those that were the same in both
	// captures of the shown text.
	Changed int
	// Unstable counts the pixels that changed between the two captures
	// of the shown text (an animation, a video): they tell nothing.
	Unstable int
	// Pixels is the size of the box in pixels.
	Pixels int
	// Columns and Inked are the glyph-wide columns of the box and those
	// that hold a changed pixel.
	Columns, Inked int
}

// measureInk compares shown and again, two captures of a text's box as the
// page shows it, with hidden, the same box with the text transparent: the
// text has glyphs glyphs of font size font (CSS pixels, one per image
// pixel), and the box is cut into glyphs columns.
func measureInk(shown, hidden, again image.Image, glyphs int, font float64) ink {
	b := shown.Bounds().Intersect(hidden.Bounds()).Intersect(again.Bounds())
	w, h := b.Dx(), b.Dy()
	m := ink{Pixels: max(w, 0) * max(h, 0), Columns: max(glyphs, 1)}
	if m.Pixels == 0 {
		return m
	}
	// d is how much hiding the text changed each pixel; -1 where the
	// shown text itself did not hold still.
	d := make([]int16, m.Pixels)
	for y := range h {
		for x := range w {
			p := image.Pt(b.Min.X+x, b.Min.Y+y)
			s := shown.At(p.X, p.Y)
			if delta(s, again.At(p.X, p.Y)) >= inkDelta {
				m.Unstable++
				d[y*w+x] = -1
				continue
			}
			d[y*w+x] = int16(delta(s, hidden.At(p.X, p.Y)))
		}
	}
	// A stroke is at most a quarter of the font size wide (bold fonts
	// measure about a fifth).
	r := max(2, int(math.Ceil(max(font, minInkFont)/4)))
	inked := make([]bool, m.Columns)
	for y := range h {
		for x := range w {
			v := d[y*w+x]
			if int(v) < inkDelta || !stroke(d, w, h, x, y, r) {
				continue
			}
			m.Changed++
			inked[x*m.Columns/w] = true
		}
	}
	for _, ok := range inked {
		if ok {
			m.Inked++
		}
	}
	return m
}

// stroke reports whether pixel (x, y) of change d (w×h) lies on a stroke:
// within r pixels on both sides, across or along, the change falls by
// inkDelta. Drawn text is thin strokes; text blurred, by its own filter or
// by a backdrop's, changes as much only as a smooth smear, and the edge of
// a veil falls on one side only.
func stroke(d []int16, w, h, x, y, r int) bool {
	v := d[y*w+x]
	falls := func(dx, dy int) bool {
		for k := 1; k <= r; k++ {
			nx, ny := x+k*dx, y+k*dy
			if nx < 0 || ny < 0 || nx >= w || ny >= h {
				return false
			}
			u := d[ny*w+nx]
			if u < 0 {
				return false
			}
			if int(v)-int(u) >= inkDelta {
				return true
			}
		}
		return false
	}
	return falls(-1, 0) && falls(1, 0) || falls(0, -1) && falls(0, 1)
}

// legible reports whether the ink is text a person reads: glyphs glyphs of
// font size font (CSS pixels, at least minInkFont) changed inkPerGlyph ×
// font pixels each, across inkColumns of the box, in a box that held still
// enough to tell (at most half of it unstable).
func (i ink) legible(glyphs int, font float64) bool {
	if glyphs <= 0 || i.Pixels == 0 || i.Unstable*2 > i.Pixels {
		return false
	}
	f := max(font, minInkFont)
	if float64(i.Changed) < float64(glyphs)*inkPerGlyph*f {
		return false
	}
	return float64(i.Inked) >= inkColumns*float64(i.Columns)
}

// delta is the largest difference of a channel between two colours, out
// of 255.
func delta(a, b interface{ RGBA() (r, g, b, a uint32) }) uint32 {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	return max(diff(r1, r2), diff(g1, g2), diff(b1, b2)) >> 8
}

func diff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
