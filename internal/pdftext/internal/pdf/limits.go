package pdf

import (
	"context"
	"fmt"
	"io"
)

// Limits bound what reading one file may cost. Every byte a filter decodes
// passes a counting reader, every indirect object resolved is counted, the
// content interpreter counts its operands and glyphs, and the context is
// checked wherever the parser loops. A zero field sets no bound.
type Limits struct {
	// StreamBytes bounds the bytes one stream decodes to, at each stage of
	// its filters (a chain of filters multiplies their ratios).
	StreamBytes int64
	// TotalBytes bounds the bytes decoded over the whole read, every
	// stream and every stage counted each time it is read.
	TotalBytes int64
	// Objects bounds the indirect objects resolved, so that an object
	// graph that loops ends.
	Objects int
	// Streams bounds the streams opened: each decoder holds tens of
	// kilobytes, and a page's contents may name one stream a million
	// times.
	Streams int
	// Elements bounds the elements of one array or dictionary, and the
	// operands on the content interpreter's stack.
	Elements int
	// Glyphs bounds the glyphs one page's content shows, and the runes one
	// string of it decodes to.
	Glyphs int
	// Nesting bounds the graphics states a content stream saves (q) and
	// does not restore.
	Nesting int
}

// LimitError is the error of a read that went past one of its Limits, or
// whose context ended. The parser raises it by panicking, like its other
// errors; the recovers of this package let it through (IsLimit), so it
// ends the read instead of being skipped as a malformed operand.
type LimitError struct {
	// What says which bound, in words: "a stream decodes to more than 16 MB".
	What string
	// Err is the context's error when the context ended, else nil.
	Err error
}

func (e *LimitError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.What, e.Err)
	}
	return e.What
}

func (e *LimitError) Unwrap() error { return e.Err }

// IsLimit reports whether a recovered panic value is a LimitError, which a
// recover must raise again.
func IsLimit(r any) bool {
	_, ok := r.(*LimitError)
	return ok
}

// guard holds a read's limits and what it has spent. A nil guard bounds
// nothing. One read runs on one goroutine: no lock.
type guard struct {
	ctx     context.Context
	lim     Limits
	decoded int64
	objects int
	streams int
}

// check raises a LimitError when the read's context has ended.
func (g *guard) check() {
	if g == nil || g.ctx == nil {
		return
	}
	if err := g.ctx.Err(); err != nil {
		panic(&LimitError{What: "reading took too long", Err: err})
	}
}

// exceed raises a LimitError.
func exceed(format string, args ...any) {
	panic(&LimitError{What: fmt.Sprintf(format, args...)})
}

// object counts an indirect object resolved.
func (g *guard) object() {
	if g == nil {
		return
	}
	g.check()
	g.objects++
	if g.lim.Objects > 0 && g.objects > g.lim.Objects {
		exceed("it has more than %d objects to read", g.lim.Objects)
	}
}

// stream counts a stream opened.
func (g *guard) stream() {
	if g == nil {
		return
	}
	g.check()
	g.streams++
	if g.lim.Streams > 0 && g.streams > g.lim.Streams {
		exceed("it has more than %d streams to read", g.lim.Streams)
	}
}

// elements raises a LimitError when n elements are past the bound.
func (g *guard) elements(n int) {
	if g != nil && g.lim.Elements > 0 && n > g.lim.Elements {
		exceed("an array or dictionary has more than %d elements", g.lim.Elements)
	}
}

// nesting is the bound on nesting; 0 for none.
func (g *guard) nesting() int {
	if g == nil {
		return 0
	}
	return g.lim.Nesting
}

// glyphs raises a LimitError when n glyphs are past the bound.
func (g *guard) glyphs(n int) {
	if g != nil && g.lim.Glyphs > 0 && n > g.lim.Glyphs {
		exceed("a page shows more than %d glyphs", g.lim.Glyphs)
	}
}

// decoding wraps one stage of a stream's decoding in a reader that counts
// what it yields against the stream's and the read's bounds.
func (g *guard) decoding(rd io.Reader) io.Reader {
	if g == nil {
		return rd
	}
	return &countingReader{r: rd, g: g}
}

// countingReader counts the bytes one stage of a stream's decoding yields.
type countingReader struct {
	r io.Reader
	g *guard
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.g.check()
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.g.decoded += int64(n)
	if lim := c.g.lim.StreamBytes; lim > 0 && c.n > lim {
		exceed("a stream decodes to more than %d bytes", lim)
	}
	if lim := c.g.lim.TotalBytes; lim > 0 && c.g.decoded > lim {
		exceed("its streams decode to more than %d bytes", lim)
	}
	return n, err
}

// guardedFile is the file read with the guard's context checked at every
// read, so that a loop over the file itself (a chain of cross-reference
// sections that leads back) ends with the context.
type guardedFile struct {
	f io.ReaderAt
	g *guard
}

func (f guardedFile) ReadAt(p []byte, off int64) (int, error) {
	f.g.check()
	return f.f.ReadAt(p, off)
}

// guard is the guard of the read v belongs to; nil for a value made by the
// content interpreter.
func (v Value) guard() *guard {
	if v.r == nil {
		return nil
	}
	return v.r.g
}

// fontKey names a font of a page's resources: the object that holds its
// dictionary (itself, when it is an indirect object) and its name there.
type fontKey struct {
	in   objptr
	name string
}

// encoder returns the text encoding of the font named name, f, reading its
// character map once per file, not at every font change of every page.
func (r *Reader) encoder(name string, f *Font) TextEncoding {
	if r == nil || f.V.ptr == (objptr{}) {
		return f.Encoder()
	}
	k := fontKey{f.V.ptr, name}
	if enc, ok := r.encoders[k]; ok {
		return enc
	}
	enc := f.Encoder()
	if r.encoders == nil {
		r.encoders = make(map[fontKey]TextEncoding)
	}
	r.encoders[k] = enc
	return enc
}
