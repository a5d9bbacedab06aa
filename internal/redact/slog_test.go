package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
)

// TestHandler hides a value in every part of a line at every level, a value
// learnt after the logger was made included.
func TestHandler(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), New(nil)))
	early := log.With("url", "https://x.test/?pw="+url.QueryEscape(pw)).WithGroup("g")
	Teach(log, pw, "{{PW}}")
	enc := url.QueryEscape(pw)
	early.Debug("typed "+pw, "value", enc, "err", errors.New("refused "+enc), slog.Group("in", "v", strings.ToLower(enc)), enc, 1)
	log.Info("plain", "n", 3, "ok", true)
	out := buf.String()
	for _, form := range []string{pw, enc, strings.ToLower(enc), "p%40ss"} {
		if strings.Contains(out, form) {
			t.Errorf("the log holds %q:\n%s", form, out)
		}
	}
	for _, want := range []string{"{{PW}}", "n=3", "ok=true", "g.in.v={{PW}}"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	Teach(slog.New(slog.NewTextHandler(&buf, nil)), pw, "x") // another handler: no effect, no panic
	Teach(nil, pw, "x")
}

// A rewriting handler rewrites every text of a line after redacting it, in
// attributes given to With and in groups too, and keeps teaching: the
// handler With returns still hides what its logger learns.
func TestHandlerRewriting(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	upper := func(s string) string { return strings.ReplaceAll(s, "host", "HOST") }
	log := slog.New(NewHandler(slog.NewTextHandler(&buf, nil), New(nil)).Rewriting(upper))
	early := log.With("start", "http://host/").WithGroup("g")
	Teach(log, pw, "{{PW}}")
	early.Info("at host", "url", "http://host/?pw="+pw, "err", errors.New("host down"), slog.Group("in", "v", "host"))
	out := buf.String()
	if strings.Contains(out, "host") || strings.Contains(out, pw) || strings.Count(out, "HOST") != 5 || !strings.Contains(out, "{{PW}}") {
		t.Errorf("the line is not redacted and rewritten everywhere:\n%s", out)
	}
}
