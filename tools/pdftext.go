package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chaperone-mcp/chaperone/capture"
	"github.com/chaperone-mcp/chaperone/internal/pdftext"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// PDFs. Chromium shows a PDF in its viewer, whose page the snapshot sees as
// one opaque box; the session reads the file's text instead: fetched again
// from the page (so its cookies apply), parsed once per document
// (internal/pdftext), announced in the snapshot's notes and paged through
// by browser_extract, a page of the PDF at a time.

// pdfType is the media type of a PDF document.
const pdfType = "application/pdf"

// maxPDFSize caps the PDF the session reads when MaxDownloadSize says
// nothing smaller: its bytes cross the DevTools connection as base64.
const maxPDFSize = 50 << 20

// maxPDFDocs bounds the documents a session remembers the text of: a few
// tabs showing PDFs, each read once however often it is looked at. Each
// holds at most pdftext's text bound.
const maxPDFDocs = 4

// pdfKey names one document: the loader id of a page's document and its
// URL (a loader id names one load of one frame; the URL says what loaded).
type pdfKey struct {
	document, url string
}

// pdfRead is what reading one document gave.
type pdfRead struct {
	key pdfKey
	doc *pdftext.Document
	// err says why the document could not be read.
	err error
}

// pdfState is the PDFs the session's pages showed, read once per document,
// the most recently used last.
type pdfState struct {
	reads []pdfRead
}

// find returns what reading the document k gave, and marks it used.
func (p *pdfState) find(k pdfKey) (pdfRead, bool) {
	for i, r := range p.reads {
		if r.key == k {
			p.reads = append(append(p.reads[:i:i], p.reads[i+1:]...), r)
			return r, true
		}
	}
	return pdfRead{}, false
}

// keep remembers what reading a document gave, forgetting the least
// recently used past maxPDFDocs.
func (p *pdfState) keep(r pdfRead) {
	if len(p.reads) >= maxPDFDocs {
		p.reads = p.reads[1:]
	}
	p.reads = append(p.reads, r)
}

// currentPDF returns the text of the PDF the current page shows, reading it
// when the page shows a document not read yet; nil, nil when the page is
// not a PDF. It does nothing while a JavaScript dialog is open, which
// blocks the page's scripts.
func (s *Session) currentPDF(ctx context.Context) (*pdftext.Document, error) {
	if s.tab.Dialog() != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.config.SnapshotTimeout)
	defer cancel()
	typ, err := s.tab.DocumentType(ctx)
	if err != nil || typ != pdfType {
		return nil, nil
	}
	w, err := s.tab.PageWhere(ctx)
	if err != nil {
		return nil, fmt.Errorf("find the PDF's document: %w", err)
	}
	key := pdfKey{document: w.Document, url: w.URL}
	if r, ok := s.pdfText.find(key); ok {
		return r.doc, r.err
	}
	limit := int64(maxPDFSize)
	if m := s.config.MaxDownloadSize; m > 0 && m < limit {
		limit = m
	}
	rctx, cancel := context.WithTimeout(ctx, s.config.NavigationTimeout)
	defer cancel()
	r := pdfRead{key: key}
	data, _, err := s.tab.DocumentBytes(rctx, limit)
	if err != nil {
		r.err = fmt.Errorf("read the PDF: %w", err)
	} else {
		// The parse is bounded in bytes, objects, glyphs and time, and ends
		// with this call's deadline; its errors say what they are.
		r.doc, r.err = pdftext.Read(rctx, data)
	}
	if r.err != nil {
		s.log.Info("PDF not read", "err", r.err)
	}
	if ctx.Err() == nil || !errors.Is(r.err, context.Canceled) {
		// A bomb, a bad file or a slow one is read once; a read the caller
		// cancelled is tried again next time.
		s.pdfText.keep(r)
	}
	return r.doc, r.err
}

// pdfNotes says in the snapshot's notes that the page is a PDF and how to
// read it, since the snapshot shows only the viewer's box. page is the
// capture snap was built from: the browser's PDF viewer names the media
// type in its DOM, so a capture without it is no PDF, and the snapshot of
// every other page costs no round trip to ask.
func (s *Session) pdfNotes(ctx context.Context, snap *snapshot.Snapshot, page *capture.Page) {
	if snap == nil || page == nil || !bytes.Contains(page.DOM, []byte(pdfType)) {
		return
	}
	doc, err := s.currentPDF(ctx)
	switch {
	case err != nil:
		snap.Notes = append(snap.Notes, "This page is a PDF that could not be read as text: "+s.clip(err.Error(), textLimit))
	case doc != nil:
		snap.Notes = append(snap.Notes, fmt.Sprintf("This page is a PDF of %s: browser_extract reads its text, page by page.", pageCount(doc.Total)))
	}
}

