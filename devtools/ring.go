package devtools

// ring holds the newest n values pushed, oldest first, and counts those it
// dropped to make room.
type ring[T any] struct {
	buf     []T
	start   int // index of the oldest
	size    int
	dropped uint64
}

func newRing[T any](n int) ring[T] { return ring[T]{buf: make([]T, n)} }

// push adds v, and returns the value it dropped to make room, if any.
func (r *ring[T]) push(v T) (gone T, dropped bool) {
	if r.size < len(r.buf) {
		r.buf[(r.start+r.size)%len(r.buf)] = v
		r.size++
		return gone, false
	}
	gone = r.buf[r.start]
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
	r.dropped++
	return gone, true
}

// all returns the values held, oldest first.
func (r *ring[T]) all() []T {
	out := make([]T, r.size)
	for i := range r.size {
		out[i] = r.buf[(r.start+i)%len(r.buf)]
	}
	return out
}
