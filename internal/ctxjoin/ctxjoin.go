// Package ctxjoin joins two contexts into one that ends with either: a
// call that runs on one context (a browser target's, a session's) on
// behalf of another (a request's).
package ctxjoin

import (
	"context"
	"errors"
)

// Join returns a context that has base's values and ends when base or also
// ends, whichever is first. It ends with also's cause, and takes also's
// deadline: when also ends at its deadline, the joined context ends at its
// own, so that its error is context.DeadlineExceeded, as also's is, rather
// than context.Canceled. stop releases the context and ends it; call it
// when the work is done.
func Join(base, also context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancelDeadline := base, context.CancelFunc(func() {})
	if dl, ok := also.Deadline(); ok {
		ctx, cancelDeadline = context.WithDeadline(base, dl)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stopAfter := context.AfterFunc(also, func() {
		if !errors.Is(also.Err(), context.DeadlineExceeded) {
			cancel(context.Cause(also))
		}
	})
	return ctx, func() {
		stopAfter()
		cancel(context.Canceled)
		cancelDeadline()
	}
}
