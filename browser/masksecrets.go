package browser

import (
	"context"
	_ "embed" // the page scripts
	"encoding/json"
	"errors"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

var (
	// maskSecretsJS hides the text that holds a secret for a screenshot.
	//go:embed js/maskSecrets.js
	maskSecretsJS string

	// unmaskSecretsJS shows it again once the screenshot is taken.
	//go:embed js/unmaskSecrets.js
	unmaskSecretsJS string
)

// maskSecretsWait bounds, in milliseconds, how long masking waits for the
// page and its frames to render what it masked before the screenshot is
// taken anyway.
const maskSecretsWait = 200

// screenshotMasked takes the screenshot when the page, or one of its frames,
// shows one of the texts opts.SecretTexts returns: each element whose text
// holds one is drawn as discs, as a password field draws its value, for the
// screenshot only, since a page that echoes a secret (a results heading, its
// own URL, a greeting in another site's frame, CSS content drawn from an
// attribute) must not show it in one. When opts.CoverCanvases says so, every
// canvas is hidden too: what a canvas draws cannot be read, so a secret
// drawn on one cannot be found. It reports whether it took the screenshot;
// when the page shows no secret and no canvas is covered it takes none, and
// the caller takes it as usual.
//
// Masking changes how the page reads (the accessibility tree reads discs),
// so it is undone before screenshotMasked returns, and a capture reads the
// page only after. Masking is best effort: a page or frame that cannot be
// reached is logged, and the screenshot is taken all the same.
func (t *Context) screenshotMasked(ctx context.Context, tgt cdp.Session, vv *page.VisualViewport, opts CaptureOptions) (*capture.Screenshot, bool, error) {
	var shot *capture.Screenshot
	masked, err := t.whileMasked(ctx, opts, func() error {
		var err error
		shot, err = screenshot(ctx, tgt, vv, opts)
		return err
	})
	if err != nil {
		// Not a picture the page fought over.
		return nil, masked, err
	}
	return shot, masked, nil
}

// whileMasked runs take (a screenshot, a print) with the page masked as
// screenshotMasked says, and unmasks it after. It reports whether it ran
// take: when nothing needed masking it does not, and the caller takes the
// picture as usual.
func (t *Context) whileMasked(ctx context.Context, opts CaptureOptions, take func() error) (bool, error) {
	var texts []string
	if opts.SecretTexts != nil {
		texts = opts.SecretTexts()
	}
	cover := opts.CoverCanvases != nil && opts.CoverCanvases()
	if len(texts) == 0 && !cover {
		return false, nil
	}
	if texts == nil {
		texts = []string{}
	}
	// A page may fight the mask while the picture is taken (it restyles
	// what was masked, draws a secret again): such a picture is not kept.
	// Once more, in case the page only happened to change then; a page
	// that fights twice gets no picture.
	for range maskTries {
		if t.inPageAndFrames(ctx, maskSecretsJS, texts, maskSecretsWait, cover) == 0 {
			return false, nil
		}
		err := take()
		if ctx.Err() != nil {
			// A dialog opened, or time ran out: the page answers nothing
			// until it is free again, and nothing waits for that.
			go t.inPageAndFrames(context.WithoutCancel(ctx), unmaskSecretsJS)
			return true, err
		}
		fought := t.inPageAndFrames(ctx, unmaskSecretsJS)
		if err != nil || fought == 0 {
			return true, err
		}
		t.log.Debug("screenshot: the page fought the mask", "documents", fought)
	}
	return true, ErrMaskFought
}

// maskTries is how many pictures a page that fights the mask gets taken
// before none is.
const maskTries = 2

// ErrMaskFought is the error of a screenshot of a page that undid, while
// it was taken, the masking of a secret it shows (masksecrets.go): none is
// returned.
var ErrMaskFought = errors.New("the page showed a secret and undid its masking while the screenshot was taken, twice: no screenshot")

// maskWorld names the isolated world masking runs in (worlds.go): what it
// changed is kept where the page cannot reach it, and a cross-origin frame
// of the page's own process is masked as any other.
const maskWorld = "chaperone-mask"

// inPageAndFrames runs the page script fn in every frame of the page
// (inEveryFrame), and returns the sum of their results; a document that
// fails counts 1, so that masking errs on the side of the mask.
func (t *Context) inPageAndFrames(ctx context.Context, fn string, args ...any) int {
	answers, err := t.inEveryFrame(ctx, maskWorld, fn, args...)
	if err != nil {
		t.log.Debug("screenshot: masking secrets", "err", err)
		return 1
	}
	sum := 0
	for _, a := range answers {
		var n int
		if a.err == nil && len(a.value) > 0 {
			a.err = json.Unmarshal(a.value, &n)
		}
		if a.err != nil {
			t.log.Debug("screenshot: masking secrets", "err", a.err)
			n = 1
		}
		sum += n
	}
	return sum
}
