package fleet

import (
	"context"

	"github.com/chaperone-mcp/chaperone/browser"
)

// Lease is one isolated browser context of a Fleet and its place on the
// member it was opened on. Its holder closes it when done.
type Lease struct {
	// Context is the browser context and the pages it holds.
	Context *browser.Context
	// StorageErr is why loading the storage state failed when Move opened
	// the context, or nil.
	StorageErr error

	f  *Fleet
	mb *member
	// b is the browser the context was opened on.
	b *browser.Browser
}

// Close closes the context and gives its place back.
func (l *Lease) Close() error {
	l.f.release(l.mb)
	return l.Context.Close()
}

// Pooled reports whether the context moves to another browser when its own
// dies (Move), rather than its browser relaunching or being reconnected.
func (l *Lease) Pooled() bool { return l.mb.endpoint != "" }

// Gone reports whether the browser the context lives on is gone (it died,
// its endpoint ended the connection, or the fleet let go of it), so that
// the context must move (Move) rather than recover in place.
func (l *Lease) Gone() bool {
	select {
	case <-l.b.Gone():
		return true
	default:
		return false
	}
}

// Where names the browser the context lives on, as logs and messages may
// show it.
func (l *Lease) Where() string { return l.mb.name() }

// HasStorage reports whether the fleet loads a storage state into every
// context.
func (l *Lease) HasStorage() bool { return l.f.storage != nil }

// Move closes the context, whose browser died, and opens a fresh one on
// another member of the pool, with the storage state loaded (StorageErr
// says if that failed). The old lease is spent either way.
func (l *Lease) Move(ctx context.Context) (*Lease, error) {
	l.Close()
	next, err := l.f.open(ctx, l.mb)
	if err != nil {
		return nil, err
	}
	if l.f.storage != nil {
		next.StorageErr = next.Context.LoadStorageState(ctx, *l.f.storage)
	}
	return next, nil
}

// Endpoint is the pool endpoint the context lives on, or "" on the fleet's
// own browser.
func (l *Lease) Endpoint() string { return l.mb.endpoint }
