package pause_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/internal/pause"
)

func TestFor(t *testing.T) {
	t.Parallel()
	if err := pause.For(t.Context(), time.Millisecond); err != nil {
		t.Errorf("a short pause: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	// An hour, cut short by the context that already ended.
	if err := pause.For(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a pause under an ended context: %v, want context.Canceled", err)
	}
}
