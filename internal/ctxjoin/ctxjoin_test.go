package ctxjoin_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/ctxjoin"
)

type key struct{}

func TestJoin(t *testing.T) {
	t.Parallel()
	errGone := errors.New("the session closed")
	tests := []struct {
		name      string
		end       func(base, also context.CancelCauseFunc) // ends one side
		alsoAfter time.Duration                            // also's deadline; 0 for none
		err       error
		cause     error
	}{
		{"base ends", func(base, _ context.CancelCauseFunc) { base(errGone) }, 0, context.Canceled, errGone},
		{"also ends", func(_, also context.CancelCauseFunc) { also(errGone) }, 0, context.Canceled, errGone},
		{"also's deadline", func(_, _ context.CancelCauseFunc) {}, time.Millisecond, context.DeadlineExceeded, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, cancelBase := context.WithCancelCause(context.WithValue(t.Context(), key{}, "base"))
			defer cancelBase(nil)
			also, cancelAlso := context.WithCancelCause(t.Context())
			defer cancelAlso(nil)
			if tt.alsoAfter > 0 {
				var c context.CancelFunc
				also, c = context.WithTimeout(also, tt.alsoAfter)
				defer c()
			}
			ctx, stop := ctxjoin.Join(base, also)
			defer stop()
			if ctx.Value(key{}) != "base" {
				t.Error("the joined context lost base's values")
			}
			if ctx.Err() != nil {
				t.Fatalf("ended before either side: %v", ctx.Err())
			}
			tt.end(cancelBase, cancelAlso)
			<-ctx.Done()
			if !errors.Is(ctx.Err(), tt.err) || !errors.Is(context.Cause(ctx), tt.cause) {
				t.Errorf("ended with %v (cause %v), want %v (cause %v)", ctx.Err(), context.Cause(ctx), tt.err, tt.cause)
			}
		})
	}
}

// TestJoinStop checks that stop ends the joined context and lets go of
// also: also ending later changes nothing.
func TestJoinStop(t *testing.T) {
	t.Parallel()
	also, cancelAlso := context.WithCancelCause(t.Context())
	ctx, stop := ctxjoin.Join(t.Context(), also)
	stop()
	cancelAlso(errors.New("late"))
	if !errors.Is(context.Cause(ctx), context.Canceled) {
		t.Errorf("after stop, the cause is %v, want context.Canceled", context.Cause(ctx))
	}
}
