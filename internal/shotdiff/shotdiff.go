// Package shotdiff tells whether two screenshots of a page look different to
// a person, and where: what --screenshots auto needs to leave out an image
// the agent has in effect already seen, and to send only the part of one
// that changed.
//
// The comparison is pixel-exact in colour but ignores what a person would
// not call a change: a difference is counted only where, within one block of
// Block×Block pixels, it spans at least MinSpan pixels both ways. A blinking
// caret, a scrollbar thumb that moved a pixel or two, a lone anti-aliasing
// difference do not; a typed letter, a ticked box, a new panel do. It is
// pure code on the image already taken, with no browser.
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
// block where cur looks different from prev, and whether there is any. Two
// images of different sizes differ everywhere.
func Changed(prev, cur *image.RGBA) (image.Rectangle, bool) {
	if prev == nil || cur == nil {
		return image.Rectangle{}, cur != nil
	}
	w, h := cur.Rect.Dx(), cur.Rect.Dy()
	if prev.Rect.Dx() != w || prev.Rect.Dy() != h {
		return image.Rect(0, 0, w, h), true
	}
	var region image.Rectangle
	for by := 0; by < h; by += Block {
		for bx := 0; bx < w; bx += Block {
			if r, ok := blockChange(prev, cur, image.Rect(bx, by, min(bx+Block, w), min(by+Block, h))); ok {
				region = region.Union(r)
			}
		}
	}
	if region.Empty() {
		return image.Rectangle{}, false
	}
	return region.Inset(-Margin).Intersect(image.Rect(0, 0, w, h)), true
}

// blockChange is the bounding box of the pixels of block b that differ,
// when it spans MinSpan both ways.
func blockChange(prev, cur *image.RGBA, b image.Rectangle) (image.Rectangle, bool) {
	x0, y0, x1, y1 := b.Max.X, b.Max.Y, b.Min.X-1, b.Min.Y-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		p := prev.Pix[y*prev.Stride : y*prev.Stride+4*b.Max.X]
		c := cur.Pix[y*cur.Stride : y*cur.Stride+4*b.Max.X]
		for x := b.Min.X; x < b.Max.X; x++ {
			if !differ(p[4*x:4*x+3], c[4*x:4*x+3]) {
				continue
			}
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
		}
	}
	if x1-x0+1 < MinSpan || y1-y0+1 < MinSpan {
		return image.Rectangle{}, false
	}
	return image.Rect(x0, y0, x1+1, y1+1), true
}

// differ reports whether two pixels' red, green and blue differ by
// Threshold or more in any one of them.
func differ(p, c []uint8) bool {
	for i := range 3 {
		if d := int(p[i]) - int(c[i]); d >= Threshold || d <= -Threshold {
			return true
		}
	}
	return false
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
