package tools

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

// TestClip: a page string is cut to its bound with "…" and how much was
// left off, after the session's secrets are redacted, so that a cut never
// leaves part of a secret behind.
func TestClip(t *testing.T) {
	t.Parallel()
	s := &Session{secrets: newSecrets(map[string]string{"TOKEN": "tok-81f3e2a9"}, nil, nil)}
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"ééééé", 5, "ééééé"},
		{strings.Repeat("A", 250), 200, strings.Repeat("A", 200) + "… (50 more characters)"},
		{strings.Repeat("x", 195) + "tok-81f3e2a9", 200, strings.Repeat("x", 195) + "{{TOK… (4 more characters)"},
	} {
		if got := s.clip(tc.in, tc.n); got != tc.want {
			t.Errorf("clip(…, %d) = …%q, want …%q", tc.n, got[max(0, len(got)-40):], tc.want[max(0, len(tc.want)-40):])
		}
	}
}

// TestAlertsNoteIsBounded: 50 long alerts are said in one bounded line.
func TestAlertsNoteIsBounded(t *testing.T) {
	t.Parallel()
	s := &Session{secrets: newSecrets(nil, nil, nil)}
	alerts := make([]string, 50)
	for i := range alerts {
		alerts[i] = strings.Repeat("A", 20_000)
	}
	got := s.alertsNote(alerts)
	if n := utf8.RuneCountInString(got); n > 1000 || !strings.Contains(got, "50 alerts") || !strings.Contains(got, "and 47 more") {
		t.Errorf("%d characters: %.300q", n, got)
	}
	if got := s.alertsNote([]string{"Saved"}); got != ` The page showed an alert, which was accepted: "Saved".` {
		t.Errorf("one alert: %q", got)
	}
}

// TestTookEffect: a choice took effect when the very options planned are
// selected; a closed combobox's, known by text, up to case and spacing.
func TestTookEffect(t *testing.T) {
	t.Parallel()
	basic, premium := checkpoint.Option{Text: "Basic $5", Value: "basic"}, checkpoint.Option{Text: "Premium annual $6000", Value: "premium-annual"}
	for _, tc := range []struct {
		name         string
		planned, got []checkpoint.Option
		ok           bool
	}{
		{"the same", []checkpoint.Option{basic}, []checkpoint.Option{basic}, true},
		{"rewritten", []checkpoint.Option{basic}, []checkpoint.Option{premium}, false},
		{"renamed, same value", []checkpoint.Option{basic}, []checkpoint.Option{{Text: "Premium annual $6000", Value: "basic"}}, false},
		{"one more", []checkpoint.Option{basic}, []checkpoint.Option{basic, premium}, false},
		{"none", []checkpoint.Option{basic}, []checkpoint.Option{}, false},
		{"none planned", nil, []checkpoint.Option{}, true},
		{"combobox, by text", []checkpoint.Option{{Text: "standard"}}, []checkpoint.Option{{Text: " Standard ", Value: "std"}}, true},
		{"combobox, other text", []checkpoint.Option{{Text: "standard"}}, []checkpoint.Option{{Text: "Premium", Value: "std"}}, false},
	} {
		if got := tookEffect(tc.planned, tc.got); got != tc.ok {
			t.Errorf("%s: tookEffect = %v, want %v", tc.name, got, tc.ok)
		}
	}
}

// TestHolds: a field holds what was typed up to the separators, case and
// spacing a formatter adds, and nothing else.
func TestHolds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value, typed string
		clear, ok    bool
	}{
		{"5", "5", true, true},
		{"6000", "5", true, false},
		{"15", "5", true, false},
		{"4242 4242 4242 4242", "4242424242424242", true, true},
		{"(555) 123-4567", "555-123-4567", true, true},
		{"SW1A 1AA", "sw1a1aa", true, true},
		{"", "", true, true},
		{"hello world", "world", false, true},
		{"hello", "world", false, false},
		{"!!", "!!!", true, false},
	} {
		if got := holds(tc.value, tc.typed, tc.clear); got != tc.ok {
			t.Errorf("holds(%q, %q, clear %v) = %v, want %v", tc.value, tc.typed, tc.clear, got, tc.ok)
		}
	}
}
