package browser

import (
	"context"
	"fmt"
	"time"
)

// The quiet watch counts a document's DOM changes and scrolls from the
// moment it is armed. Reading it reports -1 when the document that was armed
// is gone, which means a navigation replaced it.

// WaitQuiet waits until the page's DOM has had no change for the quiet
// window, at most for limit.
func (t *Context) WaitQuiet(ctx context.Context, quiet, limit time.Duration) error {
	if _, err := t.quiet(ctx, quiet, limit, true); err != nil {
		return fmt.Errorf("wait for the page to settle: %w", err)
	}
	return nil
}

// armQuiet arms the quiet watch in the current document, and in those of
// the out-of-process frames the last capture saw (frames.go), whose changes
// the page's watch cannot see.
func (t *Context) armQuiet(ctx context.Context) error {
	if err := t.callPage(ctx, armQuietWatchJS, nil); err != nil {
		return err
	}
	// A frame that cannot be armed (it is going away) answers -1 when the
	// wait reads it, which makes the settle capture anew.
	t.inFrames(ctx, armQuietWatchJS)
	return nil
}

// firstChange waits, for at most limit, for the first change since the watch
// was armed, and returns the count of changes then. With out-of-process
// frames, each document waits for its own first change, and the count is
// the sum; a frame whose document went away makes it -1.
func (t *Context) firstChange(ctx context.Context, limit time.Duration) (int, error) {
	frames := t.inFramesAsync(ctx, waitFirstChangeJS, limit.Milliseconds())
	var changes int
	err := t.callPage(ctx, waitFirstChangeJS, &changes, limit.Milliseconds())
	return addFrames(changes, frames), err
}

// quiet waits for the quiet window, at most for limit, arming the watch first
// when arm is set, and returns how many changes it saw since it was armed.
func (t *Context) quiet(ctx context.Context, quiet, limit time.Duration, arm bool) (int, error) {
	script := waitQuietJS
	if arm {
		// Arming and waiting run as one script, on one document, so that a
		// document that goes away after the arming fails the wait.
		script = armAndWaitQuietJS
	}
	var frames <-chan int
	if !arm {
		frames = t.inFramesAsync(ctx, waitQuietJS, quiet.Milliseconds(), limit.Milliseconds())
	}
	var changes int
	err := t.callPage(ctx, script, &changes, quiet.Milliseconds(), limit.Milliseconds())
	return addFrames(changes, frames), err
}

// addFrames adds the out-of-process frames' counts to the page's; -1 from
// either side wins.
func addFrames(page int, frames <-chan int) int {
	if frames == nil {
		return page
	}
	n := <-frames
	if page < 0 || n < 0 {
		return -1
	}
	return page + n
}
