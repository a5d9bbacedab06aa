package tools

import (
	"context"
	"fmt"
	"regexp"

	"github.com/chaperone-mcp/chaperone/browser"
)

// pdfInput is the arguments of browser_pdf: none.
type pdfInput struct{}

// pdfPage matches a page object of a PDF (not the page tree, /Pages).
var pdfPage = regexp.MustCompile(`/Type\s*/Page[^s]`)

// pdf runs browser_pdf: the page printed as PDF, saved into the download
// directory. It changes nothing on the page.
func (s *Session) pdf(ctx context.Context, c *call, _ pdfInput) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.config.NavigationTimeout)
	defer cancel()
	// A page decides how long its print is: it is capped as a download is.
	max := s.config.MaxDownloadSize
	if max <= 0 {
		max = DefaultMaxDownloadSize
	}
	data, err := s.tab.PDF(ctx, s.config.Capture, max)
	if err != nil {
		return "", err
	}
	path, err := s.saveFile(ctx, "page.pdf", data)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Saved the page as PDF (%d pages, %s) to %s.", len(pdfPage.FindAllIndex(data, -1)), browser.FormatBytes(int64(len(data))), path), nil
}
