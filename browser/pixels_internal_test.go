package browser

import (
	"image"
	"image/color"
	"testing"
)

// textImage draws a w×h box on white: glyphs glyphs, each two vertical
// strokes two pixels wide and a crossbar, in ink, over the first share of
// the glyphs (1 for all of them); with blur set, each stroke is a smooth
// ramp instead.
func textImage(w, h, glyphs int, share float64, ink color.Gray, blur bool) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	cw := w / glyphs
	for g := range int(float64(glyphs) * share) {
		x0 := g*cw + 1
		for y := h / 5; y < h*4/5; y++ {
			for _, sx := range []int{x0, x0 + cw - 4} {
				for dx := range 2 {
					img.SetGray(sx+dx, y, ink)
				}
			}
		}
		for x := x0; x < x0+cw-2; x++ {
			img.SetGray(x, h/2, ink)
		}
	}
	if blur {
		// A box blur as wide as a glyph, across and along, smears every
		// stroke.
		return boxBlur(boxBlur(img, cw, 0), 0, cw)
	}
	return img
}

// boxBlur averages each pixel of img with those up to rx across and ry
// along.
func boxBlur(img *image.Gray, rx, ry int) *image.Gray {
	b := img.Bounds()
	out := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			sum, n := 0, 0
			for dy := -ry; dy <= ry; dy++ {
				for dx := -rx; dx <= rx; dx++ {
					if p := image.Pt(x+dx, y+dy); p.In(b) {
						sum += int(img.GrayAt(p.X, p.Y).Y)
						n++
					}
				}
			}
			out.SetGray(x, y, color.Gray{Y: uint8(sum / n)})
		}
	}
	return out
}

func blank(w, h int, c color.Gray) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = c.Y
	}
	return img
}

// TestInkLegible: drawn text passes; nothing drawn, one stray pixel, half
// the text, faint ink, a smear, a veil that fades out and a box that does
// not hold still do not.
func TestInkLegible(t *testing.T) {
	const w, h, glyphs, font = 200, 24, 10, 20.0
	white := blank(w, h, color.Gray{Y: 255})
	text := textImage(w, h, glyphs, 1, color.Gray{Y: 0}, false)
	stray := blank(w, h, color.Gray{Y: 255})
	stray.SetGray(50, 10, color.Gray{Y: 0})
	veil := blank(w, h, color.Gray{Y: 190})
	noise := image.NewGray(image.Rect(0, 0, w, h))
	for i := range noise.Pix {
		noise.Pix[i] = uint8(i * 97)
	}
	cases := []struct {
		name                 string
		shown, hidden, again image.Image
		want                 bool
	}{
		{"black text", text, white, text, true},
		{"grey text", textImage(w, h, glyphs, 1, color.Gray{Y: 150}, false), white, textImage(w, h, glyphs, 1, color.Gray{Y: 150}, false), true},
		{"nothing changes", text, text, text, false},
		{"one stray pixel", stray, white, stray, false},
		{"half the text", textImage(w, h, glyphs, 0.5, color.Gray{Y: 0}, false), white, textImage(w, h, glyphs, 0.5, color.Gray{Y: 0}, false), false},
		{"faint text", textImage(w, h, glyphs, 1, color.Gray{Y: 225}, false), white, textImage(w, h, glyphs, 1, color.Gray{Y: 225}, false), false},
		{"blurred text", textImage(w, h, glyphs, 1, color.Gray{Y: 0}, true), white, textImage(w, h, glyphs, 1, color.Gray{Y: 0}, true), false},
		{"a veil", veil, white, veil, false},
		{"a box that does not hold still", text, white, noise, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := measureInk(tc.shown, tc.hidden, tc.again, glyphs, font)
			if got := m.legible(glyphs, font); got != tc.want {
				t.Errorf("legible = %v, want %v (%+v)", got, tc.want, m)
			}
		})
	}
}

// TestInkScalesWithFont: the same strokes count as text at the font size
// they fit, not at one four times larger, and a tiny declared font is
// judged as minInkFont.
func TestInkScalesWithFont(t *testing.T) {
	const w, h, glyphs = 200, 24, 10
	text := textImage(w, h, glyphs, 1, color.Gray{Y: 0}, false)
	white := blank(w, h, color.Gray{Y: 255})
	m := measureInk(text, white, text, glyphs, 20)
	if !m.legible(glyphs, 20) {
		t.Errorf("20 px text not legible: %+v", m)
	}
	if m.legible(glyphs, 80) {
		t.Errorf("strokes of 20 px text legible as 80 px text: %+v", m)
	}
	if m.legible(0, 20) {
		t.Error("no glyphs legible")
	}
	empty := measureInk(image.NewGray(image.Rect(0, 0, 0, 0)), white, white, glyphs, 20)
	if empty.legible(glyphs, 0.5) {
		t.Errorf("an empty box legible: %+v", empty)
	}
}
