package shotdiff

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// page draws a synthetic screenshot: a white 800×450 page with a dark
// header, a form field and a scrollbar whose thumb starts at thumbY.
func page(thumbY int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 800, 450))
	fill(img, img.Rect, color.NRGBA{255, 255, 255, 255})
	fill(img, image.Rect(0, 0, 800, 40), color.NRGBA{20, 20, 20, 255})
	// The field: a grey border around white.
	fill(img, image.Rect(100, 100, 400, 130), color.NRGBA{138, 138, 138, 255})
	fill(img, image.Rect(101, 101, 399, 129), color.NRGBA{255, 255, 255, 255})
	// The scrollbar: its track and its thumb.
	fill(img, image.Rect(788, 40, 800, 450), color.NRGBA{240, 240, 240, 255})
	fill(img, image.Rect(790, thumbY, 798, thumbY+120), color.NRGBA{160, 160, 160, 255})
	return img
}

func fill(img *image.NRGBA, r image.Rectangle, c color.NRGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
}

// letter draws a glyph-sized blot, as a typed character is.
func letter(img *image.NRGBA, x, y int) {
	fill(img, image.Rect(x, y, x+6, y+9), color.NRGBA{31, 31, 31, 255})
	fill(img, image.Rect(x+2, y+2, x+4, y+7), color.NRGBA{255, 255, 255, 255})
}

func TestChanged(t *testing.T) {
	t.Parallel()
	base := page(60)
	for _, tc := range []struct {
		name    string
		draw    func() *image.NRGBA
		changed bool
		within  image.Rectangle // the change must lie inside, when changed
	}{
		{"the same page", func() *image.NRGBA { return page(60) }, false, image.Rectangle{}},
		{"a caret blinks in the field", func() *image.NRGBA {
			img := page(60)
			fill(img, image.Rect(110, 106, 111, 124), color.NRGBA{0, 0, 0, 255})
			return img
		}, false, image.Rectangle{}},
		{"an anti-aliased caret, two pixels wide", func() *image.NRGBA {
			img := page(60)
			fill(img, image.Rect(110, 106, 111, 124), color.NRGBA{0, 0, 0, 255})
			fill(img, image.Rect(111, 106, 112, 124), color.NRGBA{180, 180, 180, 255})
			return img
		}, false, image.Rectangle{}},
		{"the scrollbar thumb jitters by a pixel", func() *image.NRGBA { return page(61) }, false, image.Rectangle{}},
		{"the scrollbar thumb jitters by two pixels", func() *image.NRGBA { return page(62) }, false, image.Rectangle{}},
		{"compression noise", func() *image.NRGBA {
			img := page(60)
			for x := 0; x < 800; x += 3 {
				img.SetNRGBA(x, 200+x%7, color.NRGBA{240, 240, 240, 255})
			}
			return img
		}, false, image.Rectangle{}},
		{"a letter typed into the field", func() *image.NRGBA {
			img := page(60)
			letter(img, 106, 110)
			return img
		}, true, image.Rect(100, 100, 120, 125)},
		{"a new panel opens", func() *image.NRGBA {
			img := page(60)
			fill(img, image.Rect(200, 200, 600, 400), color.NRGBA{250, 235, 235, 255})
			fill(img, image.Rect(200, 200, 600, 230), color.NRGBA{179, 38, 30, 255})
			return img
		}, true, image.Rect(200, 200, 600, 400)},
		{"the page scrolled", func() *image.NRGBA { return page(90) }, true, image.Rect(788, 60, 800, 210)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, changed := Changed(grayFor(t, base), grayFor(t, tc.draw()))
			if changed != tc.changed {
				t.Fatalf("changed = %v (region %v), want %v", changed, r, tc.changed)
			}
			if !changed {
				return
			}
			if want := tc.within.Inset(-Margin); !r.In(want) || !tc.within.Overlaps(r) {
				t.Errorf("region %v, want within %v", r, want)
			}
		})
	}
	t.Run("another size", func(t *testing.T) {
		t.Parallel()
		small := image.NewNRGBA(image.Rect(0, 0, 400, 450))
		r, changed := Changed(grayFor(t, base), grayFor(t, small))
		if !changed || r != image.Rect(0, 0, 400, 450) {
			t.Errorf("a smaller image: region %v changed %v, want all of it", r, changed)
		}
	})
}

