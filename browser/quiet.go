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
func (t *Tab) WaitQuiet(ctx context.Context, quiet, limit time.Duration) error {
	if _, err := t.quiet(ctx, quiet, limit, true); err != nil {
		return fmt.Errorf("wait for the page to settle: %w", err)
	}
	return nil
}

// armQuiet arms the quiet watch in the current document.
func (t *Tab) armQuiet(ctx context.Context) error {
	return t.callPage(ctx, armQuietWatchJS, nil)
}

// firstChange waits, for at most limit, for the first change since the watch
// was armed, and returns the count of changes then.
func (t *Tab) firstChange(ctx context.Context, limit time.Duration) (int, error) {
	var changes int
	err := t.callPage(ctx, waitFirstChangeJS, &changes, limit.Milliseconds())
	return changes, err
}

// quiet waits for the quiet window, at most for limit, arming the watch first
// when arm is set, and returns how many changes it saw since it was armed.
func (t *Tab) quiet(ctx context.Context, quiet, limit time.Duration, arm bool) (int, error) {
	script := waitQuietJS
	if arm {
		// Arming and waiting run as one script, on one document, so that a
		// document that goes away after the arming fails the wait.
		script = armAndWaitQuietJS
	}
	var changes int
	err := t.callPage(ctx, script, &changes, quiet.Milliseconds(), limit.Milliseconds())
	return changes, err
}
