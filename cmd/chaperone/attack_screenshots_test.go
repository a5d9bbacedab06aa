package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"math"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// TestAttackScreenshotsAutoClipIsMasked: under --screenshots auto an action
// may send only the region that changed. A secret the agent types shows in
// that region (the field, and the page's echo of it); the clip must be the
// masked screenshot's pixels, exactly those get_snapshot's whole, masked
// image then shows there, never the page as drawn before masking.
func TestAttackScreenshotsAutoClipIsMasked(t *testing.T) {
	t.Parallel()
	site := browsertest.Site(t)
	c, _, _ := stdioClient(t, []string{echoVar + "=" + echoSecret},
		"serve", "--profile", "none", "--url", site+"/variants/looks", "--secret", echoVar, "--screenshots", "auto")
	_, data := call(t, c, toolapi.GetSnapshot, nil)
	first := decodeSnapshot(t, []byte(data))
	res, data := call(t, c, toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, first, "textbox", "API key"), "value": "{{" + echoVar + "}}"})
	snap := decodeSnapshot(t, resultSnapshotJSON(t, toolapi.Fill, data))
	if snap.Screenshot == nil || snap.Screenshot.Clip == nil {
		t.Fatalf("typing the secret sent no clip: %+v", snap.Screenshot)
	}
	clip := pngOf(t, res)
	res, data = call(t, c, toolapi.GetSnapshot, nil)
	whole := pngOf(t, res)
	var ws snapshot.Snapshot
	if err := json.Unmarshal([]byte(data), &ws); err != nil {
		t.Fatal(err)
	}
	if ws.Screenshot == nil || ws.Screenshot.Clip != nil {
		t.Fatalf("get_snapshot's screenshot: %+v, want the whole", ws.Screenshot)
	}
	// The clip's place in image pixels, from its CSS box: rounded both
	// ways, so within a pixel.
	scale := float64(whole.Bounds().Dx()) / ws.Viewport.Width
	at := image.Pt(int(math.Round(snap.Screenshot.Clip.X*scale)), int(math.Round(snap.Screenshot.Clip.Y*scale)))
	for _, d := range []image.Point{{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, 1}, {-1, 1}, {1, -1}} {
		if samePixels(clip, whole, at.Add(d)) {
			return
		}
	}
	t.Errorf("the clip at %v (%v CSS px) is not the masked screenshot's region there", at, *snap.Screenshot.Clip)
}

// pngOf decodes a result's image block.
func pngOf(t *testing.T, res *mcp.CallToolResult) image.Image {
	t.Helper()
	for _, b := range res.Content {
		if img, ok := b.(mcp.ImageContent); ok {
			m, err := png.Decode(bytes.NewReader(decodeBase64(t, img.Data)))
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatal("the result has no image")
	return nil
}

// samePixels reports whether part is whole's region at at, pixel for pixel,
// but for a text caret: the field the secret was typed into keeps the focus,
// and its caret blinks between the two captures, so pixels that differ only
// within a run at most 3 px wide count as the same. A secret drawn unmasked
// differs over the width of its text.
func samePixels(part, whole image.Image, at image.Point) bool {
	r := part.Bounds()
	if !r.Sub(r.Min).Add(at).In(whole.Bounds()) {
		return false
	}
	var differ image.Rectangle
	for y := range r.Dy() {
		for x := range r.Dx() {
			pr, pg, pb, _ := part.At(r.Min.X+x, r.Min.Y+y).RGBA()
			wr, wg, wb, _ := whole.At(at.X+x, at.Y+y).RGBA()
			if pr != wr || pg != wg || pb != wb {
				differ = differ.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return differ.Dx() <= 3
}
