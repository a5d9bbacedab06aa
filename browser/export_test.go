package browser

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// CallForTest runs one protocol command on the tab, through the cdp helper.
func CallForTest[P, R any](ctx context.Context, t *Context, cmd cdp.Command[P, R], params P) (R, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	return chromedp.Call(c, cmd, params)
}

// RawForTest is the raw result type of commands whose result the package
// keeps verbatim.
type RawForTest = rawResult

// TabContextForTest returns the tab's cdp context, for tests that need to
// run chromedp actions.
func TabContextForTest(ctx context.Context, t *Context) (context.Context, context.CancelFunc) {
	return t.cdp(ctx)
}

// BrowserContextsForTest lists the browser contexts of b's browser, other
// than the default one.
func BrowserContextsForTest(ctx context.Context, b *Browser) ([]cdp.BrowserContextID, error) {
	s, _, err := b.current()
	if err != nil {
		return nil, err
	}
	c, cancel := within(ctx, s.root, defaultCallTimeout)
	defer cancel()
	res, err := chromedp.CallBrowser(c, target.GetBrowserContexts, cdp.Empty{})
	return res.BrowserContextIDs, err
}

// ClosePageForTest closes the tab's page from outside, as a person closing
// its window does.
func ClosePageForTest(ctx context.Context, t *Context) error {
	p, s, _ := t.context()
	c, cancel := within(ctx, s.root, defaultCallTimeout)
	defer cancel()
	id := chromedp.FromContext(p.ctx).Target.TargetID
	_, err := chromedp.CallBrowser(c, target.CloseTarget, target.CloseTargetParams{TargetID: id})
	return err
}

// GestureListenersForTest runs a capture's question for the gesture
// listeners of the tab's process alone, and says how many it found.
func GestureListenersForTest(ctx context.Context, t *Context) (int, error) {
	c, cancel := t.cdp(ctx)
	defer cancel()
	g, err := t.gestureListeners(c, 0)
	return len(g), err
}
