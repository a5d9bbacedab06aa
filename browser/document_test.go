package browser_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

// TestDocumentBytes reads a PDF the browser shows: its type, and its bytes
// as the server sent them; over the cap it is ErrTooLarge. An HTML page is
// text/html.
func TestDocumentBytes(t *testing.T) {
	site := browsertest.Site(t)
	tab := browsertest.Tab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tab.Navigate(ctx, site+"/account"); err != nil {
		t.Fatal(err)
	}
	if typ, err := tab.DocumentType(ctx); err != nil || typ != "text/html" {
		t.Errorf("the account page's type: %q, %v", typ, err)
	}
	if err := tab.Navigate(ctx, site+"/files/guide.pdf"); err != nil {
		t.Fatal(err)
	}
	if typ, err := tab.DocumentType(ctx); err != nil || typ != "application/pdf" {
		t.Errorf("the guide's type: %q, %v", typ, err)
	}
	want, err := os.ReadFile("../fixtures/site/files/guide.pdf")
	if err != nil {
		t.Fatal(err)
	}
	data, typ, err := tab.DocumentBytes(ctx, 1<<20)
	if err != nil || typ != "application/pdf" || !bytes.Equal(data, want) {
		t.Errorf("the guide's bytes: %d bytes of type %q, %v; want the %d bytes of the file", len(data), typ, err, len(want))
	}
	if _, _, err := tab.DocumentBytes(ctx, 100); !errors.Is(err, browser.ErrTooLarge) {
		t.Errorf("over a cap of 100 bytes: %v, want ErrTooLarge", err)
	}
}
