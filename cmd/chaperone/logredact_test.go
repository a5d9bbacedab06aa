package main

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/redact"
)

// TestLoggerRedacts: the command's logger, at every level, hides what a
// session taught it, in the forms a page URL gives it, in loggers derived
// from it too.
func TestLoggerRedacts(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log, err := newLogger(&buf, "debug")
	if err != nil {
		t.Fatal(err)
	}
	derived := log.With("mcp_session", "stdio")
	redact.Teach(derived, secretsPW, "{{PW}}")
	u := "http://127.0.0.1/r?pw=" + url.QueryEscape(secretsPW)
	log.Debug("frame", "url", strings.ToLower(u))
	derived.Info("checkpoint", "url", u)
	log.Warn("typed " + secretsPW)
	secretsLeak(t, "the log", buf.String())
	if n := strings.Count(buf.String(), "{{PW}}"); n != 3 {
		t.Errorf("%d stand-ins in the log, want 3:\n%s", n, buf.String())
	}
}
