// Package shotdiff tells whether two screenshots of a page look different to
// a person, and where: what --screenshots auto needs to leave out an image
// the agent has in effect already seen, and to send only the part of one
// that changed.
//
// The comparison is pixel-exact in colour but ignores what a person would
// not call a change: a difference is counted only where, within one block of
// Block×Block pixels, it spans at least MinSpan pixels both ways. A blinking
// caret, a scrollbar thumb that moved a pixel or two, a lone anti-aliasing
// difference do not; a typed letter, a ticked box, a new panel do. A thinner
// change counts when it is a line longer than those draw (Line, Column): an
// underline turned red. It is pure code on the image already taken, with no
// browser.
package shotdiff

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
)

const (
	// Block is the side, in image pixels, of the blocks a difference is
	// judged in.
	Block = 16
	// MinSpan is how far, both ways, the differing pixels of one block
	// must reach for the block to have changed.
	MinSpan = 3
	// Threshold is the least difference (of 255) in red, green or blue that
	// makes two pixels differ: below it is compression and anti-aliasing
	// noise.
	Threshold = 24
	// Line is how long a run of differing pixels across must be to count
	// however thin: longer than a scrollbar thumb is wide. No caret draws
	// across.
	Line = Block
	// Column is how long a run down must be to count however thin: longer
	// than the caret of a heading's text.
	Column = 3 * Block
	// Margin pads a changed region, in image pixels, so that a clip shows
	// what surrounds the change.
	Margin = 8
)

// Shot is a decoded screenshot: its pixels, to crop a clip from, and their
// colour, red, green and blue, to compare.
type Shot struct {
	img image.Image
	RGB *image.RGBA
}

// Decode decodes a PNG or JPEG screenshot.
func Decode(data []byte) (*Shot, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode screenshot: %w", err)
	}
	return &Shot{img: img, RGB: rgbOf(img)}, nil
}

// rgbOf is img's colour, from (0,0). Colour, not luminance alone: a status
// dot that turns from red to a green as bright, a border gone from grey to
// red, are changes a person sees that luminance does not.
func rgbOf(img image.Image) *image.RGBA {
	// Chromium's PNG decodes as RGBA (it has no alpha channel): used as it
	// is. Anything else (a JPEG's YCbCr) is drawn, which image/draw does
	// without an interface call a pixel.
	if src, ok := img.(*image.RGBA); ok && src.Rect.Min == (image.Point{}) {
		return src
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// Changed returns the smallest rectangle, padded by Margin, that holds every
// block where cur looks different from prev, and every line of differing
// pixels as long as a Line or a Column, and whether there is any. Two images
// of different sizes differ everywhere.
func Changed(prev, cur *image.RGBA) (image.Rectangle, bool) {
	if prev == nil || cur == nil {
		return image.Rectangle{}, cur != nil
	}
	w, h := cur.Rect.Dx(), cur.Rect.Dy()
	if prev.Rect.Dx() != w || prev.Rect.Dy() != h {
		return image.Rect(0, 0, w, h), true
	}
	// One pass, row by row: each block's box of differing pixels, each
	// row's runs across, each column's run down so far.
	nbx := (w + Block - 1) / Block
	boxes := make([]image.Rectangle, nbx*((h+Block-1)/Block))
	down := make([]int, w)
	var region image.Rectangle
	for y := range h {
		p := prev.Pix[y*prev.Stride : y*prev.Stride+4*w]
		c := cur.Pix[y*cur.Stride : y*cur.Stride+4*w]
		across := 0
		for x := range w {
			if !differ(p[4*x], c[4*x]) && !differ(p[4*x+1], c[4*x+1]) && !differ(p[4*x+2], c[4*x+2]) {
				if across >= Line {
					region = region.Union(image.Rect(x-across, y, x, y+1))
				}
				if down[x] >= Column {
					region = region.Union(image.Rect(x, y-down[x], x+1, y))
				}
				across, down[x] = 0, 0
				continue
			}
			across++
			down[x]++
			bx := &boxes[(y/Block)*nbx+x/Block]
			*bx = bx.Union(image.Rect(x, y, x+1, y+1))
		}
		if across >= Line {
			region = region.Union(image.Rect(w-across, y, w, y+1))
		}
	}
	for x, n := range down {
		if n >= Column {
			region = region.Union(image.Rect(x, h-n, x+1, h))
		}
	}
	for _, b := range boxes {
		if b.Dx() >= MinSpan && b.Dy() >= MinSpan {
			region = region.Union(b)
		}
	}
	if region.Empty() {
		return image.Rectangle{}, false
	}
	return region.Inset(-Margin).Intersect(image.Rect(0, 0, w, h)), true
}

// differ reports whether two values of one channel differ by Threshold or
// more: two pixels differ when any of red, green and blue does.
func differ(p, c uint8) bool {
	d := int(p) - int(c)
	return d >= Threshold || d <= -Threshold
}

// Seen returns what the agent has seen after it was sent the part r of cur
// on top of prev: prev with r taken from cur. prev is not changed.
func Seen(prev, cur *image.RGBA, r image.Rectangle) *image.RGBA {
	if prev == nil || prev.Rect != cur.Rect || r.Eq(cur.Rect) {
		return cur
	}
	g := image.NewRGBA(prev.Rect)
	copy(g.Pix, prev.Pix)
	draw.Draw(g, r, cur, r.Min, draw.Src)
	return g
}

// Clip encodes the part r of s in the format of mime (image/png or
// image/jpeg, at quality for JPEG).
func (s *Shot) Clip(r image.Rectangle, mime string, quality int) ([]byte, error) {
	sub := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(sub, sub.Rect, s.img, s.img.Bounds().Min.Add(r.Min), draw.Src)
	var buf bytes.Buffer
	var err error
	if mime == "image/jpeg" {
		err = jpeg.Encode(&buf, sub, &jpeg.Options{Quality: quality})
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, sub)
	}
	if err != nil {
		return nil, fmt.Errorf("encode the changed part of the screenshot: %w", err)
	}
	return buf.Bytes(), nil
}