// TestChangedJPEG: a JPEG screenshot (--screenshot-format jpeg) is
// compared on its own luminance: the same page encoded alike is the same,
// a new panel is a change, and a clip of it is a JPEG.
func TestChangedJPEG(t *testing.T) {
	t.Parallel()
	enc := func(img image.Image) *Shot {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
			t.Fatal(err)
		}
		s, err := Decode(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := enc(page(60))
	if r, changed := Changed(base.RGB, enc(page(60)).RGB); changed {
		t.Errorf("the same page: changed at %v", r)
	}
	panel := page(60)
	fill(panel, image.Rect(200, 200, 600, 400), color.NRGBA{179, 38, 30, 255})
	cur := enc(panel)
	r, changed := Changed(base.RGB, cur.RGB)
	if !changed || !r.Overlaps(image.Rect(200, 200, 600, 400)) {
		t.Fatalf("a new panel: changed %v at %v", changed, r)
	}
	data, err := cur.Clip(r, "image/jpeg", 80)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != r.Dx() || cfg.Height != r.Dy() {
		t.Errorf("the clip: %+v, %v; want a JPEG of %v", cfg, err, r.Size())
	}
}

// TestSeenAndClip: after a clip was sent, what the agent saw is the old
// image with the clip's part new; the clip holds the new pixels.
func TestSeenAndClip(t *testing.T) {
	t.Parallel()
	before, after := page(60), page(60)
	letter(after, 106, 110)
	fill(after, image.Rect(500, 300, 501, 320), color.NRGBA{0, 0, 0, 255}) // a caret elsewhere
	var buf bytes.Buffer
	if err := png.Encode(&buf, after); err != nil {
		t.Fatal(err)
	}
	cur, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	prev := grayFor(t, before)
	r, changed := Changed(prev, cur.RGB)
	if !changed {
		t.Fatal("the letter made no change")
	}
	seen := Seen(prev, cur.RGB, r)
	if _, again := Changed(seen, cur.RGB); again {
		t.Errorf("what was seen still differs from the page")
	}
	if seen.RGBAAt(500, 310) != prev.RGBAAt(500, 310) {
		t.Errorf("the caret outside the clip counts as seen")
	}
	data, err := cur.Clip(r, "image/png", 0)
	if err != nil {
		t.Fatal(err)
	}
	clip, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if clip.Bounds().Dx() != r.Dx() || clip.Bounds().Dy() != r.Dy() {
		t.Fatalf("clip %v, want %v", clip.Bounds(), r)
	}
	for y := range r.Dy() {
		for x := range r.Dx() {
			if color.RGBAModel.Convert(clip.At(x, y)) != cur.RGB.At(r.Min.X+x, r.Min.Y+y) {
				t.Fatalf("clip pixel %d,%d is not the screenshot's", x, y)
			}
		}
	}
}

// BenchmarkCompare measures what auto adds to a result: decoding the
// screenshot taken anyway (a 500-token one, 816×459, as noisy as a photo),
// comparing it with the last one sent, and cutting the clip. Measured: about
// 3 ms, as for two of Chromium's screenshots of the demo site (44 ms before
// decoding read RGBA's bytes directly).
func BenchmarkCompare(b *testing.B) {
	before, after := image.NewNRGBA(image.Rect(0, 0, 816, 459)), image.NewNRGBA(image.Rect(0, 0, 816, 459))
	for i := range before.Pix {
		before.Pix[i] = uint8(i * 7 % 251)
		after.Pix[i] = before.Pix[i]
	}
	fill(after, image.Rect(200, 200, 400, 260), color.NRGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, after); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	prev := grayFor(b, before)
	for b.Loop() {
		cur, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		r, _ := Changed(prev, cur.RGB)
		if _, err := cur.Clip(r, "image/png", 0); err != nil {
			b.Fatal(err)
		}
	}
}

// grayFor is img's colour as Decode reads it from a PNG.
func grayFor(tb testing.TB, img image.Image) *image.RGBA {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	s, err := Decode(buf.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return s.RGB
}

// TestChangedColour: a change of colour alone, as bright as before, is a
// change a person sees: a status dot from red to green, the field's grey
// border turned red (an error), a button's blue turned to a danger red.
func TestChangedColour(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		was, is   color.NRGBA
		r, border image.Rectangle
	}{
		{"a status dot from red to green", color.NRGBA{200, 0, 0, 255}, color.NRGBA{0, 102, 0, 255}, image.Rect(300, 300, 312, 312), image.Rectangle{}},
		{"the field's border from grey to red", color.NRGBA{138, 138, 138, 255}, color.NRGBA{255, 105, 0, 255}, image.Rect(100, 100, 400, 130), image.Rect(101, 101, 399, 129)},
		{"a button from blue to red", color.NRGBA{11, 87, 208, 255}, color.NRGBA{179, 38, 30, 255}, image.Rect(500, 300, 620, 336), image.Rectangle{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			y := func(c color.NRGBA) uint8 { return color.GrayModel.Convert(c).(color.Gray).Y }
			if d := int(y(tc.was)) - int(y(tc.is)); d >= Threshold || d <= -Threshold {
				t.Fatalf("the two colours differ in luminance by %d: not a change of colour alone", d)
			}
			draw := func(c color.NRGBA) *image.NRGBA {
				img := page(60)
				fill(img, tc.r, c)
				if !tc.border.Empty() {
					fill(img, tc.border, color.NRGBA{255, 255, 255, 255})
				}
				return img
			}
			r, changed := Changed(grayFor(t, draw(tc.was)), grayFor(t, draw(tc.is)))
			if !changed {
				t.Fatal("a change of colour is no change")
			}
			if !tc.r.Overlaps(r) || !r.In(tc.r.Inset(-Margin)) {
				t.Errorf("region %v, want within %v", r, tc.r.Inset(-Margin))
			}
		})
	}
}

// TestChangedThinLines: a change thinner than MinSpan is still a change
// when it is a line no caret draws: a field's underline turned red (an
// error), a two-pixel progress bar that grew, a thin bar beside the item
// that has the focus now; a caret as tall as a heading's is still none.
func TestChangedThinLines(t *testing.T) {
	t.Parallel()
	base := page(60)
	for _, tc := range []struct {
		name    string
		r       image.Rectangle
		c       color.NRGBA
		changed bool
	}{
		{"a field's underline turns red", image.Rect(100, 129, 400, 130), color.NRGBA{179, 38, 30, 255}, true},
		{"a progress bar two pixels tall grows", image.Rect(0, 40, 120, 42), color.NRGBA{11, 87, 208, 255}, true},
		{"a focus bar one pixel wide", image.Rect(60, 200, 61, 260), color.NRGBA{11, 87, 208, 255}, true},
		{"a heading's caret", image.Rect(300, 300, 301, 340), color.NRGBA{0, 0, 0, 255}, false},
		{"a short horizontal stroke", image.Rect(300, 300, 310, 301), color.NRGBA{0, 0, 0, 255}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			img := page(60)
			fill(img, tc.r, tc.c)
			r, changed := Changed(grayFor(t, base), grayFor(t, img))
			if changed != tc.changed {
				t.Fatalf("changed = %v (region %v), want %v", changed, r, tc.changed)
			}
			if changed && (!tc.r.Overlaps(r) || !r.In(tc.r.Inset(-Margin))) {
				t.Errorf("region %v, want within %v", r, tc.r.Inset(-Margin))
			}
		})
	}
}
