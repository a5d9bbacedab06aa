package tools

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// What a result carries under --screenshots auto.
const (
	noImage   = "none"
	wholeShot = "whole"
	clipShot  = "clip"
)

// imageOf says which image out carries, and checks that its snapshot
// describes that image and nothing else.
func imageOf(t *testing.T, out Output) string {
	t.Helper()
	snap := resultSnapshot(out)
	if snap == nil {
		t.Fatalf("no snapshot in %T", out.Value)
	}
	switch {
	case out.Image == nil:
		if snap.Screenshot != nil {
			t.Errorf("no image sent, yet the snapshot describes one: %+v", snap.Screenshot)
		}
		return noImage
	case snap.Screenshot == nil || snap.Screenshot.Width != out.Image.Width || snap.Screenshot.Height != out.Image.Height:
		t.Errorf("an image of %dx%d is sent, the snapshot describes %+v", out.Image.Width, out.Image.Height, snap.Screenshot)
	case out.Image.Clip != nil:
		if !strings.Contains(snap.Render(), "screenshot: only the changed region") {
			t.Errorf("a clip is sent, the text does not say so:\n%s", snap.Render())
		}
		// The clip is this result's, not the page's: as a note, a delta
		// would carry it, and the notes again when it goes.
		for _, n := range snap.Notes {
			if strings.Contains(n, "screenshot") {
				t.Errorf("the clip is among the page's notes: %q", snap.Notes)
			}
		}
		return clipShot
	}
	return wholeShot
}

// TestAutoScreenshots walks one session under --screenshots auto through
// what the rule tells apart: the whole screenshot with get_snapshot, a
// failure and a new page; the part that changed when the page looks
// different; none when an action changed nothing visible, or changed only
// what a screenshot draws masked (a secret the page shows in another case,
// a password field's value of the same length).
func TestAutoScreenshots(t *testing.T) {
	t.Parallel()
	const key = "Zq7Lm92Xp4Tk"
	h := openWith(t, "/variants/looks", Config{Screenshots: ScreenshotsAuto, Secrets: map[string]string{"KEY": key}})
	var last *snapshot.Snapshot
	button := func(name string) func() (string, any) {
		return func() (string, any) {
			return toolapi.Click, map[string]any{"ref": browsertest.Ref(t, last, "button", name)}
		}
	}
	steps := []struct {
		what string
		call func() (string, any)
		want string
	}{
		{"get_snapshot", func() (string, any) { return toolapi.GetSnapshot, map[string]any{} }, wholeShot},
		{"a click that redraws the same", button("Refresh"), noImage},
		{"a click that opens a panel", button("Show usage"), clipShot},
		{"the same click again, nothing new", button("Show usage"), noImage},
		{"a secret typed into a field", func() (string, any) {
			return toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, last, "textbox", "API key"), "value": "{{KEY}}"}
		}, clipShot},
		{"a click that takes the focus off the field", button("Refresh"), clipShot},
		{"the page shows the secret in the other case", button("Rotate display"), noImage},
		{"and back", button("Rotate display"), noImage},
		{"another password of the same length", button("Sync password"), noImage},
		{"a failed click", func() (string, any) { return toolapi.Click, map[string]any{"ref": "@e9999"} }, wholeShot},
		{"a failed click again", func() (string, any) { return toolapi.Click, map[string]any{"ref": "@e9999"} }, wholeShot},
		{"a click after it, nothing new", button("Refresh"), noImage},
		{"a new page", func() (string, any) { return toolapi.Navigate, map[string]any{"url": h.site + "/account"} }, wholeShot},
		{"get_snapshot on it, nothing new", func() (string, any) { return toolapi.GetSnapshot, map[string]any{} }, wholeShot},
	}
	for _, st := range steps {
		name, args := st.call()
		out := h.call(name, args)
		if got := imageOf(t, out); got != st.want {
			t.Errorf("%s: image %s, want %s", st.what, got, st.want)
		}
		last = resultSnapshot(out)
	}

	// The control: with no secret to mask, the page's echo in the other
	// case is a change, and it is sent; so the step above saw none only
	// because the comparison is made on the masked image.
	t.Run("unmasked", func(t *testing.T) {
		t.Parallel()
		h := openWith(t, "/variants/looks", Config{Screenshots: ScreenshotsAuto})
		last := h.snap(true)
		h.ok(toolapi.Fill, map[string]any{"ref": browsertest.Ref(t, last, "textbox", "API key"), "value": key})
		out := h.call(toolapi.Click, map[string]any{"ref": browsertest.Ref(t, resultSnapshot(h.call(toolapi.GetSnapshot, map[string]any{})), "button", "Rotate display")})
		if got := imageOf(t, out); got == noImage {
			t.Errorf("the echo in the other case, unmasked: no image, want one")
		}
	})
}
