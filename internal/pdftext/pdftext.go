// Package pdftext reads the text of a PDF, page by page, in the order the
// document draws it: what browser_extract shows of a PDF the browser opened.
//
// It uses a copy of github.com/ledongthuc/pdf (BSD-3-Clause, pure Go, a
// fork of rsc.io/pdf; internal/pdf says what was changed), which decodes
// the page tree, content streams and font encodings (ToUnicode maps,
// standard encodings) into positioned glyphs; this package turns those into
// lines and guards against what a hostile file can do to a parser: it
// panics on malformed input, a page tree may loop, and a file of kilobytes
// can decode to gigabytes or show glyphs by the million. The copy carries
// the bounds (Limits): decoded bytes per stream and in total, objects,
// streams, elements, glyphs, nesting, and a context checked wherever it
// loops.
package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/internal/pdftext/internal/pdf"
)

// Limits on what one document may cost.
const (
	// MaxPages bounds the pages read; a longer document is cut there.
	MaxPages = 2000
	// maxText bounds the text kept, in bytes, over all pages.
	maxText = 8 << 20
	// maxDepth bounds the page tree's depth, so a tree that loops ends.
	maxDepth = 64
	// maxVisits bounds the page tree's nodes visited.
	maxVisits = 4 * MaxPages
	// MaxTime bounds the time one Read may take, within its context's.
	MaxTime = 10 * time.Second
)

// limits bound what one document may cost the parser. A page of a browser's
// print decodes to tens of kilobytes and shows a few thousand glyphs; a
// book of MaxPages pages stays well inside. What they allow costs at most a
// few hundred megabytes of memory, for a moment.
var limits = pdf.Limits{
	StreamBytes: 16 << 20,
	TotalBytes:  256 << 20,
	Objects:     200_000,
	Streams:     10_000,
	Elements:    1 << 20,
	Glyphs:      1 << 18,
	Nesting:     4096,
}

// ErrNotPDF is the error of Read for data that is not a PDF file.
var ErrNotPDF = errors.New("not a PDF file")

// ErrTooLarge is the error of Read for a document past one of its bounds
// (decoded bytes, objects, glyphs, time): a PDF bomb, or a document too
// big to read whole. Its message says which bound.
var ErrTooLarge = errors.New("the PDF is too large to read")

// tooLarge is the error of a read stopped by a bound. The caller's own
// cancellation is not the document's fault: it stays a context error.
func tooLarge(ctx context.Context, e *pdf.LimitError) error {
	if errors.Is(e.Err, context.Canceled) && ctx.Err() != nil {
		return fmt.Errorf("read the PDF: %w", ctx.Err())
	}
	if e.Err != nil {
		return fmt.Errorf("%w: reading it took too long", ErrTooLarge)
	}
	return fmt.Errorf("%w: %s", ErrTooLarge, e.What)
}

// Document is the text of a PDF.
type Document struct {
	// Pages holds each page's text, its lines separated by "\n"; Pages[0]
	// is page 1. A page with no text (a scan, say) is "".
	Pages []string
	// Total is how many pages the document has; more than len(Pages) when
	// it was cut at MaxPages, at the text limit or at a bound.
	Total int
	// Cut says why the pages after len(Pages) were not read, when a bound
	// stopped the read there; "" otherwise.
	Cut string
}

// Read parses data as a PDF and returns the text of its pages, until ctx
// ends and for at most MaxTime. A file the parser cannot read is an error
// that says why; an encrypted one is read when its user password is empty,
// as a browser opens it. A file past a bound is ErrTooLarge, unless pages
// were read before the bound was met: then the document is cut there
// (Document.Cut says why).
func Read(ctx context.Context, data []byte) (doc *Document, err error) {
	ctx, cancel := context.WithTimeout(ctx, MaxTime)
	defer cancel()
	defer func() {
		// The parser reports malformed input, and a bound met, by
		// panicking; for a file from the web that is an error to tell, not
		// a crash.
		if r := recover(); r != nil {
			if e, ok := r.(*pdf.LimitError); ok {
				doc, err = nil, tooLarge(ctx, e)
				return
			}
			doc, err = nil, fmt.Errorf("read the PDF: malformed: %v", r)
		}
	}()
	data = normalizeHeader(data)
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return nil, ErrNotPDF
	}
	r, err := pdf.NewReaderLimits(ctx, bytes.NewReader(data), int64(len(data)), limits)
	if e, ok := errors.AsType[*pdf.LimitError](err); ok {
		return nil, tooLarge(ctx, e)
	}
	if err != nil {
		return nil, fmt.Errorf("read the PDF: %w", err)
	}
	pages := collectPages(r.Trailer().Key("Root").Key("Pages"))
	doc = &Document{Total: len(pages)}
	if n := r.NumPage(); len(pages) > MaxPages && n > doc.Total {
		// The walk stopped past the limit; the tree's own count says how
		// many there are.
		doc.Total = n
	}
	size := 0
	for _, p := range pages {
		if len(doc.Pages) >= MaxPages || size >= maxText {
			break
		}
		t, err := readPage(ctx, p)
		if err != nil {
			if !errors.Is(err, ErrTooLarge) || len(doc.Pages) == 0 {
				return nil, err
			}
			doc.Cut = fmt.Sprintf("page %d is too large to read: %s", len(doc.Pages)+1, strings.TrimPrefix(err.Error(), ErrTooLarge.Error()+": "))
			break
		}
		size += len(t)
		doc.Pages = append(doc.Pages, t)
	}
	return doc, nil
}

