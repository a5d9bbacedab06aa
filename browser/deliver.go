package browser

import (
	"context"
	"crypto/rand"
	_ "embed" // the page scripts
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
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
// missed is a DeliveryError, never a success. The first event that reaches
// the element is also reported at once through a binding, with a token
// only that record knows: when the document is gone by the time the record
// is read (the input navigated it, or a page replaced the frame before the
// input landed), that report alone says whether the input got there. See
// docs/architecture.md.

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

// DeliveryError reports input that did not reach the element it was aimed
// at: not on a second try either, or not before the element's document went
// away (no second try then: it would go to whatever replaced it). It wraps
// ErrNotDelivered.
type DeliveryError struct {
	// Input is what was sent: "click", "hover", "wheel", or "key " and the
	// chord's name.
	Input string
	// Received describes what the input reached instead (tag, id, role and
	// text), or is empty when nothing in the element's frame received it.
	Received string
	// Gone says that the element's document went away before the input
	// reached it.
	Gone bool
	// Pressed is how many presses of a click of several (a double click)
	// reached the element before this one.
	Pressed int
}

func (e *DeliveryError) Error() string {
	if e.Gone {
		return fmt.Sprintf("the %s did not reach the element: its document went away first", e.Input)
	}
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

// deliveryGuard bounds how long a click's record stops what the click
// reaches instead of its element (armDelivery.js): the input's own time,
// not the page's life.
const deliveryGuard = 2 * time.Second

// deliveryBinding is the name of the binding through which records report
// that an input reached its element.
const deliveryBinding = "chaperoneDelivered"

var cmdAddBinding = cdp.Command[map[string]any, json.RawMessage]{Method: "Runtime.addBinding"}

// delivery is what readDeliveryJS reports.
type delivery struct {
	Delivered bool `json:"delivered"`
	// Gone says that the record's document went away before it was read.
	Gone bool `json:"-"`
	// Seen says that some event of the input reached the record's document.
	Seen bool `json:"seen"`
	// Received describes what an event reached instead of the element.
	Received string `json:"received"`
	// Holds says that the record's document held the focus (keys).
	Holds bool `json:"holds"`
}

// record is an armed delivery record: the page object readDeliveryJS reads,
// and the report of its first hit through the binding.
type record struct {
	obj *pageObject
	hearing
}

// hearing is a subscription to the binding's reports of one token.
type hearing struct {
	token string
	// heard is closed at the first report.
	heard <-chan struct{}
	// stop ends the subscription.
	stop context.CancelFunc
}

// hear subscribes, on the session of c, to the binding's reports of a new
// token, and makes sure the binding is there.
func hear(c context.Context) (hearing, error) {
	token := rand.Text()
	ch := make(chan struct{})
	var once sync.Once
	lc, stop := context.WithCancel(c)
	// Listen sees an event before the reply to a command sent after it:
	// a report made before the document went away is in before the read
	// that finds it gone returns.
	err := chromedp.Listen(lc, func(ev any) {
		if b, ok := ev.(*runtime.EventBindingCalled); ok && b.Name == deliveryBinding && b.Payload == token {
			once.Do(func() { close(ch) })
		}
	})
	if err == nil {
		// In the judging world alone, where the records are armed: the
		// page's own world neither has it nor can stand in for it.
		_, err = chromedp.Call(c, cmdAddBinding, map[string]any{"name": deliveryBinding, "executionContextName": judgeWorld})
	}
	if err != nil {
		stop()
		return hearing{}, err
	}
	return hearing{token: token, heard: ch, stop: stop}, nil
}

// read reads the record and releases it. When its document went away (the
// input navigated it, or a page replaced the frame), the input counts as
// delivered only if the element had reported it: what it started is then
// the settle's to follow.
func (r *record) read(ctx context.Context) (delivery, error) {
	defer r.stop()
	// Released in the background: nothing waits on it, and every click
	// would otherwise pay a round trip for it.
	defer func() { go r.obj.release(ctx) }()
	var d delivery
	err := r.obj.call(ctx, readDeliveryJS, &d, deliveryFrames, deliveryCap.Milliseconds())
	if err == nil {
		return d, nil
	}
	if ctx.Err() != nil {
		return d, ctx.Err()
	}
	select {
	case <-r.heard:
		return delivery{Delivered: true, Holds: true}, nil
	default:
	}
	r.obj.t.log.Debug("the input's document went away before its delivery was read", "err", err)
	return delivery{Gone: true, Holds: true}, nil
}

// release forgets the record without reading it.
func (r *record) release(ctx context.Context) {
	r.stop()
	go r.obj.release(ctx)
}

// ClickElement clicks the node at x, y, its click point as Inspect found
// it, and confirms that the click reached the node: a click that reached
// something else is sent once more where the node is then, and a second
// miss is a DeliveryError. A press that reached the node counts when no
// click followed (a native select's popup takes the release) or the node
// left the page, as does a click whose document went away (it navigated).
func (t *Context) ClickElement(ctx context.Context, backendNodeID int64, x, y float64) error {
	node := nodeOf(backendNodeID)
	return t.deliver(ctx, node, "click", x, y, t.clickOn(node))
}

// HoverElement moves the pointer to the node at x, y, as Hover does, and
// confirms that the pointer reached it, as ClickElement does for a click.
func (t *Context) HoverElement(ctx context.Context, backendNodeID int64, x, y float64) error {
	return t.deliver(ctx, nodeOf(backendNodeID), "hover", x, y, t.Hover)
}

// deliver sends the pointer input kind (click, hover, wheel) at x, y with
// send, and confirms it reached the node: the one mechanism every pointer
// input aimed at an element goes through.
func (t *Context) deliver(ctx context.Context, node nodeID, kind string, x, y float64,
	send func(ctx context.Context, x, y float64) error) error {
	_, _, err := t.deliverTries(ctx, node, kind, x, y, 2, send)
	return err
}

// deliverTries is deliver with at most tries sends, reporting where the
// last went.
func (t *Context) deliverTries(ctx context.Context, node nodeID, kind string, x, y float64, tries int,
	send func(ctx context.Context, x, y float64) error) (float64, float64, error) {
	for try := 1; ; try++ {
		d, err := t.sendWatched(ctx, node, kind, x, y, send)
		if err != nil || d.Delivered {
			return x, y, err
		}
		if try >= tries {
			return x, y, &DeliveryError{Input: kind, Received: d.Received, Gone: d.Gone}
		}
		t.log.Debug("the input did not reach its element; sending it again", "input", kind, "node", node.id(), "received", d.Received)
		// The record waited for the element's frame to render; aim anew
		// at where the element is now, as an agent's next try would.
		in, err := t.inspect(ctx, node, true, true)
		// A node gone after a miss: its document went away, whether or
		// not the record's read already found it so (a record armed in
		// the judging world may outlive the frame a moment).
		if errors.Is(err, ErrDetached) {
			return x, y, &DeliveryError{Input: kind, Gone: true}
		}
		if err != nil {
			return x, y, fmt.Errorf("%s: %w", kind, err)
		}
		switch {
		case !in.Visible:
			return x, y, &DeliveryError{Input: kind, Received: d.Received}
		case in.Covered != "":
			return x, y, &DeliveryError{Input: kind, Received: in.Covered}
		}
		x, y = in.X, in.Y
	}
}

// sendWatched arms a record on the node, sends the input, and reads the
// record.
func (t *Context) sendWatched(ctx context.Context, node nodeID, kind string, x, y float64,
	send func(ctx context.Context, x, y float64) error) (delivery, error) {
	r, err := t.route(ctx, node)
	if err != nil {
		return delivery{}, fmt.Errorf("%s: %w", kind, err)
	}
	defer r.cancel()
	// The binding and the node, at once: two round trips for the time of
	// one, on the path of every click.
	var n *pageObject
	var nodeErr error
	var wg sync.WaitGroup
	wg.Go(func() { n, nodeErr = t.node(ctx, node) })
	h, err := hear(r.ctx)
	wg.Wait()
	switch {
	case err != nil:
		if nodeErr == nil {
			go n.release(ctx)
		}
		return delivery{}, fmt.Errorf("%s: watch the element: %w", kind, err)
	case nodeErr != nil:
		h.stop()
		return delivery{}, fmt.Errorf("%s: %w", kind, nodeErr)
	}
	end, last := clickEvents(kind)
	obj, err := n.object(ctx, armDeliveryJS, kind, h.token, deliveryBinding, deliveryGuard.Milliseconds(), end, last)
	go n.release(ctx)
	if err != nil {
		h.stop()
		return delivery{}, fmt.Errorf("%s: watch the element: %w", kind, err)
	}
	rec := &record{obj: obj, hearing: h}
	if err := send(ctx, x, y); err != nil {
		rec.release(ctx)
		switch {
		case errors.Is(err, errMovedUnder):
			// Nothing was pressed: a miss, tried again as one.
			return delivery{Received: "what the page moved under the pointer (not pressed)"}, nil
		case errors.Is(err, ErrDetached):
			// The element went away as the pointer arrived.
			return delivery{Gone: true}, nil
		}
		return delivery{}, err
	}
	return rec.read(ctx)
}

// armKeys arms a keydown record for key in the main frame and in every
// out-of-process frame of the page, since the focus may be in any of
// them. A frame that cannot be armed is left out; the main frame must be.
func (t *Context) armKeys(ctx context.Context, key string) ([]*record, error) {
	p, _ := t.page()
	c, cancel := t.cdp(ctx)
	frames, err := t.remoteFrames(ctx, p, chromedp.FromContext(c))
	if err != nil {
		t.log.Debug("press: no out-of-process frames", "err", err)
	}
	recs := make([]*record, len(frames)+1)
	errs := make([]error, len(frames)+1)
	// arm arms a record in the session of c, which it cancels with the
	// record, or at once when it fails.
	arm := func(i int, c context.Context, cancel context.CancelFunc, f *remoteFrame) {
		h, err := hear(c)
		if err != nil {
			cancel()
			errs[i] = err
			return
		}
		var res scriptResult
		expr, err := applyJS(armKeyDeliveryJS, key, h.token, deliveryBinding)
		if err == nil {
			res, err = t.judgedEvaluate(c, expr, false)
		}
		if err == nil {
			err = res.err()
		}
		if err != nil {
			h.stop()
			cancel()
			errs[i] = err
			return
		}
		stop := h.stop
		h.stop = func() { stop(); cancel() }
		recs[i] = &record{obj: &pageObject{t: t, id: res.Result.ObjectID, frame: f}, hearing: h}
	}
	var wg sync.WaitGroup
	wg.Go(func() { arm(0, c, cancel, nil) })
	for i, f := range frames {
		wg.Go(func() {
			fc, fcancel := f.cdp(ctx)
			arm(i+1, fc, fcancel, f)
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
func (t *Context) readKeys(ctx context.Context, recs []*record) (delivery, error) {
	ds := make([]delivery, len(recs))
	errs := make([]error, len(recs))
	var wg sync.WaitGroup
	for i, r := range recs {
		wg.Go(func() { ds[i], errs[i] = r.read(ctx) })
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
		out.Gone = out.Gone || d.Gone
		if out.Received == "" {
			out.Received = d.Received
		}
	}
	out.Delivered = !holds && seen
	return out, nil
}
