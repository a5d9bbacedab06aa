package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler is a slog.Handler that redacts every log line before the handler
// it wraps sees it: the message, and every attribute's key and value, groups
// and the attributes of Logger.With included, whatever the level. A value
// that is not a string is redacted as it prints, and logged as that text
// only when it held something to hide.
type Handler struct {
	next slog.Handler
	r    *Redactor
	// rewrite, when set, rewrites every text after it is redacted.
	rewrite func(string) string
	// ops are the WithAttrs and WithGroup calls made on the handler, in
	// order, kept unredacted: they are redacted with what is known when a
	// line is written, since a value may be learnt after them.
	ops []op
}

// op is one WithAttrs (attrs) or WithGroup (group) call.
type op struct {
	group string
	attrs []slog.Attr
}

// NewHandler returns a Handler writing to next, redacting what r knows at
// the time each line is written.
func NewHandler(next slog.Handler, r *Redactor) *Handler {
	return &Handler{next: next, r: r}
}

// Rewriting returns a Handler like h that also rewrites every text of a
// line (the message, keys and values) with f after redacting it: what a
// person must read in one form only, such as a URL's host in ASCII.
func (h *Handler) Rewriting(f func(string) string) *Handler {
	c := *h
	c.rewrite = f
	return &c
}

// text is s redacted, then rewritten.
func (h *Handler) text(s string) string {
	s = h.r.String(s)
	if h.rewrite != nil {
		s = h.rewrite(s)
	}
	return s
}

// Redactor returns the redactor the handler uses: what it is taught, the
// handler hides from the next line on.
func (h *Handler) Redactor() *Redactor { return h.r }

// Enabled reports whether the handler it wraps handles level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle redacts rec and passes it on.
func (h *Handler) Handle(ctx context.Context, rec slog.Record) error {
	next := h.next
	for _, o := range h.ops {
		if o.attrs == nil {
			next = next.WithGroup(h.text(o.group))
			continue
		}
		next = next.WithAttrs(h.attrs(o.attrs))
	}
	out := slog.NewRecord(rec.Time, rec.Level, h.text(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return next.Handle(ctx, out)
}

// WithAttrs returns a Handler that adds attrs to every line.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return &Handler{next: h.next, r: h.r, rewrite: h.rewrite, ops: append(h.ops[:len(h.ops):len(h.ops)], op{attrs: attrs})}
}

// WithGroup returns a Handler that puts every later attribute in the group.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &Handler{next: h.next, r: h.r, rewrite: h.rewrite, ops: append(h.ops[:len(h.ops):len(h.ops)], op{group: name})}
}

func (h *Handler) attrs(as []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = h.attr(a)
	}
	return out
}

// attr redacts one attribute, a group's members one by one.
func (h *Handler) attr(a slog.Attr) slog.Attr {
	a.Key = h.text(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(h.text(v.String()))
	case slog.KindGroup:
		a.Value = slog.GroupValue(h.attrs(v.Group())...)
	case slog.KindAny:
		s := fmt.Sprint(v.Any())
		if red := h.text(s); red != s {
			a.Value = slog.StringValue(red)
		} else {
			a.Value = v
		}
	default:
		a.Value = v
	}
	return a
}

// Teach makes the logger hide value, as stand, from its next line on, when
// its handler is a Handler; other loggers are left alone.
func Teach(log *slog.Logger, value, stand string) {
	if log == nil {
		return
	}
	if h, ok := log.Handler().(*Handler); ok {
		h.r.Add(value, stand)
	}
}
