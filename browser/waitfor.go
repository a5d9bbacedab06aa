package browser

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// reloadPause is how long WaitForText lets a new document come up after the
// one it watched went away, before it watches again.
const reloadPause = 50 * time.Millisecond

// WaitForText waits, for at most limit, until text shows in the page's
// visible text (gone: until it does not), case and runs of spaces ignored.
// It watches DOM changes in the page rather than polling, and starts again
// on the new document when the page navigates. It reports whether the
// condition held in time.
func (t *Context) WaitForText(ctx context.Context, text string, gone bool, limit time.Duration) (bool, error) {
	mode := "text"
	if gone {
		mode = "text_gone"
	}
	ctx, cancel := context.WithTimeout(ctx, limit+time.Second)
	defer cancel()
	end := time.Now().Add(limit)
	for {
		left := time.Until(end)
		if left < 0 {
			left = 0
		}
		var ok bool
		err := t.callPage(ctx, waitForJS, &ok, mode, text, left.Milliseconds())
		if err == nil {
			return ok, nil
		}
		if ctx.Err() != nil || time.Until(end) <= 0 {
			return false, fmt.Errorf("wait for text %q: %w", text, err)
		}
		// The document went away under the watch: a navigation.
		select {
		case <-time.After(reloadPause):
		case <-ctx.Done():
			return false, fmt.Errorf("wait for text %q: %w", text, ctx.Err())
		}
	}
}

// WaitForGone waits, for at most limit, until a node is removed from the
// page or hidden, and reports whether it went in time. A node already gone,
// or whose document the page left, is gone.
func (t *Context) WaitForGone(ctx context.Context, backendNodeID int64, limit time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, limit+time.Second)
	defer cancel()
	node := nodeOf(backendNodeID)
	n, err := t.node(ctx, node)
	if errors.Is(err, ErrDetached) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer n.release(ctx)
	var ok bool
	err = n.call(ctx, waitForJS, &ok, "gone", "", limit.Milliseconds())
	if err != nil && ctx.Err() == nil {
		again, aerr := t.node(ctx, node)
		if errors.Is(aerr, ErrDetached) {
			return true, nil
		}
		if aerr == nil {
			again.release(ctx)
		}
	}
	if err != nil {
		return false, fmt.Errorf("wait for node %d to go: %w", backendNodeID, err)
	}
	return ok, nil
}
