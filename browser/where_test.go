package browser_test

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

func where(t *testing.T, tab *browser.Context, node int64) browser.Where {
	t.Helper()
	w, err := tab.Where(testCtx(t), node)
	if err != nil {
		t.Fatal(err)
	}
	if w.Target == "" || w.Frame == "" || w.Document == "" || w.URL == "" {
		t.Fatalf("incomplete place %+v", w)
	}
	return w
}

// TestWhere checks what binds an approval to its place: a reload keeps the
// page and frame but is a new document; a cross-site frame is a frame of
// its own on the same page.
func TestWhere(t *testing.T) {
	t.Parallel()
	tab := payPage(t)
	main := where(t, tab, nodeOf(t, tab, "heading", "Card payment"))
	if !strings.Contains(main.URL, "/variants/cross-site-checkout") {
		t.Errorf("main document URL %q", main.URL)
	}
	page, err := tab.PageWhere(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if page != main {
		t.Errorf("the page is at %+v, its heading at %+v", page, main)
	}
	inFrame := where(t, tab, frameNode(t, tab, "button", "Pay"))
	if inFrame.Target != main.Target || inFrame.Frame == main.Frame || inFrame.Document == main.Document ||
		!strings.Contains(inFrame.URL, "/variants/card-frame") {
		t.Errorf("frame's button at %+v, page at %+v", inFrame, main)
	}

	navigate(t, tab, main.URL)
	again := where(t, tab, nodeOf(t, tab, "heading", "Card payment"))
	if again.Target != main.Target || again.Frame != main.Frame || again.URL != main.URL {
		t.Errorf("reloaded page at %+v, was %+v", again, main)
	}
	if again.Document == main.Document {
		t.Errorf("a reload kept the document id %s", main.Document)
	}

	if _, err := tab.Where(testCtx(t), 999_999); err == nil {
		t.Error("a node that does not exist has a place")
	}
}

// TestWhereSameSiteFrame checks a frame that shares the page's process: its
// nodes are the page's session's, and still in a frame of their own.
func TestWhereSameSiteFrame(t *testing.T) {
	t.Parallel()
	tab := browsertest.Tab(t)
	navigate(t, tab, browsertest.Site(t)+"/variants/iframe")
	page, err := tab.PageWhere(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	w := where(t, tab, nodeOf(t, tab, "button", "Apply"))
	if w.Target != page.Target || w.Frame == page.Frame || w.Document == page.Document || !strings.Contains(w.URL, "/variants/frame-inner") {
		t.Errorf("frame's button at %+v, page at %+v", w, page)
	}
}
