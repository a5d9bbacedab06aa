package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"math"

	"github.com/chromedp/cdproto/cdp"
	cdpio "github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// maxFullPageSide bounds each side of a full-page screenshot, in CSS
// pixels: Chromium cannot draw a bigger surface, and a page may claim any
// size.
const maxFullPageSide = 16384

// FullPage is a screenshot of a whole page.
type FullPage struct {
	// PNG is the image.
	PNG []byte
	// Width and Height are the image's size in pixels (CSS pixels: the
	// tab's scale factor is 1).
	Width, Height int
	// Cut says the page was larger than the image can be, which shows its
	// top left part.
	Cut bool
}

// FullPageScreenshot takes a PNG of the current page's whole content, beyond
// the viewport, without scrolling it, masked as opts says (SecretTexts,
// CoverCanvases: masksecrets.go).
func (t *Context) FullPageScreenshot(ctx context.Context, opts CaptureOptions) (FullPage, error) {
	var shot FullPage
	masked, err := t.whileMasked(ctx, opts, func() (err error) {
		shot, err = t.fullPageScreenshot(ctx)
		return err
	})
	if !masked {
		return t.fullPageScreenshot(ctx)
	}
	if err != nil {
		return FullPage{}, err
	}
	return shot, nil
}

func (t *Context) fullPageScreenshot(ctx context.Context) (FullPage, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	m, err := chromedp.Call(c, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return FullPage{}, t.fail("measuring the page", err)
	}
	if m.CSSContentSize == nil || m.CSSContentSize.Width <= 0 || m.CSSContentSize.Height <= 0 {
		return FullPage{}, fmt.Errorf("full-page screenshot: the page has no content size")
	}
	w, h := math.Ceil(m.CSSContentSize.Width), math.Ceil(m.CSSContentSize.Height)
	cut := w > maxFullPageSide || h > maxFullPageSide
	w, h = min(w, maxFullPageSide), min(h, maxFullPageSide)
	res, err := chromedp.Call(c, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		Clip:                  &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1},
		CaptureBeyondViewport: new(true),
	})
	if err != nil {
		return FullPage{}, t.fail("taking a full-page screenshot", err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(res.Data))
	if err != nil {
		return FullPage{}, fmt.Errorf("full-page screenshot: decoding the image header: %w", err)
	}
	return FullPage{PNG: res.Data, Width: cfg.Width, Height: cfg.Height, Cut: cut}, nil
}

// pdfChunk is how much of a printed PDF one IO.read asks for.
const pdfChunk = 1 << 20

// PDF prints the current page as a PDF document (backgrounds included), as
// the browser's print dialog would, masked as opts says (SecretTexts,
// CoverCanvases: masksecrets.go). A page decides how long its print is: the
// document is read from the browser a chunk at a time, and one over max
// bytes (when max > 0) is not read further: ErrTooLarge.
func (t *Context) PDF(ctx context.Context, opts CaptureOptions, max int64) ([]byte, error) {
	var data []byte
	masked, err := t.whileMasked(ctx, opts, func() (err error) {
		data, err = t.pdf(ctx, max)
		return err
	})
	if !masked {
		return t.pdf(ctx, max)
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

func (t *Context) pdf(ctx context.Context, max int64) ([]byte, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	res, err := chromedp.Call(c, page.PrintToPDF, page.PrintToPDFParams{PrintBackground: new(true), TransferMode: page.PrintToPDFTransferModeReturnAsStream})
	if err != nil {
		return nil, t.fail("printing the page as PDF", err)
	}
	if res.Stream == "" {
		return res.Data, nil
	}
	defer func() { _, _ = chromedp.Call(c, cdpio.Close, cdpio.CloseParams{Handle: res.Stream}) }()
	var data []byte
	for {
		r, err := chromedp.Call(c, cdpio.Read, cdpio.ReadParams{Handle: res.Stream, Size: pdfChunk})
		if err != nil {
			return nil, t.fail("reading the printed PDF", err)
		}
		data = append(data, r.Data...)
		if max > 0 && int64(len(data)) > max {
			return nil, fmt.Errorf("printing the page as PDF: over %s: %w", FormatBytes(max), ErrTooLarge)
		}
		if r.EOF {
			return data, nil
		}
	}
}
