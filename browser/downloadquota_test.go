package browser

import (
	"strings"
	"testing"
)

// TestDownloadQuota checks the session's bounds on downloads together:
// the count of those begun, and the bytes of those saved and under way,
// so that downloads running at once cannot pass the total between them.
func TestDownloadQuota(t *testing.T) {
	t.Parallel()
	q := NewDownloadQuota(3, 1000)
	a, b, c, d := &download{}, &download{}, &download{}, &download{}
	for _, x := range []*download{a, b, c} {
		if why := q.begin(x); why != "" {
			t.Fatalf("begin: %s", why)
		}
	}
	if why := q.begin(d); !strings.Contains(why, "at most 3 downloads (--max-downloads)") {
		t.Errorf("a fourth download: %q", why)
	}
	// Under way together: a and b fit, c's bytes would pass the total.
	if q.grow(a, 400) != "" || q.grow(b, 500) != "" {
		t.Fatal("downloads within the total refused")
	}
	if why := q.grow(c, 200); !strings.Contains(why, "at most 1000 B together (--max-downloads-total)") {
		t.Errorf("a download past the total with the others under way: %q", why)
	}
	q.end(c)
	if q.keep(a, 400) != "" {
		t.Error("a finished download within the total not kept")
	}
	// b grew past what it announced: kept only if it fits beside a.
	if why := q.keep(b, 700); why == "" {
		t.Error("a finished download past the total kept")
	}
	q.end(b)
	if q.grow(d, 1) != "" {
		t.Error("a download never begun is counted")
	}
	var none *DownloadQuota
	if none.begin(a) != "" || none.grow(a, 1<<40) != "" || none.keep(a, 1<<40) != "" {
		t.Error("a nil quota bounds something")
	}
	none.end(a)
}
