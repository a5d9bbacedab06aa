package browser

import (
	"context"
	"fmt"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"

	"github.com/chromedp/chromedp"
)

// Starting a browser session: a launch or a connection, and the first call
// that binds what it starts to its context.

// session is one run of a browser process or one connection to a browser.
type session struct {
	// root is the chromedp context of the browser. It ends when the
	// browser dies or the connection is lost.
	root        context.Context
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	launched    bool
}

// start launches the browser or connects to it.
func (b *Browser) start(ctx context.Context) (*session, error) {
	var allocCtx context.Context
	var allocCancel context.CancelFunc
	what := "launching " + b.path
	if b.launched {
		allocCtx, allocCancel = chromedp.NewExecAllocator(context.Background(), b.execOptions()...)
	} else {
		// Named without its credentials: the error is logged.
		what = "connecting to " + EndpointName(b.opts.CDPEndpoint)
		allocCtx, allocCancel = chromedp.NewAllocatorContext(context.Background(), &endpointAllocator{endpoint: b.opts.CDPEndpoint})
	}
	logf := func(format string, args ...any) { b.log.Debug("chromedp: " + fmt.Sprintf(format, args...)) }
	root, cancel := chromedp.NewContext(allocCtx,
		chromedp.WithLogf(logf), chromedp.WithErrorf(logf))

	if _, ok := ctx.Deadline(); !ok {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, startTimeout)
		defer c()
	}
	// The first call on root binds the browser's life to root.
	err := firstRun(ctx, cancel, func() error {
		if b.opts.Attached {
			// The person's browser: its targets are not listed.
			_, err := chromedp.CallBrowser(root, cdpbrowser.GetVersion, cdp.Empty{})
			return err
		}
		_, err := chromedp.Targets(root)
		return err
	})
	if err == nil {
		err = b.intercept(ctx, root)
	}
	if err == nil {
		err = b.watchDownloads(root)
	}
	if err == nil {
		err = b.holdPages(ctx, root)
	}
	if err != nil {
		cancel()
		allocCancel()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	b.log.Debug("browser started", "how", what)
	return &session{root: root, cancel: cancel, allocCancel: allocCancel, launched: b.launched}, nil
}

// firstRun runs first, the first call on a chromedp context, which binds
// the life of what it starts (a browser, a target) to that context, so it
// must run on that context and not on ctx. ctx bounds it from outside: when
// ctx ends first, cancel (the chromedp context's) stops it, and ctx's error
// is returned.
func firstRun(ctx context.Context, cancel context.CancelFunc, first func() error) error {
	errc := make(chan error, 1)
	go func() { errc <- first() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		cancel()
		<-errc
		return ctx.Err()
	}
}

// stop ends a session: it closes a launched browser (gracefully if it is
// still there) and drops a connection, and waits for both.
func (s *session) stop() {
	if s.launched && s.root.Err() == nil {
		ctx, cancel := context.WithTimeout(s.root, closeTimeout)
		_ = chromedp.Cancel(ctx)
		cancel()
	}
	s.cancel()
	s.allocCancel()
}
