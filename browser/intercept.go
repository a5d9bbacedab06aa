package browser

import (
	"context"
	"encoding/json"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// intercept turns on an interception of the tab, a command that takes
// {"enabled": bool} (Input.setInterceptDrags, Page.setInterceptFileChooser
// Dialog), and delivers the first event ev it brings. stop turns it off
// again, with a deadline of its own since ctx's may be spent, and ends the
// subscription.
func intercept[E any](ctx context.Context, t *Context, on cdp.Command[map[string]any, json.RawMessage], ev cdp.Event[E]) (first <-chan E, stop func(), err error) {
	c, cancel := t.cdp(ctx)
	ch := make(chan E, 1)
	relay(c, ev, ch, func(e E) E { return e })
	if _, err := chromedp.Call(c, on, map[string]any{"enabled": true}); err != nil {
		cancel()
		return nil, nil, err
	}
	return ch, func() {
		cancel()
		off, offCancel := t.cdp(context.WithoutCancel(ctx))
		defer offCancel()
		off, offTimeout := context.WithTimeout(off, releaseTimeout)
		defer offTimeout()
		_, _ = chromedp.Call(off, on, map[string]any{"enabled": false})
	}, nil
}
