package browser

import (
	"context"
	_ "embed" // the page scripts
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// Confirmed delivery.
//
// The browser routes a mouse event by what it last rendered, and a key by
// the frame it last knew focused: a click at the right point can land on a
// cover a page swapped in, or on the parent page while a cross-site frame's
// surface is not ready. Input that Chromium acknowledged is therefore not
// input that happened. Before the input is sent, a record armed in the
// document of the element it is aimed at (armDeliveryJS, in that element's
// own process) listens for the input's trusted events; after, the record
// says whether they reached the element. One that did not is sent once
// more, at where the element is then, once its frame has rendered; twice
// missed is a DeliveryError, never a success. See docs/architecture.md.

// The page scripts of delivery, kept here rather than in scripts.go so that
// the mechanism reads in one place: armDeliveryJS and armKeyDeliveryJS
// watch for an input's events before it is sent, readDeliveryJS says
// whether they reached the element.
var (
	//go:embed js/armDelivery.js
	armDeliveryJS string
	//go:embed js/armKeyDelivery.js
	armKeyDeliveryJS string
	//go:embed js/readDelivery.js
	readDeliveryJS string
)

// ErrNotDelivered reports input that did not reach the element it was
// aimed at.
var ErrNotDelivered = errors.New("the input did not reach its element")

// DeliveryError reports input that, sent twice, did not reach the element it
// was aimed at. It wraps ErrNotDelivered.
type DeliveryError struct {
	// Input is what was sent: "click", "hover", "wheel", or "key " and the
	// chord's name.
	Input string
	// Received describes what the input reached instead (tag, id, role and
	// text), or is empty when nothing in the element's frame received it.
	Received string
}

func (e *DeliveryError) Error() string {
	if e.Received == "" {
		return fmt.Sprintf("the %s did not reach the element: nothing in its frame received it", e.Input)
	}
	return fmt.Sprintf("the %s did not reach the element: %s received it instead", e.Input, e.Received)
}

func (e *DeliveryError) Unwrap() error { return ErrNotDelivered }

// How long a record waits, once the input is acknowledged, for events that
// travel to another process: animation frames of the element's document,
// and at most this long (a hidden document renders none).
const (
	deliveryFrames = 2
	deliveryCap    = 150 * time.Millisecond
)

// delivery is what readDeliveryJS reports.
type delivery struct {
	Delivered bool `json:"delivered"`
	// Seen says that some event of the input reached the record's document.
	Seen bool `json:"seen"`
	// Received describes what an event reached instead of the element.
	Received string `json:"received"`
	// Holds says that the record's document held the focus (keys).
	Holds bool `json:"holds"`
}

// object runs fn on the object like call, and returns what it returns as
// a page object of the same process, to be released by the caller.
func (o *pageObject) object(ctx context.Context, fn string, args ...any) (*pageObject, error) {
	c, cancel := o.cdp(ctx)
	defer cancel()
	callArgs := make([]map[string]any, len(args))
	for i, a := range args {
		callArgs[i] = map[string]any{"value": a}
	}
	res, err := chromedp.Call(c, cmdCallFunctionOn, map[string]any{
		"objectId": o.id, "functionDeclaration": fn, "arguments": callArgs,
	})
	if err != nil {
		return nil, err
	}
	if err := res.err(); err != nil {
		return nil, err
	}
	return &pageObject{t: o.t, id: res.Result.ObjectID, frame: o.frame}, nil
}

// readRecord reads an armed record and releases it. A record whose
// document went away (the input navigated it, or replaced the frame)
// counts as delivered: what the input started is the settle's to follow.
func (o *pageObject) readRecord(ctx context.Context) (delivery, error) {
	// Released in the background: nothing waits on it, and every click
	// would otherwise pay a round trip for it.
	defer func() { go o.release(ctx) }()
	var d delivery
	err := o.call(ctx, readDeliveryJS, &d, deliveryFrames, deliveryCap.Milliseconds())
	if err != nil {
		if ctx.Err() != nil {
			return d, ctx.Err()
		}
		o.t.log.Debug("the input's document went away before its delivery was read", "err", err)
		return delivery{Delivered: true, Holds: true}, nil
	}
	return d, nil
}

// ClickElement clicks the node at x, y, its click point as Inspect found
// it, and confirms that the click reached the node: a click that reached
// something else is sent once more where the node is then, and a second
// miss is a DeliveryError. A press that reached the node counts when no
// click followed (a native select's popup takes the release) or the node
// left the page, as does a click whose document went away (it navigated).
func (t *Tab) ClickElement(ctx context.Context, backendNodeID int64, x, y float64) error {
	return t.deliver(ctx, backendNodeID, "click", x, y, t.Click)
}

// HoverElement moves the pointer to the node at x, y, as Hover does, and
// confirms that the pointer reached it, as ClickElement does for a click.
func (t *Tab) HoverElement(ctx context.Context, backendNodeID int64, x, y float64) error {
	return t.deliver(ctx, backendNodeID, "hover", x, y, t.Hover)
}

// deliver sends the pointer input kind (click, hover, wheel) at x, y with
// send, and confirms it reached the node: the one mechanism every pointer
// input aimed at an element goes through.
func (t *Tab) deliver(ctx context.Context, backendNodeID int64, kind string, x, y float64,
	send func(ctx context.Context, x, y float64) error) error {
	for try := 1; ; try++ {
		d, err := t.sendWatched(ctx, backendNodeID, kind, x, y, send)
		if err != nil || d.Delivered {
			return err
		}
		if try == 2 {
			return &DeliveryError{Input: kind, Received: d.Received}
		}
		t.log.Debug("the input did not reach its element; sending it again", "input", kind, "node", backendNodeID, "received", d.Received)
		// The record waited for the element's frame to render; aim anew
		// at where the element is now, as an agent's next try would.
		in, err := t.Inspect(ctx, backendNodeID, true)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		switch {
		case !in.Visible:
			return &DeliveryError{Input: kind, Received: d.Received}
		case in.Covered != "":
			return &DeliveryError{Input: kind, Received: in.Covered}
		}
		x, y = in.X, in.Y
	}
}

// sendWatched arms a record on the node, sends the input, and reads the
// record.
func (t *Tab) sendWatched(ctx context.Context, backendNodeID int64, kind string, x, y float64,
	send func(ctx context.Context, x, y float64) error) (delivery, error) {
	n, err := t.node(ctx, backendNodeID)
	if err != nil {
		return delivery{}, fmt.Errorf("%s: %w", kind, err)
	}
	rec, err := n.object(ctx, armDeliveryJS, kind)
	go n.release(ctx)
	if err != nil {
		return delivery{}, fmt.Errorf("%s: watch the element: %w", kind, err)
	}
	if err := send(ctx, x, y); err != nil {
		rec.release(ctx)
		return delivery{}, err
	}
	return rec.readRecord(ctx)
}

// armKeys arms a keydown record for key in the main frame and in every
// out-of-process frame of the page, since the focus may be in any of
// them. A frame that cannot be armed is left out.
func (t *Tab) armKeys(ctx context.Context, key string) ([]*pageObject, error) {
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	defer cancel()
	frames, err := t.remoteFrames(ctx, p, chromedp.FromContext(c))
	if err != nil {
		t.log.Debug("press: no out-of-process frames", "err", err)
	}
	expr, err := applyJS(armKeyDeliveryJS, key)
	if err != nil {
		return nil, err
	}
	recs := make([]*pageObject, len(frames)+1)
	errs := make([]error, len(frames)+1)
	arm := func(i int, c context.Context, f *remoteFrame) {
		res, err := chromedp.Call(c, cmdEvaluate, map[string]any{"expression": expr})
		if err == nil {
			err = res.err()
		}
		if err != nil {
			errs[i] = err
			return
		}
		recs[i] = &pageObject{t: t, id: res.Result.ObjectID, frame: f}
	}
	var wg sync.WaitGroup
	wg.Go(func() { arm(0, c, nil) })
	for i, f := range frames {
		wg.Go(func() {
			fc, cancel := f.cdp(ctx)
			defer cancel()
			arm(i+1, fc, f)
		})
	}
	wg.Wait()
	if errs[0] != nil {
		for _, r := range recs {
			if r != nil {
				r.release(ctx)
			}
		}
		return nil, fmt.Errorf("watch the focused element: %w", errs[0])
	}
	kept := recs[:0]
	for _, r := range recs {
		if r != nil {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// readKeys reads the keydown records armKeys armed: the key was delivered
// when a document that held the focus saw it reach its focused element,
// or when no armed document held the focus (it is in a frame the page
// has not shown yet) and some document saw it at all.
func (t *Tab) readKeys(ctx context.Context, recs []*pageObject) (delivery, error) {
	ds := make([]delivery, len(recs))
	errs := make([]error, len(recs))
	var wg sync.WaitGroup
	for i, r := range recs {
		wg.Go(func() { ds[i], errs[i] = r.readRecord(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return delivery{}, err
	}
	var out delivery
	holds, seen := false, false
	for _, d := range ds {
		if d.Delivered {
			return d, nil
		}
		holds = holds || d.Holds
		seen = seen || d.Seen
		if out.Received == "" {
			out.Received = d.Received
		}
	}
	out.Delivered = !holds && seen
	return out, nil
}
