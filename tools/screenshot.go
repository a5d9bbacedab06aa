package tools

import (
	"context"
	"fmt"

	"github.com/chaperone-mcp/chaperone/browser"
)

// screenshotInput is the arguments of browser_screenshot: none.
type screenshotInput struct{}

// screenshot runs browser_screenshot: a PNG of the whole page, saved into
// the download directory. It changes nothing on the page.
func (s *Session) screenshot(ctx context.Context, c *call, _ screenshotInput) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.config.NavigationTimeout)
	defer cancel()
	shot, err := s.tab.FullPageScreenshot(ctx, s.config.Capture)
	if err != nil {
		return "", err
	}
	path, err := s.saveFile(ctx, "screenshot.png", shot.PNG)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Saved a full-page screenshot (%d×%d px, %s) to %s.", shot.Width, shot.Height, browser.FormatBytes(int64(len(shot.PNG))), path)
	if shot.Cut {
		msg += " The page is larger than a screenshot can be: it shows the top left part."
	}
	return msg, nil
}
