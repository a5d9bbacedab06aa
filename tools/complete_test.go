package tools

import (
	"slices"
	"strings"
	"testing"
)

// TestTypedLog: what the agent types by fill, and key by key, is kept for
// the verdict; keys that type nothing end a run of characters.
func TestTypedLog(t *testing.T) {
	t.Parallel()
	var l typedLog
	v := "Membership cancelled"
	l.fill(&v)
	l.fill(nil)
	blank := "   "
	l.fill(&blank)
	for _, k := range []string{"H", "i", "Space", "Shift+A", "d", "a", "Enter", "Control+a", "o", "k"} {
		l.key(k)
	}
	want := []string{"Membership cancelled", "Hi Ada", "ok"}
	if got := l.texts(); !slices.Equal(got, want) {
		t.Errorf("texts = %q, want %q", got, want)
	}
	// It stays bounded, dropping the oldest first.
	for range 3 {
		big := strings.Repeat("x", maxTyped/2)
		l.fill(&big)
	}
	if l.bytes > maxTyped {
		t.Errorf("kept %d bytes, more than %d", l.bytes, maxTyped)
	}
	if got := l.texts(); got[len(got)-1] != "ok" {
		t.Errorf("the run under way is lost: %q", got[len(got)-1])
	}
}
