package snapshot

import (
	"math"
	"strconv"
	"strings"
)

// rgba is a colour in gamma-encoded sRGB, each channel and alpha in [0, 1].
type rgba struct{ r, g, b, a float64 }

// white is the canvas a page is drawn on when nothing paints below it.
var white = rgba{1, 1, 1, 1}

// parseColor reads a computed CSS colour as Chromium serialises it:
// rgb() and rgba(), color(srgb …) and its relatives, lab(), lch(), oklab()
// and oklch(), and transparent. ok is false for anything else.
func parseColor(s string) (c rgba, ok bool) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "transparent" {
		return rgba{}, true
	}
	fn, args, ok := strings.Cut(s, "(")
	if !ok || !strings.HasSuffix(args, ")") {
		return rgba{}, false
	}
	args = strings.TrimSuffix(args, ")")
	alpha := 1.0
	if main, a, ok := strings.Cut(args, "/"); ok {
		v, ok := cssNumber(a, 1)
		if !ok {
			return rgba{}, false
		}
		alpha, args = v, main
	}
	f := strings.FieldsFunc(args, func(r rune) bool { return r == ',' || r == ' ' })
	if fn == "color" && len(f) > 0 {
		fn, f = f[0], f[1:]
	}
	if (fn == "rgba" || fn == "rgb") && len(f) == 4 {
		v, ok := cssNumber(f[3], 1)
		if !ok {
			return rgba{}, false
		}
		alpha, f = v, f[:3]
	}
	if len(f) != 3 {
		return rgba{}, false
	}
	var v [3]float64
	for i := range v {
		scale := 1.0
		switch fn {
		case "rgb", "rgba":
			scale = 255
		case "lab", "lch":
			scale = 100 // L is 0–100; Chromium gives the others as numbers
		}
		if v[i], ok = cssNumber(f[i], scale); !ok {
			return rgba{}, false
		}
	}
	switch fn {
	case "rgb", "rgba":
		c = rgba{v[0] / 255, v[1] / 255, v[2] / 255, alpha}
	case "srgb", "display-p3", "a98-rgb", "rec2020", "prophoto-rgb":
		// The wide gamuts read as sRGB: close enough for a contrast floor.
		c = rgba{v[0], v[1], v[2], alpha}
	case "srgb-linear":
		c = rgba{gamma(v[0]), gamma(v[1]), gamma(v[2]), alpha}
	case "xyz", "xyz-d65":
		c = fromXYZ65(v[0], v[1], v[2], alpha)
	case "xyz-d50":
		x, y, z := d50ToD65(v[0], v[1], v[2])
		c = fromXYZ65(x, y, z, alpha)
	case "lab":
		c = fromLab(v[0], v[1], v[2], alpha)
	case "lch":
		h := v[2] * math.Pi / 180
		c = fromLab(v[0], v[1]*math.Cos(h), v[1]*math.Sin(h), alpha)
	case "oklab":
		c = fromOklab(v[0], v[1], v[2], alpha)
	case "oklch":
		h := v[2] * math.Pi / 180
		c = fromOklab(v[0], v[1]*math.Cos(h), v[1]*math.Sin(h), alpha)
	default:
		return rgba{}, false
	}
	c.r, c.g, c.b, c.a = clamp01(c.r), clamp01(c.g), clamp01(c.b), clamp01(c.a)
	return c, true
}

// cssNumber reads a CSS number, a percentage of scale, or "none" (zero).
func cssNumber(s string, scale float64) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "none" {
		return 0, true
	}
	pct := strings.HasSuffix(s, "%")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "%"), "deg")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	if pct {
		v = v / 100 * scale
	}
	return v, true
}

func clamp01(v float64) float64 { return max(0, min(1, v)) }

// gamma encodes a linear sRGB channel.
func gamma(v float64) float64 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

// linear decodes a gamma-encoded sRGB channel.
func linear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func fromXYZ65(x, y, z, a float64) rgba {
	r := 3.2409699*x - 1.5373832*y - 0.4986108*z
	g := -0.9692436*x + 1.8759675*y + 0.0415551*z
	b := 0.0556301*x - 0.2039770*y + 1.0569715*z
	return rgba{gamma(clamp01(r)), gamma(clamp01(g)), gamma(clamp01(b)), a}
}

// d50ToD65 adapts an XYZ colour from the D50 white point to D65 (Bradford).
func d50ToD65(x, y, z float64) (float64, float64, float64) {
	return 0.9554734*x - 0.0230985*y + 0.0632593*z,
		-0.0283697*x + 1.0099955*y + 0.0210414*z,
		0.0123140*x - 0.0205077*y + 1.3303659*z
}

// fromLab converts CIE Lab (D50, L in 0–100) to sRGB.
func fromLab(l, a, b, alpha float64) rgba {
	const eps, kappa = 216.0 / 24389, 24389.0 / 27
	fy := (l + 16) / 116
	fx, fz := fy+a/500, fy-b/200
	inv := func(f float64) float64 {
		if f*f*f > eps {
			return f * f * f
		}
		return (116*f - 16) / kappa
	}
	yr := inv(fy)
	if l <= kappa*eps {
		yr = l / kappa
	}
	x, y, z := d50ToD65(inv(fx)*0.96422, yr, inv(fz)*0.82521)
	return fromXYZ65(x, y, z, alpha)
}

// fromOklab converts Oklab (L in 0–1) to sRGB.
func fromOklab(l, a, b, alpha float64) rgba {
	lp := l + 0.3963377774*a + 0.2158037573*b
	mp := l - 0.1055613458*a - 0.0638541728*b
	sp := l - 0.0894841775*a - 1.2914855480*b
	lc, mc, sc := lp*lp*lp, mp*mp*mp, sp*sp*sp
	r := 4.0767416621*lc - 3.3077115913*mc + 0.2309699292*sc
	g := -1.2684380046*lc + 2.6097574011*mc - 0.3413193965*sc
	bl := -0.0041960863*lc - 0.7034186147*mc + 1.7076147010*sc
	return rgba{gamma(clamp01(r)), gamma(clamp01(g)), gamma(clamp01(bl)), alpha}
}

// over composites c at opacity alpha (times its own) over an opaque
// background, as a browser paints it.
func (c rgba) over(bg rgba, alpha float64) rgba {
	a := clamp01(c.a * alpha)
	return rgba{c.r*a + bg.r*(1-a), c.g*a + bg.g*(1-a), c.b*a + bg.b*(1-a), 1}
}

// luminance is WCAG's relative luminance of an opaque colour.
func (c rgba) luminance() float64 {
	return 0.2126*linear(c.r) + 0.7152*linear(c.g) + 0.0722*linear(c.b)
}

// contrast is WCAG's contrast ratio of two opaque colours, 1 to 21.
func contrast(a, b rgba) float64 {
	la, lb := a.luminance(), b.luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}
