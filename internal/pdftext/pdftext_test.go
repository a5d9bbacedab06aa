package pdftext_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/fixtures"
	"github.com/chaperone-mcp/chaperone/internal/pdftext"
)

func TestReadsTheGuidePageByPage(t *testing.T) {
	data, err := os.ReadFile("../../fixtures/site/files/guide.pdf")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := pdftext.Read(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	if want := fixtures.GuidePages(); doc.Total != len(want) || !slices.Equal(doc.Pages, want) {
		t.Errorf("read %d of %d pages:\n%q\nwant\n%q", len(doc.Pages), doc.Total, doc.Pages, want)
	}
}

// build writes a PDF of the given objects (numbered from 1, the first the
// catalog) with a correct cross-reference table.
func build(objects ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	var offsets []int
	for i, o := range objects {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

func stream(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}

const font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// TestLinesAndWords checks how glyphs become lines: a new line where the
// baseline moves, a space where words are placed apart on one line, none
// inside a word drawn in pieces.
func TestLinesAndWords(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"lines by T*", "BT /F1 12 Tf 14 TL 72 700 Td (one line) Tj T* (another) Tj ET", "one line\nanother"},
		{"lines by Td", "BT /F1 12 Tf 72 700 Td (first) Tj 0 -20 Td (second) Tj ET", "first\nsecond"},
		{"words placed apart", "BT /F1 12 Tf 72 700 Td (Total) Tj 60 0 Td ($8.99) Tj ET", "Total $8.99"},
		{"kerned TJ", "BT /F1 12 Tf 72 700 Td [(Pri) -20 (ce)] TJ ET", "Price"},
		{"text matrix per line", "BT /F1 12 Tf 1 0 0 1 72 700 Tm (top) Tj 1 0 0 1 72 600 Tm (bottom) Tj ET", "top\nbottom"},
		{"escapes and octal", `BT /F1 12 Tf 72 700 Td (a \(b\) \\ caf\351) Tj ET`, `a (b) \ café`},
		{"control characters dropped", "BT /F1 12 Tf 72 700 Td (bell\007 here) Tj ET", "bell here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := build("<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
				stream(tt.content), font)
			doc, err := pdftext.Read(t.Context(), data)
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Pages) != 1 || doc.Pages[0] != tt.want {
				t.Errorf("pages %q, want [%q]", doc.Pages, tt.want)
			}
		})
	}
}

// TestHostileFiles checks that what a parser chokes on is an error or an
// empty page, never a panic or a loop.
func TestHostileFiles(t *testing.T) {
	page := func(content string) []byte {
		return build("<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream(content), font)
	}
	guide, err := os.ReadFile("../../fixtures/site/files/guide.pdf")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		data      []byte
		wantErr   bool
		wantPages []string
	}{
		{"empty", nil, true, nil},
		{"html", []byte("<!doctype html><title>x</title>"), true, nil},
		{"truncated", guide[:len(guide)/2], true, nil},
		{"no xref", []byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n"), true, nil},
		{"page tree that loops", build("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 1 >>"), false, nil},
		{"restore with no save", page("BT /F1 12 Tf 72 700 Td (kept) Tj ET Q Q"), false, []string{"kept"}},
		{"operator short of operands", page("BT /F1 Tf (x) Tj ET"), false, []string{""}},
		{"no contents", build("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /Parent 2 0 R >>"), false, []string{""}},
		{"PDF 2.0 header", append([]byte("%PDF-2.0"), page("BT /F1 12 Tf 72 700 Td (two) Tj ET")[8:]...), false, []string{"two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := pdftext.Read(t.Context(), tt.data)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want an error: %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if !slices.Equal(doc.Pages, tt.wantPages) {
				t.Errorf("pages %q, want %q", doc.Pages, tt.wantPages)
			}
		})
	}
	if _, err := pdftext.Read(t.Context(), []byte("plain text")); !errors.Is(err, pdftext.ErrNotPDF) {
		t.Errorf("plain text: %v, want ErrNotPDF", err)
	}
}

// TestManyPagesAreCut checks that a document longer than MaxPages is read
// up to it and says how long it is.
func TestManyPagesAreCut(t *testing.T) {
	n := pdftext.MaxPages + 5
	kids := make([]string, n)
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", font, stream("BT /F1 12 Tf 72 700 Td (p) Tj ET")}
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", len(objects)+1)
		objects = append(objects, "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>")
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	doc, err := pdftext.Read(t.Context(), build(objects...))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != pdftext.MaxPages || doc.Total != n {
		t.Errorf("read %d pages of %d, want %d of %d", len(doc.Pages), doc.Total, pdftext.MaxPages, n)
	}
}

// TestReadsWhatChromiumPrints reads a PDF as browsers make them (Page.printToPDF
// of /variants/extract-article, CID fonts with ToUnicode maps, kerned runs,
// no glyph widths the parser knows): words whole, lines apart.
func TestReadsWhatChromiumPrints(t *testing.T) {
	data, err := os.ReadFile("testdata/chromium-print.pdf")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := pdftext.Read(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != 1 {
		t.Fatalf("%d pages, want 1", len(doc.Pages))
	}
	lines := strings.Split(doc.Pages[0], "\n")
	for _, want := range []string{"StreamFlix", "Home Account Help Center", "Getting started", "Welcome to the Help centre guide.", "1. Create an account", "Basic costs 8 EUR a month.", "Opening hours: 9 to 17", "Last line of the guide."} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q in\n%s", want, doc.Pages[0])
		}
	}
}