// pageCount says how many pages.
func pageCount(n int) string {
	if n == 1 {
		return "1 page"
	}
	return strconv.Itoa(n) + " pages"
}

// extractPDF answers browser_extract on a page that shows a PDF: its text
// as markdown, a heading per page and a block per line, paged by the
// cursor like a page's markdown. It leaves the live refs as they were,
// since it read no element.
func (s *Session) extractPDF(ctx context.Context, c *call, in extractInput, doc *pdftext.Document) Output {
	if in.Selector != "" || len(in.Fields) > 0 {
		return s.failed(ctx, c, toolapi.InvalidParams, "This page is a PDF: it has no elements to select. Call browser_extract without selector and fields to read its text.")
	}
	tokens, err := in.budget(extractTokens)
	if err != nil {
		return s.failed(ctx, c, toolapi.InvalidParams, err.Error())
	}
	from, mark, err := parseCursor(in.Cursor)
	if err != nil {
		return s.failed(ctx, c, toolapi.InvalidParams, err.Error())
	}
	blocks, pageOf := pdfBlocks(doc)
	if from > len(blocks) {
		return s.failed(ctx, c, toolapi.InvalidParams, fmt.Sprintf("cursor %q is past the end: the PDF has %d blocks", in.Cursor, len(blocks)))
	}
	url := s.tab.URL()
	r := ExtractResult{Success: true, URL: s.secrets.redact(url)}
	if s.last != nil && s.last.Page.URL == url {
		r.Title = s.secrets.redact(s.last.Page.Title)
	}
	notes := []string{fmt.Sprintf("This page is a PDF of %s.", pageCount(doc.Total))}
	if len(doc.Pages) < doc.Total {
		notes = append(notes, fmt.Sprintf("Only its first %d pages are read.", len(doc.Pages)))
	}
	if doc.Cut != "" {
		notes = append(notes, s.clip("The rest is not: "+doc.Cut+".", textLimit))
	}
	if from > 0 && blockMark(blocks[from-1]) != mark {
		notes = append(notes, "The PDF changed since that cursor: some text may repeat or be missed.")
	}
	text, end := snapshot.PageMarkdown(blocks, from, tokens)
	r.Markdown = s.secrets.redact(text)
	switch {
	case end < len(blocks):
		r.NextCursor = strconv.Itoa(end) + ":" + blockMark(blocks[end-1])
		notes = append(notes, fmt.Sprintf("Pages %s; cut at about %d tokens: next cursor %q.", pageSpan(pageOf, from, end), tokens, r.NextCursor))
	default:
		notes = append(notes, fmt.Sprintf("Pages %s: the end.", pageSpan(pageOf, from, end)))
	}
	r.Message = s.clip(strings.Join(notes, " "), resultLimit)
	return Output{Value: r}
}

// pdfBlocks are the markdown blocks of a PDF: "## Page N" before each page,
// then its lines; pageOf gives each block's page number.
func pdfBlocks(doc *pdftext.Document) (blocks []snapshot.Block, pageOf []int) {
	add := func(b snapshot.Block, page int) {
		blocks = append(blocks, b)
		pageOf = append(pageOf, page)
	}
	for i, p := range doc.Pages {
		add(snapshot.Block{Text: fmt.Sprintf("## Page %d", i+1), Gap: i > 0}, i+1)
		if p == "" {
			add(snapshot.Block{Text: "(no text on this page: images only, or a scan)"}, i+1)
			continue
		}
		for line := range strings.SplitSeq(p, "\n") {
			add(snapshot.Block{Text: pdfEscape(line)}, i+1)
		}
	}
	return blocks, pageOf
}

// pageSpan says which pages blocks from to end-1 show: "2" or "1–3".
func pageSpan(pageOf []int, from, end int) string {
	if len(pageOf) == 0 || from >= end {
		return "none"
	}
	a, b := pageOf[from], pageOf[end-1]
	if a == b {
		return strconv.Itoa(a)
	}
	return fmt.Sprintf("%d–%d", a, b)
}

// pdfEscape keeps a PDF's text from reading as markdown that means
// something else: brackets could forge a ref, and a line starting with "#"
// a page heading of the server's.
func pdfEscape(line string) string {
	line = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(line)
	if strings.HasPrefix(line, "#") {
		line = `\` + line
	}
	return line
}
