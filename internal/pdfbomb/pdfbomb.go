// Package pdfbomb builds hostile PDFs for tests: small files that cost a
// reader far more than their size (a content stream that inflates to tens
// of megabytes, many pages, object graphs that loop or nest, glyphs by the
// million). Tests make them in memory; none is committed.
package pdfbomb

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// Build writes a PDF of the given objects, numbered from 1, the first the
// catalog, with a correct cross-reference table.
func Build(objects ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, 0, len(objects))
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

// Stream is a stream object of data as it is, with extra entries for its
// dictionary.
func Stream(data []byte, dict string) string {
	return fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(data), dict, data)
}

// Deflate compresses data as a FlateDecode stream holds it, as tightly as
// it goes.
func Deflate(data []byte) []byte {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	_, _ = w.Write(data)
	_ = w.Close()
	return b.Bytes()
}

// Font is a font dictionary of a standard font.
const Font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// OnePage is a PDF of one page drawing content (a FlateDecode stream when
// deflate is set), its font F1 at object 5.
func OnePage(content []byte, deflate bool) []byte {
	stream := Stream(content, "")
	if deflate {
		stream = Stream(Deflate(content), "/Filter /FlateDecode")
	}
	return Build("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream, Font)
}

// Repeat is unit repeated until it is at least n bytes long.
func Repeat(unit string, n int) []byte {
	return bytes.Repeat([]byte(unit), max(1, (n+len(unit)-1)/len(unit)))
}

// Inflating is a PDF of one page whose content stream inflates to about n
// bytes of text operators drawing one glyph each: the bomb of issue 27
// (96 KB inflating to 64 MB).
func Inflating(n int) []byte {
	return OnePage(append([]byte("BT /F1 12 Tf 72 700 Td "), Repeat("(x) Tj ", n)...), true)
}

// Zeros is a PDF of one page whose content stream inflates to n zero
// bytes: no operator at all, only white space to the parser.
func Zeros(n int) []byte {
	return OnePage(make([]byte, n), true)
}

// Operands is a PDF of one page whose content stream is n bytes of
// operands with no operator to take them.
func Operands(n int) []byte {
	return OnePage(Repeat("1 ", n), true)
}

// Glyphs is a PDF of one page that shows n glyphs from few bytes: one
// long string shown again and again.
func Glyphs(n int) []byte {
	s := strings.Repeat("x", 4096)
	op := "(" + s + ") Tj "
	return OnePage(append([]byte("BT /F1 12 Tf 72 700 Td "), Repeat(op, n/len(s)*len(op))...), true)
}

// DoubleFlate is a PDF of one page whose content stream is deflated twice
// ([/FlateDecode /FlateDecode]), inflating to about n bytes of zeros: a
// chain of filters multiplies the ratio one filter allows.
func DoubleFlate(n int) []byte {
	inner := Deflate(make([]byte, n))
	return Build("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		Stream(Deflate(inner), "/Filter [/FlateDecode /FlateDecode]"), Font)
}

// Pages is a PDF of n pages, each drawing the same deflated content.
func Pages(n int, content []byte) []byte {
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", Font, Stream(Deflate(content), "/Filter /FlateDecode")}
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", len(objects)+1)
		objects = append(objects, "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>")
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return Build(objects...)
}

// ParentLoop is a PDF of one page with no resources of its own, whose
// parents, n of them, lead back to one another: a reader that looks up the
// page's font by inheritance without counting never ends.
func ParentLoop(n int) []byte {
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 5 0 R /Contents 4 0 R >>",
		Stream([]byte("BT /F1 12 Tf 72 700 Td (loop) Tj ET"), "")}
	for i := range n {
		objects = append(objects, fmt.Sprintf("<< /Type /Pages /Parent %d 0 R >>", 5+(i+1)%n))
	}
	return Build(objects...)
}

// XrefSize is a PDF whose cross-reference stream claims size entries: a
// reader that makes its table that big before reading it allocates it.
func XrefSize(size int64) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	first := b.Len()
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	second := b.Len()
	b.WriteString("2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n")
	xref := b.Len()
	row := func(typ byte, off int) []byte {
		return []byte{typ, byte(off >> 24), byte(off >> 16), byte(off >> 8), byte(off), 0}
	}
	var rows []byte
	rows = append(rows, row(0, 0)...)
	rows = append(rows, row(1, first)...)
	rows = append(rows, row(1, second)...)
	rows = append(rows, row(1, xref)...)
	data := Deflate(rows)
	fmt.Fprintf(&b, "3 0 obj\n<< /Type /XRef /Size %d /Index [0 4] /W [1 4 1] /Root 1 0 R /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n", size, len(data), data)
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}

// ObjectStream is a PDF whose page is an object inside an object stream,
// placed after pad bytes of white space: a reader finds the page only by
// inflating the object stream, which the page tree's walk does inside the
// parser, where no caller sees the bytes go by.
func ObjectStream(pad int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	offsets := map[int]int{}
	obj := func(n int, body string) {
		offsets[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
	}
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj(4, Stream([]byte("BT /F1 12 Tf 72 700 Td (in a stream) Tj ET"), ""))
	obj(6, Font)
	header := "3 0 "
	first := len(header) + pad
	objects := header + strings.Repeat(" ", pad) + "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 6 0 R >> >> /Contents 4 0 R >>"
	data := Deflate([]byte(objects))
	offsets[5] = b.Len()
	fmt.Fprintf(&b, "5 0 obj\n<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n", first, len(data), data)
	xref := b.Len()
	var rows []byte
	row := func(typ byte, a, c int) {
		rows = append(rows, typ, byte(a>>24), byte(a>>16), byte(a>>8), byte(a), byte(c>>8), byte(c))
	}
	row(0, 0, 65535)
	row(1, offsets[1], 0)
	row(1, offsets[2], 0)
	row(2, 5, 0)
	row(1, offsets[4], 0)
	row(1, offsets[5], 0)
	row(1, offsets[6], 0)
	row(1, xref, 0)
	stream := Deflate(rows)
	fmt.Fprintf(&b, "7 0 obj\n<< /Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n", len(stream), stream)
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}

// CharMap is a PDF of one page whose font's character map gives the code
// "x" a text of n characters, and whose content shows a string of x's:
// each byte of the content decodes to n characters.
func CharMap(n int) []byte {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <78> <" +
		strings.Repeat("0041", n) + "> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end"
	return Build("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		Stream([]byte("BT /F1 12 Tf 72 700 Td ("+strings.Repeat("x", 4096)+") Tj ET"), ""),
		"<< /Type /Font /Subtype /Type0 /BaseFont /Bomb /Encoding /Identity-H /ToUnicode 6 0 R >>",
		Stream(Deflate([]byte(cmap)), "/Filter /FlateDecode"))
}

// ManyContents is a PDF of one page whose contents name one small deflated
// stream n times: a reader that opens every stream before reading the
// first holds n decoders at once.
func ManyContents(n int) []byte {
	refs := strings.Repeat("4 0 R ", n)
	return Build("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents ["+refs+"] >>",
		Stream(Deflate([]byte("BT /F1 12 Tf 72 700 Td (x) Tj ET ")), "/Filter /FlateDecode"), Font)
}
