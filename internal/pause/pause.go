// Package pause waits for a while unless a context ends first, the one
// wait the driver's retries and a session's pace share.
package pause

import (
	"context"
	"time"
)

// For waits for d, or until ctx ends, and then returns ctx's error.
func For(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
