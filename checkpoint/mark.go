package checkpoint

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"

	"github.com/chaperone-mcp/chaperone/snapshot"
)

// markWidth is the width, in image pixels, of the rectangle MarkTarget draws.
const markWidth = 3

// markColor is bright enough to find on any page at a glance.
var markColor = color.RGBA{R: 0xe0, A: 0xff}

// MarkTarget returns a copy of shot with a red rectangle drawn around box, so
// that a person sees which element an action is about. box is in viewport
// CSS pixels, and vp is the viewport the screenshot shows; the box is scaled
// to the image's pixels. A PNG stays PNG and a JPEG stays JPEG. When there is
// nothing to draw on (nil shot, an image it cannot decode, a box outside
// the image), it returns shot unchanged.
func MarkTarget(shot *snapshot.Screenshot, box snapshot.BBox, vp snapshot.Viewport) *snapshot.Screenshot {
	if shot == nil || len(shot.Data) == 0 || vp.Width <= 0 || vp.Height <= 0 {
		return shot
	}
	src, format, err := image.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		return shot
	}
	b := src.Bounds()
	sx, sy := float64(b.Dx())/vp.Width, float64(b.Dy())/vp.Height
	target := image.Rect(
		b.Min.X+int(box.X*sx), b.Min.Y+int(box.Y*sy),
		b.Min.X+int((box.X+box.Width)*sx+0.999), b.Min.Y+int((box.Y+box.Height)*sy+0.999),
	)
	// The rectangle goes just outside the box, so it hides none of it.
	outer := target.Inset(-markWidth)
	if !outer.Overlaps(b) {
		return shot
	}
	img := image.NewRGBA(b)
	draw.Draw(img, b, src, b.Min, draw.Src)
	paint := image.NewUniform(markColor)
	for _, edge := range []image.Rectangle{
		image.Rect(outer.Min.X, outer.Min.Y, outer.Max.X, target.Min.Y),   // top
		image.Rect(outer.Min.X, target.Max.Y, outer.Max.X, outer.Max.Y),   // bottom
		image.Rect(outer.Min.X, target.Min.Y, target.Min.X, target.Max.Y), // left
		image.Rect(target.Max.X, target.Min.Y, outer.Max.X, target.Max.Y), // right
	} {
		draw.Draw(img, edge.Intersect(b), paint, image.Point{}, draw.Src)
	}
	var buf bytes.Buffer
	var mime string
	if format == "jpeg" {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
		mime = "image/jpeg"
	} else {
		err = png.Encode(&buf, img)
		mime = "image/png"
	}
	if err != nil {
		return shot
	}
	out := *shot
	out.Data, out.MIMEType = buf.Bytes(), mime
	return &out
}
