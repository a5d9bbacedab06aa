package browser

import (
	"fmt"
	"sync"
)

// DownloadQuota bounds what the downloads of one session take together:
// how many may begin, and the bytes of those saved and of those under way,
// counted as they arrive, so that downloads running at once cannot pass it
// between them. The tabs of a session share one; it is safe for concurrent
// use. A nil quota bounds nothing.
type DownloadQuota struct {
	maxCount int
	maxBytes int64

	mu      sync.Mutex
	started int
	saved   int64
	// active holds what each download under way has received, or
	// announced, whichever is more.
	active map[*download]int64
}

// NewDownloadQuota returns a quota of at most maxCount downloads begun and
// maxBytes bytes saved and under way; zero or less sets no bound on either.
func NewDownloadQuota(maxCount int, maxBytes int64) *DownloadQuota {
	return &DownloadQuota{maxCount: maxCount, maxBytes: maxBytes, active: make(map[*download]int64)}
}

// begin counts a download that began; it returns why it may not go on, or
// "" when it may.
func (q *DownloadQuota) begin(d *download) string {
	if q == nil {
		return ""
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.started++
	if q.maxCount > 0 && q.started > q.maxCount {
		return fmt.Sprintf("the session may start at most %d downloads (--max-downloads); it was cancelled and nothing of it was kept", q.maxCount)
	}
	q.active[d] = 0
	return ""
}

// grow notes that d has n bytes so far (received or announced); it returns
// why d may not go on when the session's downloads, saved and under way,
// would pass the total, and then forgets d.
func (q *DownloadQuota) grow(d *download, n int64) string {
	if q == nil {
		return ""
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.active[d]; !ok {
		return ""
	}
	q.active[d] = n
	if q.maxBytes <= 0 {
		return ""
	}
	sum := q.saved
	for _, m := range q.active {
		sum += m
	}
	if sum > q.maxBytes {
		delete(q.active, d)
		return q.overTotal()
	}
	return ""
}

// keep counts d, finished at size bytes, as saved; it returns why it may
// not be kept when it does not fit in the total beside the files kept.
func (q *DownloadQuota) keep(d *download, size int64) string {
	if q == nil {
		return ""
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.active, d)
	if q.maxBytes > 0 && q.saved+size > q.maxBytes {
		return q.overTotal()
	}
	q.saved += size
	return ""
}

// end forgets d, which is no longer under way.
func (q *DownloadQuota) end(d *download) {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.active, d)
}

// overTotal says a download would pass the session's total.
func (q *DownloadQuota) overTotal() string {
	return fmt.Sprintf("the session's downloads may take at most %s together (--max-downloads-total); it was cancelled and nothing of it was kept", FormatBytes(q.maxBytes))
}
