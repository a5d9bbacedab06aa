package browser

import (
	"context"
	_ "embed" // the page script
	"errors"
	"fmt"
	"slices"

	"github.com/chromedp/chromedp"
)

// extractJS finds items by CSS selector and reads their fields.
//
//go:embed js/extract.js
var extractJS string

// ErrSelector is the error of Extract when a selector is not valid CSS; the
// error's text carries the browser's reason.
var ErrSelector = errors.New("invalid selector")

// Extracted is what Extract found.
type Extracted struct {
	// Items are the items read, in document order, the page's first and
	// then each cross-site frame's, at most the limit asked for.
	Items []map[string]string
	// Total is how many items match, beyond the limit too.
	Total int
	// FramesFailed counts the cross-site frames that did not answer.
	FramesFailed int
}

// extractAnswer is the page script's answer.
type extractAnswer struct {
	Items []map[string]string `json:"items"`
	Total int                 `json:"total"`
	Error string              `json:"error"`
	// Failed is set when the page threw something else than a selector's
	// syntax error.
	Failed string `json:"failed"`
}

// Extract finds the elements matching the CSS selector and reads fields of
// each: fields maps a name to a selector relative to the item ("" for the
// item), with "@attr" at its end for an attribute instead of the text. With
// region non-zero (a backend node id) it looks only inside that element;
// else in the page, its same-origin frames and its cross-site frames. A
// selector the browser refuses is ErrSelector, wrapped with its reason.
func (t *Context) Extract(ctx context.Context, region int64, selector string, fields map[string]string, limit int) (*Extracted, error) {
	if fields == nil {
		fields = map[string]string{}
	}
	var a extractAnswer
	var err error
	if region != 0 {
		err = t.readOn(ctx, nodeOf(region), extractJS, &a, selector, fields, limit)
	} else {
		err = t.callPage(ctx, extractJS, &a, selector, fields, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("extract %q: %w", selector, err)
	}
	if a.Error != "" {
		return nil, fmt.Errorf("%w: %s", ErrSelector, a.Error)
	}
	if a.Failed != "" {
		return nil, fmt.Errorf("extract %q: the page threw: %s", selector, a.Failed)
	}
	out := &Extracted{Items: a.Items, Total: a.Total}
	if region != 0 {
		return out, nil
	}
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	if cc := chromedp.FromContext(c); cc != nil && cc.Target != nil {
		if _, err := t.remoteFrames(c, p, cc); err != nil {
			t.log.Debug("extract: listing the frames", "err", err)
		}
	}
	cancel()
	frames := p.liveFrames()
	// The frames in the order they were met, which is stable across calls.
	slices.SortFunc(frames, func(a, b *remoteFrame) int { return int(a.index - b.index) })
	for _, f := range frames {
		fc, cancel := f.cdp(ctx)
		var fa extractAnswer
		err := callIn(fc, extractJS, &fa, selector, fields, max(limit-len(out.Items), 0))
		cancel()
		if err != nil || fa.Error != "" || fa.Failed != "" {
			out.FramesFailed++
			continue
		}
		out.Items = append(out.Items, fa.Items...)
		out.Total += fa.Total
	}
	return out, nil
}

// readOn runs the page script fn on a node as callOn does, but as no user
// gesture: reading must not give the page a user activation (to open a
// popup, say) that nobody's input gave it.
func (t *Context) readOn(ctx context.Context, node nodeID, fn string, out any, args ...any) error {
	o, err := t.node(ctx, node)
	if err != nil {
		return err
	}
	defer o.release(ctx)
	c, cancel := o.cdp(ctx)
	defer cancel()
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
		"objectId":            o.id,
		"functionDeclaration": fn,
		"arguments":           argValues(args),
		"returnByValue":       true,
		"awaitPromise":        true,
	})
	if err != nil {
		return err
	}
	return res.decode(out)
}
