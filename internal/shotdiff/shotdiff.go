// Package shotdiff tells whether two screenshots of a page look different to
// a person, and where: what --screenshots auto needs to leave out an image
// the agent has in effect already seen, and to send only the part of one
// that changed.
//
// The comparison is pixel-exact in luminance but ignores what a person would
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
	// Threshold is the least luminance difference (of 255) that makes two
	// pixels differ: below it is compression and anti-aliasing noise.
	Threshold = 24
	// Margin pads a changed region, in image pixels, so that a clip shows
	// what surrounds the change.
	Margin = 8
)

// Shot is a decoded screenshot: its pixels, to crop a clip from, and their
// luminance, one byte a pixel, to compare.
type Shot struct {
	img  image.Image
	Gray *image.Gray
}

// Decode decodes a PNG or JPEG screenshot.
func Decode(data []byte) (*Shot, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode screenshot: %w", err)
	}
	return &Shot{img: img, Gray: grayOf(img)}, nil
}

// grayOf is img's luminance (ITU-R 601, as image/color's GrayModel).
func grayOf(img image.Image) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	// Chromium's PNG decodes as RGBA (it has no alpha channel) and a JPEG
	// as YCbCr: each read straight from its bytes, not through an
	// interface call a pixel, which costs ten times as much.
	switch src := img.(type) {
	case *image.RGBA:
		rgbGray(g, src.Pix, src.Stride, b.Dx(), b.Dy())
	case *image.NRGBA:
		rgbGray(g, src.Pix, src.Stride, b.Dx(), b.Dy())
	case *image.YCbCr:
		for y := range b.Dy() {
			copy(g.Pix[y*g.Stride:y*g.Stride+b.Dx()], src.Y[y*src.YStride:])
		}
	default:
		draw.Draw(g, g.Rect, img, b.Min, draw.Src)
	}
	return g
}

// rgbGray writes into g the luminance of w×h pixels of 4 bytes each (red,
// green, blue, then alpha, which a screenshot has opaque) in pix.
func rgbGray(g *image.Gray, pix []uint8, stride, w, h int) {
	for y := range h {
		row := pix[y*stride : y*stride+4*w]
		out := g.Pix[y*g.Stride:]
		for x := range w {
			r, gg, bb := uint32(row[4*x]), uint32(row[4*x+1]), uint32(row[4*x+2])
			out[x] = uint8((19595*r + 38470*gg + 7471*bb + 1<<15) >> 16)
		}
	}
}

// Changed returns the smallest rectangle, padded by Margin, that holds every
// block where cur looks different from prev, and whether there is any. Two
// images of different sizes differ everywhere.
func Changed(prev, cur *image.Gray) (image.Rectangle, bool) {
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
func blockChange(prev, cur *image.Gray, b image.Rectangle) (image.Rectangle, bool) {
	x0, y0, x1, y1 := b.Max.X, b.Max.Y, b.Min.X-1, b.Min.Y-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		p := prev.Pix[y*prev.Stride : y*prev.Stride+b.Max.X]
		c := cur.Pix[y*cur.Stride : y*cur.Stride+b.Max.X]
		for x := b.Min.X; x < b.Max.X; x++ {
			d := int(p[x]) - int(c[x])
			if d < Threshold && d > -Threshold {
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

// Seen returns what the agent has seen after it was sent the part r of cur
// on top of prev: prev with r taken from cur. prev is not changed.
func Seen(prev, cur *image.Gray, r image.Rectangle) *image.Gray {
	if prev == nil || prev.Rect != cur.Rect || r.Eq(cur.Rect) {
		return cur
	}
	g := image.NewGray(prev.Rect)
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