// normalizeHeader lets the parser, which knows PDF 1.x headers only, read a
// PDF 2.0 file, whose syntax is the same for what it reads; data is copied,
// never changed in place.
func normalizeHeader(data []byte) []byte {
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		data = bytes.Clone(data)
		copy(data, "%PDF-1.7")
	}
	return data
}

// collectPages lists the page objects of the page tree under root in order,
// at most MaxPages+1 of them, going no deeper than maxDepth and visiting at
// most maxVisits nodes: a tree whose kids lead back to an ancestor ends
// there instead of looping.
func collectPages(root pdf.Value) []pdf.Page {
	var pages []pdf.Page
	visits := 0
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		visits++
		if depth > maxDepth || len(pages) > MaxPages || visits > maxVisits {
			return
		}
		switch v.Key("Type").Name() {
		case "Pages":
			kids := v.Key("Kids")
			for i := 0; i < kids.Len() && len(pages) <= MaxPages; i++ {
				walk(kids.Index(i), depth+1)
			}
		case "Page":
			pages = append(pages, pdf.Page{V: v})
		}
	}
	walk(root, 0)
	return pages
}

// pageText is a page's text: its glyphs in drawing order, a new line where
// the baseline moves by more than half the font size, a space where the
// pen jumps forward (words placed one by one) or back on the same line.
// A page whose content the positioned reading fails on is read again
// without positions, which skips more of what it does not know.
func pageText(p pdf.Page) string {
	if p.V.IsNull() || p.V.Key("Contents").Kind() == pdf.Null {
		return ""
	}
	glyphs, ok := content(p)
	if !ok {
		t, err := p.GetPlainText(nil)
		if err != nil {
			return ""
		}
		var lines []string
		for l := range strings.SplitSeq(t, "\n") {
			if l = cleanLine(l); l != "" {
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "\n")
	}
	var lines []string
	var line strings.Builder
	// pen is where the last glyph is thought to end. The parser knows the
	// widths of simple fonts only; for the others (the CID fonts browsers
	// print with) a glyph's position moves only where the document moved
	// it, and a glyph is taken to be half the font size wide.
	var lastY, lastX, pen float64
	started := false
	flush := func() {
		if s := cleanLine(line.String()); s != "" {
			lines = append(lines, s)
		}
		line.Reset()
	}
	for _, g := range glyphs {
		if g.S == "\n" {
			// The parser's mark for the end of a TJ array: no glyph.
			continue
		}
		size := math.Abs(g.FontSize)
		if size == 0 {
			size = 10
		}
		moved := !started || g.X != lastX
		switch {
		case !started:
		case math.Abs(g.Y-lastY) > size/2:
			flush()
		case moved && (g.X > pen+size*0.3 || g.X < lastX-size/2):
			// A gap wider than kerning, or back to the left: a new word
			// or cell.
			line.WriteByte(' ')
		}
		line.WriteString(g.S)
		advance := g.W
		if advance <= 0 {
			advance = size / 2
		}
		if moved {
			pen = g.X
		}
		pen += advance
		lastY, lastX, started = g.Y, g.X, true
	}
	flush()
	return strings.Join(lines, "\n")
}

// readPage is pageText, or ErrTooLarge when the page met a bound (the
// read's context ending included).
func readPage(ctx context.Context, p pdf.Page) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*pdf.LimitError)
			if !ok {
				panic(r)
			}
			text, err = "", tooLarge(ctx, e)
		}
	}()
	return pageText(p), nil
}

// content is the page's positioned glyphs; false when the parser panicked
// on them. A bound met is raised again, to end the read.
func content(p pdf.Page) (glyphs []pdf.Text, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if pdf.IsLimit(r) {
				panic(r)
			}
			glyphs, ok = nil, false
		}
	}()
	return p.Content().Text, true
}

// cleanLine collapses runs of spaces and drops control characters and
// invalid UTF-8, which a font's encoding may produce.
func cleanLine(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError || (unicode.IsControl(r) && !unicode.IsSpace(r)):
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
