// Package browser is the only package that speaks the Chrome DevTools
// Protocol: it launches or connects to Chromium, opens isolated contexts,
// captures pages, sends input, answers dialogs and notices crashes.
package browser

import (
	"context"
	"errors"
)

// Options says which browser to use and how.
type Options struct {
	// Path is the Chromium or Chrome binary; empty searches CHROME_PATH, then
	// the usual places.
	Path string
	// CDPEndpoint connects to a running browser (ws://… or http://host:port)
	// instead of launching one.
	CDPEndpoint string
	// Headed shows a window.
	Headed bool
	// UserDataDir is the profile to use; empty makes a fresh one that Close
	// removes.
	UserDataDir string
	// ViewportWidth and ViewportHeight size every tab (default 1280×720).
	ViewportWidth, ViewportHeight int
}

// ErrNotImplemented marks a stub that is still to be written.
var ErrNotImplemented = errors.New("not implemented")

// Browser is a launched or connected browser.
type Browser struct{}

// Launch starts or connects to a browser.
func Launch(ctx context.Context, opts Options) (*Browser, error) { return nil, ErrNotImplemented }

// Close closes every context it opened and, if it launched the browser, the
// browser.
func (b *Browser) Close() error { return nil }

// NewTab opens a tab in a new isolated browser context.
func (b *Browser) NewTab(ctx context.Context) (*Tab, error) { return nil, ErrNotImplemented }

// Tab is one page in its own browser context.
type Tab struct{}

// Navigate loads url and waits for it to load.
func (t *Tab) Navigate(ctx context.Context, url string) error { return ErrNotImplemented }

// CaptureOptions says what a capture includes.
type CaptureOptions struct {
	// Screenshot takes the screenshot too.
	Screenshot bool
	// Format is "png" (default) or "jpeg".
	Format string
	// ImageTokens is the screenshot budget in image tokens (w×h/750);
	// default 500. The image never exceeds 1568 px a side or 1.15 MP.
	ImageTokens int
}

// Capture takes one raw look at the page.
func (t *Tab) Capture(ctx context.Context, opts CaptureOptions) (*Capture, error) {
	return nil, ErrNotImplemented
}

// Close closes the tab and its browser context.
func (t *Tab) Close() error { return nil }
