package pdftext_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/pdfbomb"
	"github.com/chaperone-mcp/chaperone/internal/pdftext"
)

// maxAlloc bounds what reading any one bomb may allocate, all allocations
// added up (before the bounds, the 96 KB bomb of issue 27 allocated
// gigabytes and held 2 GB at once).
const maxAlloc = 512 << 20

// TestBombsAreRefused reads PDFs that cost far more than their size, one
// per bound, and checks each is refused as too large, saying which bound,
// having allocated a bounded amount.
func TestBombsAreRefused(t *testing.T) {
	text := func(s string) []byte { return []byte("BT /F1 12 Tf 72 700 Td " + s + " ET") }
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"64 MB of text operators from 96 KB", pdfbomb.Inflating(64 << 20), "glyphs"},
		{"inflates to zeros past the stream bound", pdfbomb.Zeros(20 << 20), "a stream decodes to more than"},
		{"deflated twice", pdfbomb.DoubleFlate(20 << 20), "a stream decodes to more than"},
		{"operands and no operator", pdfbomb.Operands(4 << 20), "more than 1048576 elements"},
		{"one string shown again and again", pdfbomb.Glyphs(8 << 20), "glyphs"},
		{"a huge array", pdfbomb.OnePage(append(append([]byte("BT /F1 12 Tf 72 700 Td ["), pdfbomb.Repeat("0 ", 3<<20)...), "] TJ ET"...), true), "elements"},
		{"graphics states saved and never restored", pdfbomb.OnePage(pdfbomb.Repeat("q ", 1<<20), true), "nested deeper"},
		{"rectangles by the million", pdfbomb.OnePage(pdfbomb.Repeat("0 0 1 1 re ", 4<<20), true), "glyphs"},
		{"parents that loop", pdfbomb.ParentLoop(3), "objects"},
		{"contents that name one stream again and again", pdfbomb.ManyContents(20_000), "streams"},
		{"a cross-reference table of 64 M entries", pdfbomb.XrefSize(64 << 20), "cross-reference table"},
		{"a cross-reference table of 4 G entries", pdfbomb.XrefSize(4 << 30), "cross-reference table"},
		{"a cross-reference section past the bound", []byte("%PDF-1.4\nxref\n4000000000 1\n0000000000 00000 n \ntrailer\n<< /Size 1 >>\n%" + strings.Repeat(" ", 100) + "\nstartxref\n9\n%%EOF\n"), "cross-reference table"},
		{"an object stream that inflates past the bound", pdfbomb.ObjectStream(20 << 20), "a stream decodes to more than"},
		{"glyphs in many short strings", pdfbomb.OnePage(text(strings.Repeat("(xxxxxxxxxxxxxxxx) Tj ", 20000)), true), "glyphs"},
		{"a character map that makes one code a long text", pdfbomb.CharMap(100_000), "glyphs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			doc, err := pdftext.Read(t.Context(), tt.data)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, pdftext.ErrTooLarge) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v (doc %v), want ErrTooLarge saying %q", err, doc, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "the PDF is too large to read: ") {
				t.Errorf("message %q", err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > maxAlloc {
				t.Errorf("allocated %d MB reading a %d KB file", n>>20, len(tt.data)>>10)
			}
		})
	}
}

// TestBoundsKeepWhatWasRead checks that a document whose later page meets
// a bound keeps the pages before it, and says why the rest is not read.
func TestBoundsKeepWhatWasRead(t *testing.T) {
	first := pdfbomb.Stream([]byte("BT /F1 12 Tf 72 700 Td (first page) Tj ET"), "")
	bomb := pdfbomb.Stream(pdfbomb.Deflate(make([]byte, 20<<20)), "/Filter /FlateDecode")
	data := pdfbomb.Build("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 7 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 7 0 R >> >> /Contents 6 0 R >>",
		first, bomb, pdfbomb.Font)
	doc, err := pdftext.Read(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != 1 || doc.Pages[0] != "first page" || doc.Total != 2 || !strings.Contains(doc.Cut, "page 2 is too large to read: a stream decodes") {
		t.Errorf("pages %q of %d, cut %q", doc.Pages, doc.Total, doc.Cut)
	}
}

// TestReadEndsWithItsContext checks that the context bounds the read: one
// that has ended stops it at once, a deadline as too large to read (the
// document took the time), a cancellation as the caller's.
func TestReadEndsWithItsContext(t *testing.T) {
	data := pdfbomb.ParentLoop(3)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := pdftext.Read(canceled, data); !errors.Is(err, context.Canceled) || errors.Is(err, pdftext.ErrTooLarge) {
		t.Errorf("cancelled: %v", err)
	}
	expired, cancel := context.WithTimeout(t.Context(), 0)
	defer cancel()
	if _, err := pdftext.Read(expired, data); !errors.Is(err, pdftext.ErrTooLarge) || !strings.Contains(err.Error(), "took too long") {
		t.Errorf("past its deadline: %v", err)
	}
}

// TestObjectStreamReadOnce checks that a page inside an object stream is
// read, and that objects in one are read from it decoded once.
func TestObjectStreamReadOnce(t *testing.T) {
	doc, err := pdftext.Read(t.Context(), pdfbomb.ObjectStream(1<<20))
	if err != nil || len(doc.Pages) != 1 || doc.Pages[0] != "in a stream" {
		t.Fatalf("read %v, %v", doc, err)
	}
}

// TestBoundsLeaveRealDocuments checks that documents as people make them
// stay inside the bounds: a long one, and one whose pages share a font with
// a character map (read once, not at every font change).
func TestBoundsLeaveRealDocuments(t *testing.T) {
	var content strings.Builder
	content.WriteString("BT 14 TL 72 700 Td ")
	for range 20 {
		content.WriteString("/F1 12 Tf (a line of text on the page) Tj T* ")
	}
	content.WriteString("ET")
	doc, err := pdftext.Read(t.Context(), pdfbomb.Pages(600, []byte(content.String())))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != 600 || doc.Cut != "" || !strings.HasPrefix(doc.Pages[599], "a line of text on the page\n") {
		t.Errorf("read %d pages, cut %q", len(doc.Pages), doc.Cut)
	}
}

// BenchmarkReadBomb reads the bomb of issue 27 (96 KB, one page that
// inflates to 64 MB of text operators); -benchmem reports what it costs.
// Before the bounds: about 10 s and 2 GB at peak per read.
func BenchmarkReadBomb(b *testing.B) {
	data := pdfbomb.Inflating(64 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pdftext.Read(b.Context(), data); !errors.Is(err, pdftext.ErrTooLarge) {
			b.Fatal(err)
		}
	}
}
