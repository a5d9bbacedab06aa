package browsertest

import "image"

// GlyphCells is how many cells across ShownCell and InkCells cut a box
// into: about one glyph each of text drawn large across it.
const GlyphCells = 21

// ink reports whether img's pixel at x, y is dark: part of a glyph drawn
// on a light background.
func ink(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return (r+g+b)/3 < 0x8000
}

// InkCells counts the cells of box in img that hold ink.
func InkCells(img image.Image, box image.Rectangle) int {
	n := 0
	for c := range GlyphCells {
		x0, x1 := box.Min.X+c*box.Dx()/GlyphCells, box.Min.X+(c+1)*box.Dx()/GlyphCells
		found := false
		for y := box.Min.Y; y < box.Max.Y && !found; y++ {
			for x := x0; x < x1 && !found; x++ {
				found = ink(img, x, y)
			}
		}
		if found {
			n++
		}
	}
	return n
}

// ShownCell compares a picture with a reference of the same place that
// shows a text (a secret, unmasked): it returns the first cell of the
// reference's box rbox whose ink the picture's box ibox (scaled to it) has
// too, mostly (four fifths), so that this part of the text shows in the
// picture, and how much of it; -1 when no cell does. A masked text (discs),
// another text or none fails to cover a glyph's strokes.
func ShownCell(ref image.Image, rbox image.Rectangle, img image.Image, ibox image.Rectangle) (int, float64) {
	for c := range GlyphCells {
		both, inked := 0, 0
		for y := 0; y < rbox.Dy(); y++ {
			for x := c * rbox.Dx() / GlyphCells; x < (c+1)*rbox.Dx()/GlyphCells; x++ {
				if !ink(ref, rbox.Min.X+x, rbox.Min.Y+y) {
					continue
				}
				inked++
				ix, iy := ibox.Min.X+x*ibox.Dx()/rbox.Dx(), ibox.Min.Y+y*ibox.Dy()/rbox.Dy()
				if ink(img, ix, iy) {
					both++
				}
			}
		}
		if inked > 40 && float64(both) > 0.8*float64(inked) {
			return c, float64(both) / float64(inked)
		}
	}
	return -1, 0
}

// Scaled is box, in CSS pixels of a viewport width wide, in img's pixels.
func Scaled(box image.Rectangle, img image.Image, width float64) image.Rectangle {
	k := float64(img.Bounds().Dx()) / width
	return image.Rect(int(float64(box.Min.X)*k), int(float64(box.Min.Y)*k), int(float64(box.Max.X)*k), int(float64(box.Max.Y)*k))
}
