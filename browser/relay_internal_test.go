package browser

import (
	"context"
	"testing"
	"time"
)

// TestForwardEndsWithItsContext feeds forward more events than its channel
// holds, with nobody reading, and then ends the events' context, as a
// settle that returned does: forward must drop what finds the channel full
// and end with the events, not block on the channel for ever (the dialog
// relay once did, and leaked its goroutine).
func TestForwardEndsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	const sent, room = 100, 8
	yielded := make(chan struct{})
	seq := func(yield func(int, error) bool) {
		for i := range sent {
			if !yield(i, nil) {
				return
			}
		}
		close(yielded)
		<-ctx.Done()
		yield(0, ctx.Err())
	}
	to := make(chan int, room)
	done := make(chan struct{})
	go func() {
		forward(seq, to, func(i int) int { return i })
		close(done)
	}()
	select {
	case <-yielded:
	case <-time.After(time.Minute):
		t.Fatal("forward blocked on a full channel")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("forward outlived its events' context")
	}
	if len(to) != room {
		t.Fatalf("%d events queued, want the first %d", len(to), room)
	}
	for want := range room {
		if got := <-to; got != want {
			t.Errorf("event %d is %d: the first ones must be kept", want, got)
		}
	}
}
